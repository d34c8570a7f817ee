/**
 * Where the user's API keys may go. A key from the environment or a flag (the user's own layers) is sent only to a
 * base URL from the same or a higher layer (environment, flag, the built-in default), to one the project file
 * names next to a key of its own, or to an origin the user trusted for that project file with `haiku trust`.
 * Otherwise a cloned repository's `haiku.config.json` could point `qa.model.base_url` at its own server and
 * receive `HAIKU_API_KEY`. The rule is applied once, where the layers are resolved: the key is dropped and the
 * refusal kept beside it (`apiKeyWithheld`), and whatever would use that endpoint throws it before any request.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { configValue, type ConfigPath, type HaikuConfig } from '../../core/config';
import { configFileKeyOf } from '../../core/configFile';
import { HaikuError } from '../../core/errors';

/** Where a configured value came from, lowest first. `file`: the project's haiku.config.json (or `--config`). */
export type ConfigLayer = 'default' | 'file' | 'environment' | 'flag';

/** An endpoint that can carry a key: the key's path, its base URL's path, and how the CLI lets the user name each. */
interface KeyedEndpoint {
  name: string;
  key: ConfigPath;
  baseUrl: ConfigPath;
  /** Used instead of `baseUrl` when that is empty (the analysis model runs on the QA server by default). */
  fallbackBaseUrl?: ConfigPath;
  /** The group holding `apiKey` and `apiKeyWithheld`. */
  group: (config: HaikuConfig) => { apiKey?: string; apiKeyWithheld?: string } | null | undefined;
}

export const KEYED_ENDPOINTS: readonly KeyedEndpoint[] = [
  { name: 'chat model', key: 'qa.model.apiKey', baseUrl: 'qa.model.baseUrl', group: (config) => config.qa.model },
  { name: 'analysis model', key: 'analysis.model.apiKey', baseUrl: 'analysis.model.baseUrl', fallbackBaseUrl: 'qa.model.baseUrl', group: (config) => config.analysis.model },
  { name: 'embeddings', key: 'embeddings.apiKey', baseUrl: 'embeddings.baseUrl', group: (config) => config.embeddings },
  { name: 'reranker', key: 'reranker.apiKey', baseUrl: 'reranker.baseUrl', group: (config) => config.reranker },
  { name: 'picture description', key: 'processing.pictureDescription.apiKey', baseUrl: 'processing.pictureDescription.baseUrl', group: (config) => config.processing.pictureDescription },
];

/** `scheme://host:port` of a base URL, lower-case; undefined when it is not a URL. */
export function originOf(baseUrl: string): string | undefined {
  try {
    const url = new URL(baseUrl.trim());
    return url.origin === 'null' ? undefined : url.origin.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The user-level file of trusted origins: `$XDG_CONFIG_HOME/haiku/trusted-endpoints.json` (default `~/.config`). */
export function trustFilePath(env: NodeJS.ProcessEnv): string {
  const configHome = env.XDG_CONFIG_HOME?.trim() || path.join(env.HOME?.trim() || os.homedir(), '.config');
  return path.join(configHome, 'haiku', 'trusted-endpoints.json');
}

/** The trust file's contents: by the real path of a project config file, the origins its URLs may send keys to. */
export interface TrustedEndpoints {
  trusted: Record<string, string[]>;
}

/** Reads the trust file; a missing or unreadable one trusts nothing (never an error: it only widens what is sent). */
export function readTrustedEndpoints(env: NodeJS.ProcessEnv): TrustedEndpoints {
  try {
    const value = JSON.parse(fs.readFileSync(trustFilePath(env), 'utf8')) as unknown;
    const trusted = (value as Partial<TrustedEndpoints> | null)?.trusted;
    if (typeof trusted === 'object' && trusted !== null) {
      const entries = Object.entries(trusted).filter((entry): entry is [string, string[]] => Array.isArray(entry[1]) && entry[1].every((origin) => typeof origin === 'string'));
      return { trusted: Object.fromEntries(entries) };
    }
  } catch {
    // No file yet, or not JSON: nothing is trusted.
  }
  return { trusted: {} };
}

/** The config file's identity in the trust file: its real path, so a symlink or `--config ./x` means the same file. */
export function trustKeyOf(configFile: string): string {
  try {
    return fs.realpathSync(configFile);
  } catch {
    return path.resolve(configFile);
  }
}

/** Records `baseUrl`'s origin as trusted for `configFile` (or, with `remove`, no longer); returns the origin and the trust file written. */
export function trustEndpoint(env: NodeJS.ProcessEnv, configFile: string, baseUrl: string, options: { remove?: boolean } = {}): { origin: string; trustFile: string } {
  const origin = originOf(baseUrl);
  if (origin === undefined) {
    throw new HaikuError('invalid_settings', `'${baseUrl}' is not a URL: give the base URL the error named, e.g. http://127.0.0.1:8080/v1.`);
  }
  const trustFile = trustFilePath(env);
  const current = readTrustedEndpoints(env);
  const key = trustKeyOf(configFile);
  const origins = new Set(current.trusted[key] ?? []);
  if (options.remove) {
    origins.delete(origin);
  } else {
    origins.add(origin);
  }
  if (origins.size === 0) {
    delete current.trusted[key];
  } else {
    current.trusted[key] = [...origins].sort();
  }
  fs.mkdirSync(path.dirname(trustFile), { recursive: true, mode: 0o700 });
  // Written whole to a sibling and renamed: a second CLI writing at the same moment never leaves half a file.
  const temporary = `${trustFile}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(current, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temporary, trustFile);
  return { origin, trustFile };
}

/** How the CLI lets the user name a configuration path themselves, for the refusal's advice. */
export interface UserSpellings {
  flagOf: (path: ConfigPath) => string | undefined;
  environmentOf: (path: ConfigPath) => string | undefined;
}

export interface WithholdOptions {
  configFile: string | undefined;
  env: NodeJS.ProcessEnv;
  defaults: HaikuConfig;
  spellings: UserSpellings;
}

/**
 * Drops every key that may not go to its base URL, in place, and records the refusal beside it. `layers` says
 * where each set path came from (unset paths are defaults); `configFile` is the project file that was read.
 */
export function withholdUntrustedKeys(config: HaikuConfig, layers: ReadonlyMap<ConfigPath, ConfigLayer>, options: WithholdOptions): void {
  const { configFile } = options;
  if (configFile === undefined) {
    return;
  }
  let trustedOrigins: readonly string[] | undefined;
  for (const endpoint of KEYED_ENDPOINTS) {
    const group = endpoint.group(config);
    const keyLayer = layers.get(endpoint.key);
    if (!group?.apiKey || keyLayer === undefined || keyLayer === 'file' || keyLayer === 'default') {
      // No key, or the project file's own key next to its own URL (its author chose both).
      continue;
    }
    const ownUrl = String(configValue(config, endpoint.baseUrl) ?? '').trim();
    const urlPath = ownUrl === '' && endpoint.fallbackBaseUrl ? endpoint.fallbackBaseUrl : endpoint.baseUrl;
    const baseUrl = String(configValue(config, urlPath) ?? '').trim();
    if (layers.get(urlPath) !== 'file' || sameUrl(baseUrl, String(configValue(options.defaults, urlPath) ?? ''))) {
      continue;
    }
    trustedOrigins ??= readTrustedEndpoints(options.env).trusted[trustKeyOf(configFile)] ?? [];
    const origin = originOf(baseUrl);
    if (origin !== undefined && trustedOrigins.includes(origin)) {
      continue;
    }
    const keyName = keyLayer === 'flag' ? `the key given with --${options.spellings.flagOf(endpoint.key)}` : options.spellings.environmentOf(endpoint.key);
    group.apiKey = undefined;
    group.apiKeyWithheld = untrustedEndpointMessage({ endpoint: endpoint.name, keyName: keyName ?? 'your API key', baseUrl, configFile, fileKey: configFileKeyOf(urlPath), urlFlag: options.spellings.flagOf(urlPath), urlVariable: options.spellings.environmentOf(urlPath) });
  }
}

function sameUrl(left: string, right: string): boolean {
  return left !== '' && left.replace(/\/+$/, '') === right.trim().replace(/\/+$/, '');
}

interface RefusalFacts {
  endpoint: string;
  keyName: string;
  baseUrl: string;
  configFile: string;
  fileKey: string | undefined;
  urlFlag: string | undefined;
  urlVariable: string | undefined;
}

function untrustedEndpointMessage(facts: RefusalFacts): string {
  const yourself = [facts.urlFlag && `--${facts.urlFlag}`, facts.urlVariable].filter(Boolean).join(' or ');
  return (
    `Haiku did not send ${facts.keyName} to ${facts.baseUrl}: that ${facts.endpoint} base URL comes from ${facts.configFile}` +
    `${facts.fileKey ? ` ("${facts.fileKey}")` : ''}, a project file, and your keys go only to servers you named yourself. ` +
    `If you trust that server, run \`haiku trust ${facts.baseUrl}\` in this project (it trusts the URL's origin for this file only)` +
    `${yourself ? `, or give the URL yourself with ${yourself}` : ''}. Nothing was sent.`
  );
}

/**
 * Why the AWS keys of the environment must not go to an object-storage endpoint, or undefined when they may. Same
 * rule as the model keys: an endpoint only the project file names (not a flag, not `AWS_ENDPOINT`) gets the user's
 * keys only once the user trusted its origin for that file (`haiku trust <endpoint>`).
 */
export function storageKeysRefusal(facts: { endpoint: string; endpointFromFile: boolean; keyNames: readonly string[]; configFile: string | undefined; env: NodeJS.ProcessEnv }): string | undefined {
  const { endpoint, configFile } = facts;
  if (!facts.endpointFromFile || configFile === undefined || facts.keyNames.length === 0 || endpoint.trim() === '') {
    return undefined;
  }
  const origin = originOf(endpoint);
  if (origin !== undefined && (readTrustedEndpoints(facts.env).trusted[trustKeyOf(configFile)] ?? []).includes(origin)) {
    return undefined;
  }
  return (
    `Haiku did not open the index with ${facts.keyNames.join(' and ')}: the object storage endpoint ${endpoint} comes from ${configFile} ("index.storage.endpoint"), ` +
    `a project file, and your keys go only to servers you named yourself. If you trust that server, run \`haiku trust ${endpoint}\` in this project ` +
    `(it trusts the endpoint's origin for this file only), or give it yourself with --endpoint or AWS_ENDPOINT. Nothing was sent.`
  );
}
