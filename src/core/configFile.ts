/**
 * `haiku.config.json`: the project configuration every front end reads (the CLI and VS Code). Its keys are the
 * specification's names (`qa.max_searches`, `prompts.domain_preamble`); each sets one `HaikuConfig` path.
 * Unknown keys are rejected with the key and its path named, so a typo never silently does nothing.
 */
import { z } from 'zod';
import { HaikuError } from './errors';
import { setConfigValue, type ConfigPath, type HaikuConfig } from './config';

/** The file's name, looked for at the project root (VS Code: the workspace folders; CLI: the current folder upwards). */
export const CONFIG_FILE_NAME = 'haiku.config.json';

interface FileKey {
  /** The configuration path the key sets. */
  path: ConfigPath;
  schema: z.ZodType;
}

const positiveInteger = z.number().int().positive();
const baseUrl = z.string().describe('Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1 (Ollama).');

/**
 * Every key of the file, one line each (adding a setting is one line here): its dotted name in the file, the
 * configuration path it sets and its type. API keys are not file keys: a project file is shared, keys are not.
 */
export const CONFIG_FILE_KEYS = {
  'index.database': { path: 'index.databaseUri', schema: z.string().min(1).describe('The index: a folder (relative to this file) or a LanceDB URI such as s3://bucket/path.') },
  'index.include': { path: 'index.include', schema: z.array(z.string()).describe('Globs of the files to index.') },
  'index.exclude': { path: 'index.exclude', schema: z.array(z.string()).describe('Globs of files never indexed (replaces the default list).') },
  'index.max_file_bytes': { path: 'index.maxFileBytes', schema: positiveInteger.describe('Files larger than this many bytes are skipped.') },
  'index.respect_gitignore': { path: 'index.respectGitignore', schema: z.boolean().describe('Skip files that .gitignore files exclude.') },
  'index.follow_links_outside': { path: 'index.followLinksOutside', schema: z.boolean().describe('Index linked files whose target lies outside the indexed folders.') },
  'index.auto_index': { path: 'index.autoIndex', schema: z.boolean().describe('VS Code: index on start and follow file changes.') },
  'index.use_exclude_settings': { path: 'index.useExcludeSettings', schema: z.boolean().describe("VS Code: also skip what files.exclude and search.exclude hide.") },
  'search.limit': { path: 'search.limit', schema: positiveInteger.describe('Results a search returns when no limit is given.') },
  'search.max_context_chars': { path: 'search.maxContextChars', schema: positiveInteger.describe('Characters of an expanded search result at most.') },
  'search.rerank_pool_factor': { path: 'search.rerankPoolFactor', schema: positiveInteger.describe('With a reranker, limit × this many candidates are reranked.') },
  'search.full_text_weight': { path: 'search.fullTextWeight', schema: z.number().nonnegative().describe('Weight of the full-text ranking in rank fusion.') },
  'search.vector_weight': { path: 'search.vectorWeight', schema: z.number().nonnegative().describe('Weight of the vector ranking in rank fusion.') },
  'embeddings.provider': { path: 'embeddings.provider', schema: z.enum(['none', 'openai']).describe("'none': full-text search only; 'openai': an OpenAI-compatible /embeddings server (hybrid search).") },
  'embeddings.base_url': { path: 'embeddings.baseUrl', schema: baseUrl },
  'embeddings.model': { path: 'embeddings.model', schema: z.string().describe('Embedding model, e.g. nomic-embed-text. Changing it needs a rebuild.') },
  'embeddings.dimensions': { path: 'embeddings.dimensions', schema: positiveInteger.describe('Vector size to ask for (models that support shortening).') },
  'embeddings.batch_size': { path: 'embeddings.batchSize', schema: positiveInteger.describe('Texts per embeddings request.') },
  'reranker.provider': { path: 'reranker.provider', schema: z.enum(['none', 'http']).describe("'none', or 'http': a Cohere-compatible {base_url}/rerank endpoint.") },
  'reranker.base_url': { path: 'reranker.baseUrl', schema: z.string().describe('Base URL of the reranker, e.g. http://127.0.0.1:8000/v1.') },
  'reranker.model': { path: 'reranker.model', schema: z.string().describe('Model name sent to the reranker.') },
  'qa.model.base_url': { path: 'qa.model.baseUrl', schema: baseUrl },
  'qa.model.name': { path: 'qa.model.name', schema: z.string().describe('Chat model for questions, e.g. qwen3:8b.') },
  'qa.model.temperature': { path: 'qa.model.temperature', schema: z.number().min(0).max(2).describe('Sampling temperature.') },
  'qa.model.thinking': { path: 'qa.model.thinking', schema: z.boolean().describe('Let a reasoning model think before answering.') },
  'qa.model.vision': { path: 'qa.model.vision', schema: z.boolean().describe('The model can see images (pictures are attached to search results).') },
  'qa.max_searches': { path: 'qa.maxSearches', schema: positiveInteger.describe('Search units per question.') },
  'qa.max_executions': { path: 'qa.maxExecutions', schema: positiveInteger.describe('execute_code calls per question.') },
  'qa.request_limit': { path: 'qa.requestLimit', schema: positiveInteger.nullable().describe('Model requests per question; null for no limit.') },
  'sandbox.code_timeout': { path: 'sandbox.codeTimeoutSeconds', schema: z.number().positive().describe('Seconds one execute_code call may run.') },
  'sandbox.max_output_chars': { path: 'sandbox.maxOutputChars', schema: positiveInteger.describe('Output of one execute_code call is cut after this many characters.') },
  'sandbox.memory_limit_bytes': { path: 'sandbox.memoryLimitBytes', schema: positiveInteger.describe('Memory of the code sandbox in bytes.') },
  'processing.pictures': { path: 'processing.pictures', schema: z.enum(['image', 'none']).describe("'image': PDF and DOCX pictures are kept with their bytes; 'none': only their text.") },
  'prompts.domain_preamble': { path: 'qa.domainPreamble', schema: z.string().describe('Prepended to the agent instructions: describe the corpus and the audience.') },
} as const satisfies Record<string, FileKey>;

export type ConfigFileKey = keyof typeof CONFIG_FILE_KEYS;

/** The file key that sets a configuration path, if any (API keys and VS Code-only settings have none). */
export function configFileKeyOf(path: ConfigPath): ConfigFileKey | undefined {
  return (Object.keys(CONFIG_FILE_KEYS) as ConfigFileKey[]).find((key) => CONFIG_FILE_KEYS[key].path === path);
}

type SchemaTree = { [name: string]: SchemaTree | z.ZodType };

function strictGroups(tree: SchemaTree): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, child] of Object.entries(tree)) {
    shape[name] = (child instanceof z.ZodType ? child : strictGroups(child)).optional();
  }
  return z.strictObject(shape);
}

let schema: z.ZodObject | undefined;

/** The whole file as nested strict objects built from `CONFIG_FILE_KEYS` (built on first use: most windows have no file); `$schema` lets editors find the JSON schema. */
export function configFileSchema(): z.ZodObject {
  if (!schema) {
    const tree: SchemaTree = {};
    for (const [key, entry] of Object.entries(CONFIG_FILE_KEYS)) {
      const parts = key.split('.');
      let group = tree;
      for (const part of parts.slice(0, -1)) {
        group = (group[part] ??= {}) as SchemaTree;
      }
      group[parts[parts.length - 1]] = entry.schema;
    }
    schema = strictGroups({ ...tree, $schema: z.string().describe('Where editors find this schema.') });
  }
  return schema;
}

/** The JSON schema editors validate the file with (checked in as `schemas/haiku.config.schema.json`; draft 7, which every editor reads). */
export function configFileJsonSchema(): Record<string, unknown> {
  return { ...z.toJSONSchema(configFileSchema(), { io: 'input', target: 'draft-7' }), title: 'Haiku project configuration (haiku.config.json)' };
}

/** The settings a file gives, by configuration path (only the keys it holds). */
export type ConfigFileValues = Partial<Record<ConfigPath, unknown>>;

/**
 * Parses and validates the file's text. Every problem is reported at once, each with its dotted key; `source`
 * (the file's path) starts the message. A relative `index.database` goes through `resolveRelative` (against the
 * file's folder, so the file means the same index from any working folder); URIs (`s3://…`) pass unchanged.
 */
export function parseConfigFile(text: string, source: string, resolveRelative: (relativePath: string) => string = (relativePath) => relativePath): ConfigFileValues {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new HaikuError('invalid_settings', `${source} is not valid JSON (${error instanceof Error ? error.message : String(error)}). Fix it or delete it.`);
  }
  const parsed = configFileSchema().safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(issueText);
    throw new HaikuError('invalid_settings', `${source}: ${problems.join('; ')}. The keys and their types are in the README's Configuration section and in schemas/haiku.config.schema.json.`);
  }
  const values: ConfigFileValues = {};
  for (const [key, { path }] of Object.entries(CONFIG_FILE_KEYS)) {
    const value = key.split('.').reduce<unknown>((group, part) => (typeof group === 'object' && group !== null ? (group as Record<string, unknown>)[part] : undefined), parsed.data);
    if (value !== undefined) {
      values[path] = value;
    }
  }
  const database = values['index.databaseUri'];
  if (typeof database === 'string' && !/^[a-z][a-z0-9+.-]+:\/\//i.test(database)) {
    values['index.databaseUri'] = resolveRelative(database);
  }
  return values;
}

function issueText(issue: z.core.$ZodIssue): string {
  const at = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `unknown key "${at === '' ? key : `${at}.${key}`}"${knownKeysHint(at)}`).join('; ');
  }
  return `"${at}": ${issue.message}`;
}

function knownKeysHint(group: string): string {
  const prefix = group === '' ? '' : `${group}.`;
  const names = [...new Set(Object.keys(CONFIG_FILE_KEYS).filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length).split('.')[0]))];
  return names.length > 0 ? ` (known${group === '' ? '' : ` under "${group}"`}: ${names.join(', ')})` : '';
}

/** Sets the file's values on a configuration, in place. */
export function applyConfigValues(config: HaikuConfig, values: ConfigFileValues): HaikuConfig {
  for (const [path, value] of Object.entries(values) as Array<[ConfigPath, unknown]>) {
    setConfigValue(config, path, value);
  }
  return config;
}
