/**
 * `haiku.config.json`: the project configuration every front end reads (the CLI and VS Code). Its keys are the
 * specification's names (`qa.max_searches`, `prompts.domain_preamble`); each sets one `HaikuConfig` path.
 * Unknown keys are rejected with the key and its path named, so a typo never silently does nothing.
 */
// zod/mini: the same validator at a tenth of the size; the VS Code extension bundle reads this file at activation.
import * as z from 'zod/mini';
import { HaikuError } from './errors';
import { setConfigValue, type ConfigPath, type HaikuConfig } from './config';
import { SETTINGS_TABLE } from './settingsTable';

/** The file's name, looked for at the project root (VS Code: the workspace folders; CLI: the current folder upwards). */
export const CONFIG_FILE_NAME = 'haiku.config.json';

interface FileKey {
  /** The configuration path the key sets. */
  path: ConfigPath;
  schema: z.ZodMiniType;
}

/**
 * Every key of the file, from `SETTINGS_TABLE` (adding a setting is a row there): its dotted name in the file, the
 * configuration path it sets and its type. An API key in the file goes only where the file's author chose
 * (`api_key` beside a `base_url`); the user's own keys never go to a URL the file sets unless trusted (`endpointTrust.ts`).
 */
export const CONFIG_FILE_KEYS: Readonly<Record<string, FileKey>> = Object.fromEntries(
  SETTINGS_TABLE.flatMap((row) => (row.file ? [[row.file.key, { path: row.path, schema: row.file.schema }] as const] : [])),
);

/** A key of the file, e.g. `qa.max_searches`. */
export type ConfigFileKey = string;

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
    schema = strictGroups({ ...tree, $schema: z.string().check(z.describe('Where editors find this schema.')) });
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
