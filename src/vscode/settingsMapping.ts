import { defaultConfig, type HaikuConfig } from '../core/config';

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

export const SECRET_KEYS = {
  model: 'haiku.model.apiKey',
  embeddings: 'haiku.embeddings.apiKey',
  reranker: 'haiku.reranker.apiKey',
  storageAccessKeyId: 'haiku.storage.accessKeyId',
  storageSecretAccessKey: 'haiku.storage.secretAccessKey',
} as const;

/** Every `haiku.*` setting the mapping reads (the contributions test checks package.json declares exactly these). */
export const SETTING_KEYS = [
  'index.autoIndex', 'index.databaseUri', 'index.include', 'index.exclude', 'index.useExcludeSettings', 'index.maxFileSizeMB', 'index.respectGitignore', 'index.followLinksOutside',
  'index.mode', 'index.sourceRoot', 'index.storage.endpoint', 'index.storage.region', 'index.storage.pathStyle', 'index.storage.allowHttp',
  'search.limit', 'search.maxContextChars', 'search.rerankPoolFactor', 'search.fullTextWeight', 'search.vectorWeight',
  'embeddings.provider', 'embeddings.baseUrl', 'embeddings.model', 'embeddings.dimensions', 'embeddings.batchSize',
  'reranker.provider', 'reranker.baseUrl', 'reranker.model',
  'model.baseUrl', 'model.name', 'model.temperature', 'model.vision', 'model.thinking',
  'qa.maxSearches', 'qa.maxExecutions', 'qa.requestLimit', 'qa.domainPreamble',
  'sandbox.codeTimeoutSeconds', 'sandbox.maxOutputChars', 'sandbox.memoryLimitBytes',
  'processing.pictures',
] as const;

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function booleanOr(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

function stringsOr(value: unknown, fallback: string[]): string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string') ? [...value] : fallback;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

const BYTES_PER_MEGABYTE = 1024 * 1024;

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
 * Maps `haiku.*` settings onto the core configuration. An empty `index.databaseUri` means "the workspace
 * storage folder", which only the host knows: it is passed as `defaultDatabaseUri`. `workspaceExcludes` are the
 * globs of `files.exclude` and `search.exclude`, added to `index.exclude` while `index.useExcludeSettings` is on.
 */
export function configFromSettings(read: SettingReader, options: { defaultDatabaseUri: string; apiKeys?: ApiKeys; workspaceExcludes?: readonly string[] }): HaikuConfig {
  const defaults = defaultConfig();
  const apiKeys = options.apiKeys ?? {};
  const databaseUri = stringOr(read('index.databaseUri'), '').trim();
  const dimensions = read('embeddings.dimensions');
  const requestLimit = read('qa.requestLimit');
  const maxFileSizeMegabytes = read('index.maxFileSizeMB');
  const exclude = stringsOr(read('index.exclude'), defaults.index.exclude);
  const workspaceExcludes = booleanOr(read('index.useExcludeSettings'), true) ? (options.workspaceExcludes ?? []).filter((glob) => !exclude.includes(glob)) : [];
  return {
    index: {
      databaseUri: databaseUri === '' ? options.defaultDatabaseUri : databaseUri,
      include: stringsOr(read('index.include'), defaults.index.include),
      exclude: [...exclude, ...workspaceExcludes],
      maxFileBytes: typeof maxFileSizeMegabytes === 'number' && Number.isFinite(maxFileSizeMegabytes) && maxFileSizeMegabytes > 0
        ? Math.round(maxFileSizeMegabytes * BYTES_PER_MEGABYTE)
        : defaults.index.maxFileBytes,
      respectGitignore: booleanOr(read('index.respectGitignore'), defaults.index.respectGitignore),
      followLinksOutside: booleanOr(read('index.followLinksOutside'), defaults.index.followLinksOutside),
      mode: oneOf(read('index.mode'), ['local', 'remote-readonly'] as const, defaults.index.mode),
      sourceRoot: stringOr(read('index.sourceRoot'), defaults.index.sourceRoot).trim(),
      storage: {
        endpoint: stringOr(read('index.storage.endpoint'), '').trim(),
        region: stringOr(read('index.storage.region'), '').trim(),
        pathStyle: typeof read('index.storage.pathStyle') === 'boolean' ? (read('index.storage.pathStyle') as boolean) : undefined,
        allowHttp: typeof read('index.storage.allowHttp') === 'boolean' ? (read('index.storage.allowHttp') as boolean) : undefined,
        accessKeyId: apiKeys.storageAccessKeyId,
        secretAccessKey: apiKeys.storageSecretAccessKey,
      },
    },
    search: {
      limit: numberOr(read('search.limit'), defaults.search.limit),
      maxContextChars: numberOr(read('search.maxContextChars'), defaults.search.maxContextChars),
      rerankPoolFactor: numberOr(read('search.rerankPoolFactor'), defaults.search.rerankPoolFactor),
      fullTextWeight: numberOr(read('search.fullTextWeight'), defaults.search.fullTextWeight),
      vectorWeight: numberOr(read('search.vectorWeight'), defaults.search.vectorWeight),
    },
    embeddings: {
      provider: oneOf(read('embeddings.provider'), ['none', 'openai', 'local'] as const, defaults.embeddings.provider),
      baseUrl: stringOr(read('embeddings.baseUrl'), defaults.embeddings.baseUrl),
      model: stringOr(read('embeddings.model'), defaults.embeddings.model),
      apiKey: apiKeys.embeddings,
      dimensions: typeof dimensions === 'number' && dimensions > 0 ? dimensions : undefined,
      batchSize: numberOr(read('embeddings.batchSize'), defaults.embeddings.batchSize),
    },
    reranker: {
      provider: oneOf(read('reranker.provider'), ['none', 'http'] as const, defaults.reranker.provider),
      baseUrl: stringOr(read('reranker.baseUrl'), defaults.reranker.baseUrl),
      model: stringOr(read('reranker.model'), defaults.reranker.model),
      apiKey: apiKeys.reranker,
    },
    qa: {
      model: {
        baseUrl: stringOr(read('model.baseUrl'), '').trim() || defaults.qa.model.baseUrl,
        name: configuredModelNames(read)[0] ?? '',
        apiKey: apiKeys.model,
        temperature: numberOr(read('model.temperature'), defaults.qa.model.temperature),
        vision: booleanOr(read('model.vision'), defaults.qa.model.vision),
        thinking: booleanOr(read('model.thinking'), defaults.qa.model.thinking),
      },
      maxSearches: numberOr(read('qa.maxSearches'), defaults.qa.maxSearches),
      maxExecutions: numberOr(read('qa.maxExecutions'), defaults.qa.maxExecutions),
      requestLimit: requestLimit === null ? null : numberOr(requestLimit, defaults.qa.requestLimit ?? 0),
      domainPreamble: stringOr(read('qa.domainPreamble'), defaults.qa.domainPreamble),
    },
    sandbox: {
      codeTimeoutSeconds: numberOr(read('sandbox.codeTimeoutSeconds'), defaults.sandbox.codeTimeoutSeconds),
      maxOutputChars: numberOr(read('sandbox.maxOutputChars'), defaults.sandbox.maxOutputChars),
      memoryLimitBytes: numberOr(read('sandbox.memoryLimitBytes'), defaults.sandbox.memoryLimitBytes),
    },
    processing: {
      pictures: read('processing.pictures') === 'none' ? 'none' : defaults.processing.pictures,
    },
  };
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
