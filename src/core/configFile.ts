/**
 * `haiku.config.json`: the project configuration every front end reads (the CLI and VS Code). Its keys are the
 * specification's names (`qa.max_searches`, `prompts.domain_preamble`); each sets one `HaikuConfig` path.
 * Unknown keys are rejected with the key and its path named, so a typo never silently does nothing.
 */
// zod/mini: the same validator at a tenth of the size; the VS Code extension bundle reads this file at activation.
import * as z from 'zod/mini';
import { HaikuError } from './errors';
import { setConfigValue, type ConfigPath, type HaikuConfig } from './config';

/** The file's name, looked for at the project root (VS Code: the workspace folders; CLI: the current folder upwards). */
export const CONFIG_FILE_NAME = 'haiku.config.json';

interface FileKey {
  /** The configuration path the key sets. */
  path: ConfigPath;
  schema: z.ZodMiniType;
}

const positiveInteger = (description: string) => z.int().check(z.positive(), z.describe(description));
const text = (description: string) => z.string().check(z.describe(description));
const flag = (description: string) => z.boolean().check(z.describe(description));
const globs = (description: string) => z.array(z.string()).check(z.describe(description));
const oneOf = <const Values extends readonly [string, ...string[]]>(values: Values, description: string) => z.enum(values).check(z.describe(description));
const baseUrl = text('Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1 (Ollama).');
const apiKey = text("This server's API key, for a private file only: prefer the HAIKU_*_API_KEY variables. Your own keys (variables, flags) never go to a base URL this file sets unless you run `haiku trust <base-url>`.");

/**
 * Every key of the file, one line each (adding a setting is one line here): its dotted name in the file, the
 * configuration path it sets and its type. An API key in the file goes only where the file's author chose
 * (`api_key` beside a `base_url`); the user's own keys never go to a URL the file sets unless trusted (`endpointTrust.ts`).
 */
export const CONFIG_FILE_KEYS = {
  'index.database': { path: 'index.databaseUri', schema: z.string().check(z.minLength(1), z.describe('The index: a folder (relative to this file) or a LanceDB URI such as s3://bucket/path.')) },
  'index.include': { path: 'index.include', schema: globs('Globs of the files to index.') },
  'index.exclude': { path: 'index.exclude', schema: globs('Globs of files never indexed (replaces the default list).') },
  'index.mode': { path: 'index.mode', schema: oneOf(['local', 'remote-readonly'], "'remote-readonly': a team index others publish, never written here.") },
  'index.source_root': { path: 'index.sourceRoot', schema: text('Folder the stored document paths are relative to (publishing a team index).') },
  'index.storage.endpoint': { path: 'index.storage.endpoint', schema: text('S3-compatible endpoint of an s3:// database, e.g. http://127.0.0.1:9000.') },
  'index.storage.region': { path: 'index.storage.region', schema: text('Region of an s3:// database.') },
  'index.storage.path_style': { path: 'index.storage.pathStyle', schema: flag('Path-style requests (most self-hosted S3 servers).') },
  'index.storage.allow_http': { path: 'index.storage.allowHttp', schema: flag('Allow plain HTTP to the endpoint (local servers).') },
  'index.max_file_bytes': { path: 'index.maxFileBytes', schema: positiveInteger('Files larger than this many bytes are skipped.') },
  'index.respect_gitignore': { path: 'index.respectGitignore', schema: flag('Skip files that .gitignore files exclude.') },
  'index.follow_links_outside': { path: 'index.followLinksOutside', schema: flag('Index linked files whose target lies outside the indexed folders.') },
  'index.auto_index': { path: 'index.autoIndex', schema: flag('VS Code: index on start and follow file changes.') },
  'index.use_exclude_settings': { path: 'index.useExcludeSettings', schema: flag("VS Code: also skip what files.exclude and search.exclude hide.") },
  'search.limit': { path: 'search.limit', schema: positiveInteger('Results a search returns when no limit is given.') },
  'search.max_context_chars': { path: 'search.maxContextChars', schema: positiveInteger('Characters of an expanded search result at most.') },
  'search.rerank_pool_factor': { path: 'search.rerankPoolFactor', schema: positiveInteger('With a reranker, limit × this many candidates are reranked.') },
  'search.full_text_weight': { path: 'search.fullTextWeight', schema: z.number().check(z.nonnegative(), z.describe('Weight of the full-text ranking in rank fusion.')) },
  'search.vector_weight': { path: 'search.vectorWeight', schema: z.number().check(z.nonnegative(), z.describe('Weight of the vector ranking in rank fusion.')) },
  'embeddings.provider': { path: 'embeddings.provider', schema: oneOf(['none', 'openai'], "'none': full-text search only; 'openai': an OpenAI-compatible /embeddings server (hybrid search).") },
  'embeddings.base_url': { path: 'embeddings.baseUrl', schema: baseUrl },
  'embeddings.api_key': { path: 'embeddings.apiKey', schema: apiKey },
  'embeddings.model': { path: 'embeddings.model', schema: text('Embedding model, e.g. nomic-embed-text. Changing it needs a rebuild.') },
  'embeddings.dimensions': { path: 'embeddings.dimensions', schema: positiveInteger('Vector size to ask for (models that support shortening).') },
  'embeddings.batch_size': { path: 'embeddings.batchSize', schema: positiveInteger('Texts per embeddings request.') },
  'reranker.provider': { path: 'reranker.provider', schema: oneOf(['none', 'http'], "'none', or 'http': a Cohere-compatible {base_url}/rerank endpoint.") },
  'reranker.base_url': { path: 'reranker.baseUrl', schema: text('Base URL of the reranker, e.g. http://127.0.0.1:8000/v1.') },
  'reranker.model': { path: 'reranker.model', schema: text('Model name sent to the reranker.') },
  'reranker.api_key': { path: 'reranker.apiKey', schema: apiKey },
  'qa.model.base_url': { path: 'qa.model.baseUrl', schema: baseUrl },
  'qa.model.api_key': { path: 'qa.model.apiKey', schema: apiKey },
  'qa.model.name': { path: 'qa.model.name', schema: text('Chat model for questions, e.g. qwen3:8b.') },
  'qa.model.temperature': { path: 'qa.model.temperature', schema: z.number().check(z.gte(0), z.lte(2), z.describe('Sampling temperature.')) },
  'qa.model.thinking': { path: 'qa.model.thinking', schema: flag('Let a reasoning model think before answering.') },
  'qa.model.vision': { path: 'qa.model.vision', schema: flag('The model can see images (pictures are attached to search results).') },
  'analysis.model.name': { path: 'analysis.model.name', schema: text('Model of the analysis capability (code execution); default: qa.model.name.') },
  'analysis.model.base_url': { path: 'analysis.model.baseUrl', schema: baseUrl },
  'analysis.model.api_key': { path: 'analysis.model.apiKey', schema: apiKey },
  'qa.max_searches': { path: 'qa.maxSearches', schema: positiveInteger('Search units per question.') },
  'qa.max_executions': { path: 'qa.maxExecutions', schema: positiveInteger('execute_code calls per question.') },
  'qa.request_limit': { path: 'qa.requestLimit', schema: z.nullable(z.int().check(z.positive())).check(z.describe('Model requests per question; null for no limit.')) },
  'sandbox.code_timeout': { path: 'sandbox.codeTimeoutSeconds', schema: z.number().check(z.positive(), z.describe('Seconds one execute_code call may run.')) },
  'sandbox.max_output_chars': { path: 'sandbox.maxOutputChars', schema: positiveInteger('Output of one execute_code call is cut after this many characters.') },
  'sandbox.memory_limit_bytes': { path: 'sandbox.memoryLimitBytes', schema: positiveInteger('Memory of the code sandbox in bytes.') },
  // The analysis specification's names for the same limits (analysis-skill.md); listed after the keys above, which name them in errors.
  'analysis.code_timeout': { path: 'sandbox.codeTimeoutSeconds', schema: z.number().check(z.positive(), z.describe('Same as sandbox.code_timeout: seconds one execute_code call may run.')) },
  'analysis.max_output_chars': { path: 'sandbox.maxOutputChars', schema: positiveInteger('Same as sandbox.max_output_chars: output of one execute_code call is cut after this many characters.') },
  'analysis.max_executions': { path: 'qa.maxExecutions', schema: positiveInteger('Same as qa.max_executions: execute_code calls per question.') },
  'processing.pictures': {
    path: 'processing.pictures',
    schema: oneOf(['image', 'none', 'description'], "'image': pictures are kept with their bytes; 'none': only their text; 'description': a vision model describes each one at indexing."),
  },
  'processing.picture_description.base_url': { path: 'processing.pictureDescription.baseUrl', schema: baseUrl },
  'processing.picture_description.api_key': { path: 'processing.pictureDescription.apiKey', schema: apiKey },
  'processing.picture_description.model': { path: 'processing.pictureDescription.model', schema: text('Vision model that describes pictures when processing.pictures is "description".') },
  'prompts.domain_preamble': { path: 'qa.domainPreamble', schema: text('Prepended to the agent instructions: describe the corpus and the audience.') },
} as const satisfies Record<string, FileKey>;

export type ConfigFileKey = keyof typeof CONFIG_FILE_KEYS;

/** The file key that sets a configuration path, if any (API keys and VS Code-only settings have none). */
export function configFileKeyOf(path: ConfigPath): ConfigFileKey | undefined {
  return (Object.keys(CONFIG_FILE_KEYS) as ConfigFileKey[]).find((key) => CONFIG_FILE_KEYS[key].path === path);
}

type SchemaTree = { [name: string]: SchemaTree | z.ZodMiniType };

function strictGroups(tree: SchemaTree): z.ZodMiniObject {
  const shape: Record<string, z.ZodMiniType> = {};
  for (const [name, child] of Object.entries(tree)) {
    shape[name] = z.optional(child instanceof z.ZodMiniType ? child : strictGroups(child));
  }
  return z.strictObject(shape);
}

let schema: z.ZodMiniObject | undefined;

/** The whole file as nested strict objects built from `CONFIG_FILE_KEYS` (built on first use: most windows have no file); `$schema` lets editors find the JSON schema. */
export function configFileSchema(): z.ZodMiniObject {
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
    schema = strictGroups({ ...tree, $schema: text('Where editors find this schema.') });
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
  const parsed = configFileSchema().safeParse(json, { reportInput: true });
  if (!parsed.success) {
    const problems = parsed.error.issues.map(issueText);
    throw new HaikuError('invalid_settings', `${source}: ${problems.join('; ')}. The keys and their types are in the README's Configuration section and in schemas/haiku.config.schema.json.`);
  }
  const values: ConfigFileValues = {};
  const setBy: Partial<Record<ConfigPath, string>> = {};
  for (const [key, { path }] of Object.entries(CONFIG_FILE_KEYS)) {
    const value = key.split('.').reduce<unknown>((group, part) => (typeof group === 'object' && group !== null ? (group as Record<string, unknown>)[part] : undefined), parsed.data);
    if (value === undefined) {
      continue;
    }
    const earlier = setBy[path];
    if (earlier !== undefined && values[path] !== value) {
      // Two names of one setting (sandbox.code_timeout, analysis.code_timeout) that disagree: neither silently wins.
      throw new HaikuError('invalid_settings', `${source}: "${earlier}" and "${key}" set the same limit to ${JSON.stringify(values[path])} and ${JSON.stringify(value)}. Keep one of them.`);
    }
    values[path] = value;
    setBy[path] = key;
  }
  const database = values['index.databaseUri'];
  if (typeof database === 'string' && !/^[a-z][a-z0-9+.-]+:\/\//i.test(database)) {
    values['index.databaseUri'] = resolveRelative(database);
  }
  return values;
}

/** One problem in words (zod/mini carries no message texts, so they are made here from the issue's fields). */
function issueText(issue: z.core.$ZodIssue): string {
  const at = issue.path.map(String).join('.');
  const where = at === '' ? 'the whole file' : `"${at}"`;
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => `unknown key "${at === '' ? key : `${at}.${key}`}"${knownKeysHint(at)}`).join('; ');
    case 'invalid_type':
      return `${where}: expected ${issue.expected === 'int' ? 'a whole number' : issue.expected}, got ${describeValue(issue.input)}`;
    case 'invalid_value':
      return `${where}: expected one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}, got ${describeValue(issue.input)}`;
    case 'too_small':
      return `${where}: must be ${issue.origin === 'string' ? `at least ${issue.minimum} character long` : `${issue.inclusive ? 'at least' : 'more than'} ${issue.minimum}`}`;
    case 'too_big':
      return `${where}: must be ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}`;
    default:
      return `${where}: not a valid value`;
  }
}

function describeValue(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
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
