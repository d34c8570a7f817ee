import type { ConfigSettings } from './configShape.generated';
import { SETTINGS_TABLE } from './settingsTable';

/**
 * What Haiku records beside the settings: why a key was withheld from its base URL (`src/node/config/endpointTrust.ts`;
 * creators throw it before any request), the object-storage keys from secret storage and the analysis model's
 * temperature.
 */
interface RecordedFields {
  index: { storage: { accessKeyId?: string; secretAccessKey?: string } };
  embeddings: { apiKeyWithheld?: string };
  reranker: { apiKeyWithheld?: string };
  qa: { model: { apiKeyWithheld?: string } };
  analysis: { model: { apiKeyWithheld?: string; temperature?: number } };
  processing: { pictureDescription: { apiKeyWithheld?: string } };
}

/**
 * The whole configuration, shaped like the specification's YAML (search, qa, sandbox, …): every setting of the
 * settings table (`ConfigSettings`, generated from it) plus what Haiku records itself. VS Code settings
 * (`haiku.*`), `haiku.config.json`, the environment and CLI flags map onto it; `defaultConfig()` gives the defaults.
 */
export type HaikuConfig = WithRetiredProvider<ConfigSettings> & RecordedFields;

/**
 * An old VS Code setting may still say `embeddings.provider: local` (no file accepts it): the value is kept so that
 * creating the embedder explains what replaced it.
 */
type WithRetiredProvider<Settings extends ConfigSettings> = Omit<Settings, 'embeddings'> & {
  embeddings: Omit<Settings['embeddings'], 'provider'> & { provider: Settings['embeddings']['provider'] | 'local' };
};

/** The embedded defaults: each setting's `default` in the settings table (copied), groups present, the rest unset. */
export function defaultConfig(): HaikuConfig {
  const config: Record<string, unknown> = {};
  for (const row of SETTINGS_TABLE) {
    const parts = row.path.split('.');
    let group = config;
    for (const part of parts.slice(0, -1)) {
      group = (group[part] ??= {}) as Record<string, unknown>;
    }
    const leaf = parts[parts.length - 1];
    if (row.default !== undefined && !(leaf in group)) {
      group[leaf] = structuredClone(row.default);
    }
  }
  return config as unknown as HaikuConfig;
}

/** Every leaf of `HaikuConfig` as a dotted path (`qa.model.baseUrl`): how errors, the config file and the front ends name a setting. */
export type ConfigPath = LeafPaths<HaikuConfig>;

type LeafPaths<T, Prefix extends string = ''> = {
  [Key in keyof T & string]-?: NonNullable<T[Key]> extends readonly unknown[]
    ? `${Prefix}${Key}`
    // A map keyed by the user (name → value) is one setting, not a group.
    : string extends keyof NonNullable<T[Key]>
      ? `${Prefix}${Key}`
      : NonNullable<T[Key]> extends object
        ? LeafPaths<NonNullable<T[Key]>, `${Prefix}${Key}.`>
        : `${Prefix}${Key}`;
}[keyof T & string];

/** The value at a dotted path (undefined when a group on the way is missing). */
export function configValue(config: HaikuConfig, path: ConfigPath): unknown {
  let value: unknown = config;
  for (const part of path.split('.')) {
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  }
  return value;
}

/** Sets the value at a dotted path in place; the groups exist in every `HaikuConfig`. */
export function setConfigValue(config: HaikuConfig, path: ConfigPath, value: unknown): void {
  const parts = path.split('.');
  let group = config as unknown as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) {
    group = group[part] as Record<string, unknown>;
  }
  group[parts[parts.length - 1]] = value;
}

/** Every setting's configuration path, in the settings table's order. */
export function allConfigPaths(): ConfigPath[] {
  return [...new Set(SETTINGS_TABLE.map((row) => row.path))];
}

/**
 * The model the analysis capability runs on: `analysis.model` over `qa.model`. The QA API key goes along only to
 * the QA server, never to another base URL.
 */
export function analysisModelOf(config: HaikuConfig): HaikuConfig['qa']['model'] {
  const own = config.analysis.model;
  const qa = config.qa.model;
  const name = own?.name?.trim() ?? '';
  const baseUrl = own?.baseUrl?.trim() ?? '';
  if (!own || (name === '' && baseUrl === '')) {
    return qa;
  }
  const otherServer = baseUrl !== '' && baseUrl !== qa.baseUrl;
  return {
    ...qa,
    baseUrl: baseUrl || qa.baseUrl,
    name: name || qa.name,
    apiKey: otherServer ? own.apiKey : own.apiKey ?? qa.apiKey,
    // The refusal follows the key it is about: the analysis model's own, or the QA key it borrows.
    apiKeyWithheld: otherServer || own.apiKey !== undefined ? own.apiKeyWithheld : own.apiKeyWithheld ?? qa.apiKeyWithheld,
    temperature: own.temperature ?? qa.temperature,
  };
}
