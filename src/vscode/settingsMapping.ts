import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultConfig, setConfigValue, type ConfigPath, type HaikuConfig } from '../core/config';
import { CONFIG_FILE_NAME, parseConfigFile, type ConfigFileValues } from '../core/configFile';
import { errorMessage } from '../core/errors';
import { SETTINGS_TABLE, type VscodeSetting } from '../core/settingsTable';

/** Reads one `haiku.*` setting by its key without the `haiku.` prefix; undefined when unset. */
export type SettingReader = (key: string) => unknown;

/** API keys live in SecretStorage, never in settings. */
export interface ApiKeys {
  model?: string;
  embeddings?: string;
  reranker?: string;
  storageAccessKeyId?: string;
  storageSecretAccessKey?: string;
}

const BYTES_PER_MEGABYTE = 1024 * 1024;

export const SECRET_KEYS = {
  model: 'haiku.model.apiKey',
  embeddings: 'haiku.embeddings.apiKey',
  reranker: 'haiku.reranker.apiKey',
  storageAccessKeyId: 'haiku.storage.accessKeyId',
  storageSecretAccessKey: 'haiku.storage.secretAccessKey',
} as const;

/**
 * Every `haiku.*` setting (without the prefix) and the configuration path it sets, from `SETTINGS_TABLE`: the one
 * mapping between VS Code settings and `HaikuConfig`, used to read settings, to layer `haiku.config.json` under
 * them, and to name the setting an error asks for. (package.json is generated from the same table.)
 */
export const SETTING_PATHS: Readonly<Record<string, ConfigPath>> = Object.fromEntries(
  SETTINGS_TABLE.flatMap((row) => (row.vscode ? [[row.vscode.key, row.path] as const] : [])),
);

/** A `haiku.*` setting without its prefix, e.g. `model.baseUrl`. */
export type SettingKey = string;

/** Every `haiku.*` setting the mapping reads. */
export const SETTING_KEYS = Object.keys(SETTING_PATHS) as SettingKey[];

/** The `haiku.*` setting (without the prefix) that sets a configuration path, if one does. */
export function settingKeyOf(path: ConfigPath): SettingKey | undefined {
  return SETTING_KEYS.find((key) => SETTING_PATHS[key] === path);
}

/**
 * The configuration paths whose value lives in SecretStorage and is set with the Set API Key command (the analysis
 * model and the picture describer use the model's key, on its server only).
 */
export const SECRET_PATHS: readonly ConfigPath[] = ['qa.model.apiKey', 'embeddings.apiKey', 'reranker.apiKey', 'analysis.model.apiKey', 'processing.pictureDescription.apiKey'];

/**
 * Settings layered over `haiku.config.json`: a setting the user set explicitly (in any scope) wins; otherwise
 * the file's value, turned into the setting's terms; otherwise the setting's default. Everything that reads
 * settings (the configuration, the model picker, automatic indexing) sees the same layering.
 */
export function layeredSettingReader(read: SettingReader, isExplicitlySet: (key: string) => boolean, fileValues: ConfigFileValues): SettingReader {
  return (key) => {
    const path = (SETTING_PATHS as Record<string, ConfigPath | undefined>)[key];
    // The file first: without one (most windows) no setting needs inspecting.
    if (path === undefined || !(path in fileValues) || isExplicitlySet(key)) {
      return read(key);
    }
    const value = fileValues[path];
    switch (key) {
      case 'index.maxFileSizeMB':
        return typeof value === 'number' ? value / BYTES_PER_MEGABYTE : undefined;
      case 'model.name':
        return typeof value === 'string' ? [value] : undefined;
      default:
        return value;
    }
  };
}

/**
 * The workspace's `haiku.config.json` (the first workspace folder that has one): its values with a relative
 * `index.database` resolved against its folder, or the problem that made it unusable (the settings then apply alone).
 */
export function readWorkspaceConfigFile(folders: readonly string[]): { file?: string; values: ConfigFileValues; problem?: string } {
  for (const folder of folders) {
    const file = path.join(folder, CONFIG_FILE_NAME);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    try {
      return { file, values: parseConfigFile(text, file, (relativePath) => path.resolve(folder, relativePath)) };
    } catch (error) {
      return { file, values: {}, problem: errorMessage(error) };
    }
  }
  return { values: {} };
}

/**
 * The workspace file's values, read again only when a candidate file appears, changes or goes (settings are read
 * often: every search reads the configuration). `onProblem` hears each new problem once.
 */
export function workspaceConfigFileValues(folders: () => readonly string[], onProblem: (problem: string) => void): () => ConfigFileValues {
  let stamp = '';
  let values: ConfigFileValues = {};
  return () => {
    const candidates = folders().map((folder) => path.join(folder, CONFIG_FILE_NAME));
    const current = candidates.map((file) => `${file}:${fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? '-'}`).join('|');
    if (current !== stamp) {
      stamp = current;
      const read = readWorkspaceConfigFile(folders());
      values = read.values;
      if (read.problem !== undefined) {
        onProblem(read.problem);
      }
    }
    return values;
  };
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function booleanOr(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

/**
 * The globs of VS Code's `files.exclude` and `search.exclude` that are switched on (`true`; entries with a `when`
 * clause depend on sibling files and are left out). A folder pattern also gets `/**`, since the indexer matches
 * the files below a folder, not the folder alone.
 */
export function excludeGlobsFromWorkspaceSettings(...settings: unknown[]): string[] {
  const globs = new Set<string>();
  for (const setting of settings) {
    if (typeof setting !== 'object' || setting === null) {
      continue;
    }
    for (const [pattern, enabled] of Object.entries(setting)) {
      if (enabled !== true || pattern.trim() === '') {
        continue;
      }
      globs.add(pattern);
      if (!pattern.endsWith('/**')) {
        globs.add(`${pattern.replace(/\/+$/, '')}/**`);
      }
    }
  }
  return [...globs];
}

/**
 * Maps `haiku.*` settings onto the core configuration: every setting of `SETTINGS_TABLE` whose value has the type
 * package.json declares sets its path (so a new setting needs no line here), then the settings whose value means
 * something else than the configuration's are turned into its terms below. An empty `index.databaseUri` means
 * "the workspace storage folder", which only the host knows: it is passed as `defaultDatabaseUri`.
 * `workspaceExcludes` are the globs of `files.exclude` and `search.exclude`, added to `index.exclude` while
 * `index.useExcludeSettings` is on.
 */
export function configFromSettings(read: SettingReader, options: { defaultDatabaseUri: string; apiKeys?: ApiKeys; workspaceExcludes?: readonly string[] }): HaikuConfig {
  const defaults = defaultConfig();
  const config = defaultConfig();
  const apiKeys = options.apiKeys ?? {};
  for (const row of SETTINGS_TABLE) {
    const value = row.vscode ? declaredTypeValue(row.vscode, read(row.vscode.key)) : undefined;
    if (value !== undefined) {
      setConfigValue(config, row.path, value);
    }
  }
  const { index, embeddings, qa } = config;
  const databaseUri = stringOr(read('index.databaseUri'), '').trim();
  index.databaseUri = databaseUri === '' ? options.defaultDatabaseUri : databaseUri;
  const maxFileSizeMegabytes = read('index.maxFileSizeMB');
  index.maxFileBytes = typeof maxFileSizeMegabytes === 'number' && Number.isFinite(maxFileSizeMegabytes) && maxFileSizeMegabytes > 0
    ? Math.round(maxFileSizeMegabytes * BYTES_PER_MEGABYTE)
    : defaults.index.maxFileBytes;
  index.exclude = [...index.exclude, ...(index.useExcludeSettings ? (options.workspaceExcludes ?? []).filter((glob) => !index.exclude.includes(glob)) : [])];
  index.sourceRoot = index.sourceRoot.trim();
  const storage = index.storage;
  index.storage = {
    endpoint: storage.endpoint.trim(),
    region: storage.region.trim(),
    pathStyle: storage.pathStyle,
    allowHttp: storage.allowHttp,
    accessKeyId: apiKeys.storageAccessKeyId,
    secretAccessKey: apiKeys.storageSecretAccessKey,
  };
  // A retired provider is kept so that creating the embedder explains what replaced it.
  if (read('embeddings.provider') === 'local') {
    embeddings.provider = 'local';
  }
  embeddings.apiKey = apiKeys.embeddings;
  embeddings.dimensions = typeof embeddings.dimensions === 'number' && embeddings.dimensions > 0 ? embeddings.dimensions : undefined;
  config.reranker.apiKey = apiKeys.reranker;
  qa.model.baseUrl = qa.model.baseUrl.trim() || defaults.qa.model.baseUrl;
  qa.model.name = configuredModelNames(read)[0] ?? '';
  qa.model.apiKey = apiKeys.model;
  if (read('qa.requestLimit') === null) {
    qa.requestLimit = null;
  }
  config.analysis.model = analysisModelFromSettings(read);
  config.processing.pictureDescription = pictureDescriptionSettings(read, defaults, apiKeys);
  return config;
}

/**
 * A setting's value when it has the type (and, with an `enum`, one of the values) package.json declares; undefined
 * otherwise, so the default stays. VS Code hands over whatever the user wrote in settings.json.
 */
function declaredTypeValue(setting: VscodeSetting, value: unknown): unknown {
  if (setting.enum) {
    return typeof value === 'string' && setting.enum.includes(value) ? value : undefined;
  }
  const types: readonly string[] = typeof setting.type === 'string' ? [setting.type] : setting.type;
  const fits =
    (typeof value === 'string' && types.includes('string')) ||
    (typeof value === 'boolean' && types.includes('boolean')) ||
    (typeof value === 'number' && Number.isFinite(value) && (types.includes('number') || types.includes('integer'))) ||
    (Array.isArray(value) && value.every((entry) => typeof entry === 'string') && types.includes('array'));
  if (types.includes('object')) {
    // A map of strings (name → URI); entries of another type are dropped, as VS Code only warns about them.
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
      : undefined;
  }
  return !fits ? undefined : Array.isArray(value) ? [...value] : value;
}

/**
 * `haiku.analysis.model.*`: empty when neither is set (analysis runs on the QA model). No key of its own: the stored
 * model key goes along only when the analysis model uses `haiku.model.baseUrl` (see `analysisModelOf`).
 */
function analysisModelFromSettings(read: SettingReader): HaikuConfig['analysis']['model'] {
  const baseUrl = stringOr(read('analysis.model.baseUrl'), '').trim();
  const name = stringOr(read('analysis.model.name'), '').trim();
  return baseUrl === '' && name === '' ? {} : { baseUrl: baseUrl || undefined, name: name || undefined };
}

/**
 * The picture-description endpoint. A key is only ever sent to the URL it was set for, so the model's API key goes
 * along only when the vision server is the chat model's server.
 */
function pictureDescriptionSettings(read: SettingReader, defaults: HaikuConfig, apiKeys: ApiKeys): HaikuConfig['processing']['pictureDescription'] {
  const baseUrl = stringOr(read('processing.pictureDescription.baseUrl'), defaults.processing.pictureDescription.baseUrl);
  const modelBaseUrl = stringOr(read('model.baseUrl'), defaults.qa.model.baseUrl);
  const sameServer = baseUrl.replace(/\/+$/, '') === modelBaseUrl.replace(/\/+$/, '');
  return { baseUrl, model: stringOr(read('processing.pictureDescription.model'), defaults.processing.pictureDescription.model), apiKey: sameServer ? apiKeys.model : undefined };
}

/** `haiku.model.name` lists models (an array; a comma-separated string from older settings also works): all are offered in the model picker. */
export function configuredModelNames(read: SettingReader): string[] {
  const value = read('model.name');
  const names = Array.isArray(value) ? value.filter((name): name is string => typeof name === 'string') : stringOr(value, '').split(',');
  return names.map((name) => name.trim()).filter((name) => name !== '');
}

/** True when an OpenAI-compatible endpoint replaces the chat's model for `@haiku`. */
export function hasConfiguredEndpoint(read: SettingReader): boolean {
  return stringOr(read('model.baseUrl'), '').trim() !== '' && configuredModelNames(read).length > 0;
}

/** `haiku.index.autoIndex`: index on start and follow file changes (default on). */
export function autoIndexEnabled(read: SettingReader): boolean {
  return booleanOr(read('index.autoIndex'), true);
}
