import { defaultConfig, type HaikuConfig } from '../core/config';

/** Reads one `haiku.*` setting by its key without the `haiku.` prefix; undefined when unset. */
export type SettingReader = (key: string) => unknown;

/** API keys live in SecretStorage, never in settings. */
export interface ApiKeys {
  model?: string;
  embeddings?: string;
  reranker?: string;
}

export const SECRET_KEYS = { model: 'haiku.model.apiKey', embeddings: 'haiku.embeddings.apiKey', reranker: 'haiku.reranker.apiKey' } as const;

/** Every `haiku.*` setting the mapping reads (the contributions test checks package.json declares exactly these). */
export const SETTING_KEYS = [
  'index.databaseUri', 'index.include', 'index.exclude', 'index.maxFileBytes', 'index.respectGitignore',
  'search.limit', 'search.maxContextChars', 'search.rerankPoolFactor', 'search.fullTextWeight', 'search.vectorWeight',
  'embeddings.provider', 'embeddings.baseUrl', 'embeddings.model', 'embeddings.dimensions', 'embeddings.batchSize',
  'reranker.provider', 'reranker.baseUrl', 'reranker.model',
  'model.baseUrl', 'model.name', 'model.temperature', 'model.vision', 'model.thinking',
  'qa.maxSearches', 'qa.maxExecutions', 'qa.requestLimit', 'qa.domainPreamble',
  'sandbox.codeTimeoutSeconds', 'sandbox.maxOutputChars', 'sandbox.memoryLimitBytes',
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

/**
 * Maps `haiku.*` settings onto the core configuration. An empty `index.databaseUri` means "the workspace
 * storage folder", which only the host knows: it is passed as `defaultDatabaseUri`.
 */
export function configFromSettings(read: SettingReader, options: { defaultDatabaseUri: string; apiKeys?: ApiKeys }): HaikuConfig {
  const defaults = defaultConfig();
  const apiKeys = options.apiKeys ?? {};
  const databaseUri = stringOr(read('index.databaseUri'), '').trim();
  const dimensions = read('embeddings.dimensions');
  const requestLimit = read('qa.requestLimit');
  return {
    index: {
      databaseUri: databaseUri === '' ? options.defaultDatabaseUri : databaseUri,
      include: stringsOr(read('index.include'), defaults.index.include),
      exclude: stringsOr(read('index.exclude'), defaults.index.exclude),
      maxFileBytes: numberOr(read('index.maxFileBytes'), defaults.index.maxFileBytes),
      respectGitignore: booleanOr(read('index.respectGitignore'), defaults.index.respectGitignore),
      followLinksOutside: booleanOr(read('index.followLinksOutside'), defaults.index.followLinksOutside),
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
  };
}

/** `haiku.model.name` may list several models separated by commas; all are offered in the model picker. */
export function configuredModelNames(read: SettingReader): string[] {
  return stringOr(read('model.name'), '').split(',').map((name) => name.trim()).filter((name) => name !== '');
}

/** True when an OpenAI-compatible endpoint replaces the chat's model for `@haiku`. */
export function hasConfiguredEndpoint(read: SettingReader): boolean {
  return stringOr(read('model.baseUrl'), '').trim() !== '' && configuredModelNames(read).length > 0;
}
