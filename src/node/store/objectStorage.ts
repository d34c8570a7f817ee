import { errorMessage, HaikuError } from '../../core/errors';
import { S3Object } from './s3Object';
import { OBJECT_STORAGE_CONNECT_TIMEOUT_SECONDS, OBJECT_STORAGE_REQUEST_TIMEOUT_SECONDS, OBJECT_STORAGE_RETRY_TIMEOUT_SECONDS } from '../../core/limits';

/**
 * Where and how to reach object storage (`s3://bucket/prefix`). Anything left out comes from the standard AWS
 * environment variables; `gs://` and `az://` get no options here (LanceDB reads their own variables).
 */
export interface ObjectStorageSettings {
  /** An S3-compatible server, e.g. `http://127.0.0.1:9000` (MinIO, s3rver); empty for AWS itself. */
  endpoint?: string;
  region?: string;
  /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key` (most S3-compatible servers). */
  pathStyle?: boolean;
  /** Allow plain `http://` endpoints (local servers). */
  allowHttp?: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  /**
   * Why the keys must not go to `endpoint` (a project file chose it; `storageKeysRefusal`): opening an `s3://`
   * index throws it before any request, since the storage library would read the AWS variables itself.
   */
  keysWithheld?: string;
}

/** The variables read when a setting is not given, in order of preference. */
const ENVIRONMENT: Record<Exclude<keyof ObjectStorageSettings, 'keysWithheld'>, readonly string[]> = {
  endpoint: ['AWS_ENDPOINT', 'AWS_ENDPOINT_URL'],
  region: ['AWS_REGION', 'AWS_DEFAULT_REGION'],
  pathStyle: [],
  allowHttp: ['AWS_ALLOW_HTTP'],
  accessKeyId: ['AWS_ACCESS_KEY_ID'],
  secretAccessKey: ['AWS_SECRET_ACCESS_KEY'],
  sessionToken: ['AWS_SESSION_TOKEN'],
};

/** LanceDB's storage option keys that carry secrets: never printed. */
const SECRET_OPTION_KEYS = new Set(['aws_secret_access_key', 'aws_session_token', 'aws_access_key_id']);

type Environment = Readonly<Record<string, string | undefined>>;

/** True for `s3://…` (and `s3a://`), the scheme these options are for. */
export function isS3Uri(uri: string): boolean {
  return /^s3a?:\/\//i.test(uri);
}

/**
 * LanceDB `storageOptions` for `uri`: settings first, then the AWS environment variables. A custom endpoint
 * defaults to path-style requests and a region of `us-east-1` (else the S3 client asks AWS for the bucket's
 * region), and an `http://` endpoint allows plain HTTP. Undefined for local folders and other schemes.
 */
export function storageOptionsFor(uri: string, settings: ObjectStorageSettings = {}, environment: Environment = process.env): Record<string, string> | undefined {
  if (!isS3Uri(uri)) {
    return undefined;
  }
  const pick = (key: keyof typeof ENVIRONMENT): string | undefined => {
    const value = settings[key];
    if (value !== undefined && value !== '') {
      return String(value);
    }
    return ENVIRONMENT[key].map((name) => environment[name]).find((found) => found !== undefined && found !== '');
  };
  const options: Record<string, string> = {};
  const endpoint = pick('endpoint');
  if (endpoint) {
    options.aws_endpoint = endpoint;
  }
  options.region = pick('region') ?? (endpoint ? 'us-east-1' : '');
  const allowHttp = pick('allowHttp') ?? (endpoint?.startsWith('http://') ? 'true' : undefined);
  if (allowHttp !== undefined) {
    options.allow_http = String(parseBoolean(allowHttp));
  }
  const virtualHosted = settings.pathStyle !== undefined ? String(!settings.pathStyle) : environment.AWS_VIRTUAL_HOSTED_STYLE_REQUEST;
  if (virtualHosted !== undefined && virtualHosted !== '') {
    options.virtual_hosted_style_request = String(parseBoolean(virtualHosted));
  } else if (endpoint) {
    options.virtual_hosted_style_request = 'false';
  }
  for (const [key, option] of [['accessKeyId', 'aws_access_key_id'], ['secretAccessKey', 'aws_secret_access_key'], ['sessionToken', 'aws_session_token']] as const) {
    const value = pick(key);
    if (value) {
      options[option] = value;
    }
  }
  if (options.region === '') {
    delete options.region;
  }
  // object_store's own defaults (30 s a request, retries for 3 min) kept a command on a bucket that never answers
  // running past 150 s.
  options.timeout = `${OBJECT_STORAGE_REQUEST_TIMEOUT_SECONDS}s`;
  options.connect_timeout = `${OBJECT_STORAGE_CONNECT_TIMEOUT_SECONDS}s`;
  options.client_retry_timeout = String(OBJECT_STORAGE_RETRY_TIMEOUT_SECONDS);
  return options;
}

/** The settings the AWS environment variables give (a CLI's environment may not be `process.env`: tests, embedders). */
export function storageSettingsFromEnvironment(environment: Environment): ObjectStorageSettings {
  const first = (key: keyof typeof ENVIRONMENT) => ENVIRONMENT[key].map((name) => environment[name]).find((found) => found !== undefined && found !== '');
  const allowHttp = first('allowHttp');
  const virtualHosted = environment.AWS_VIRTUAL_HOSTED_STYLE_REQUEST;
  return {
    endpoint: first('endpoint'),
    region: first('region'),
    allowHttp: allowHttp === undefined ? undefined : parseBoolean(allowHttp),
    pathStyle: virtualHosted === undefined || virtualHosted === '' ? undefined : !parseBoolean(virtualHosted),
    accessKeyId: first('accessKeyId'),
    secretAccessKey: first('secretAccessKey'),
    sessionToken: first('sessionToken'),
  };
}

function parseBoolean(value: string): boolean {
  return /^(1|true|yes|on)$/i.test(value.trim());
}

/** The options as text for logs and messages: endpoint, region and style, with every credential hidden. */
export function describeStorageOptions(options: Record<string, string> | undefined): string {
  if (!options) {
    return 'local folder';
  }
  return Object.entries(options)
    .map(([key, value]) => `${key}=${SECRET_OPTION_KEYS.has(key) ? '(set)' : value}`)
    .join(', ');
}

/** `text` with every credential in `options` replaced: object storage errors may echo what was sent. */
export function withoutSecrets(text: string, options: Record<string, string> | undefined): string {
  let result = text;
  for (const [key, value] of Object.entries(options ?? {})) {
    if (SECRET_OPTION_KEYS.has(key) && value.length >= 4) {
      result = result.split(value).join('(hidden)');
    }
  }
  return result;
}

/**
 * A typed error naming the fix for an object storage failure (unreachable, credentials refused, bucket missing,
 * throttled), or undefined when `error` is something else. Credentials never appear in the message.
 */
export function objectStorageError(error: unknown, uri: string, options: Record<string, string> | undefined): HaikuError | undefined {
  if (!isS3Uri(uri) || error instanceof HaikuError) {
    return undefined;
  }
  const detail = errorMessage(error);
  const where = options?.aws_endpoint ? `${uri} (endpoint ${options.aws_endpoint})` : uri;
  const bucket = /^s3a?:\/\/([^/]+)/i.exec(uri)?.[1] ?? '';
  if (/NoSuchBucket|bucket does not exist/i.test(detail)) {
    return new HaikuError('not_found', `The bucket "${bucket}" does not exist at ${where}. Create it, or correct the bucket in --db / haiku.index.databaseUri.`, { cause: error });
  }
  if (/InvalidAccessKeyId|SignatureDoesNotMatch|AccessDenied|ExpiredToken|InvalidToken|403 Forbidden|401 Unauthorized/i.test(detail)) {
    return new HaikuError(
      'storage_denied',
      `Object storage refused the credentials for ${where} (${firstMatch(detail, /InvalidAccessKeyId|SignatureDoesNotMatch|AccessDenied|ExpiredToken|InvalidToken|403 Forbidden|401 Unauthorized/i)}). Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (VS Code: "Haiku: Set Object Storage Keys") to keys allowed to read this bucket.`,
      { cause: error },
    );
  }
  if (/SlowDown|503 Service Unavailable|429 Too Many Requests|RequestLimitExceeded/i.test(detail)) {
    return new HaikuError('storage_throttled', `Object storage is throttling requests to ${where} (503 SlowDown). Wait a minute and try again; Haiku retries by itself in VS Code.`, { cause: error });
  }
  if (/error sending request|Connect|dns error|connection refused|timed out|Failed to resolve region/i.test(detail)) {
    return new HaikuError(
      'storage_unreachable',
      `Could not reach object storage for ${where}. Check the endpoint (AWS_ENDPOINT or --endpoint) and the network; for a local server also set AWS_ALLOW_HTTP=true.`,
      { cause: error },
    );
  }
  return undefined;
}

/** An object name no index holds: a GET of it answers 404 (or 403) from any server that answers at all. */
const REACHABILITY_PROBE_OBJECT = '.haiku-reachability-probe';

/**
 * Fails with `storage_unreachable` when the server of an `s3://` index does not answer one small request within
 * `OBJECT_STORAGE_REQUEST_TIMEOUT_SECONDS`, before LanceDB is given the URI: LanceDB retries each listing of a
 * table's versions several times (18 requests to open one table), so a server that accepts connections and never
 * answers kept `search` and `index` running for minutes. Any answer (404, 403) passes; LanceDB reports those.
 */
export async function requireObjectStorageAnswers(uri: string, options: Record<string, string> | undefined, abortSignal?: AbortSignal): Promise<void> {
  if (!isS3Uri(uri) || !options) {
    return;
  }
  try {
    await new S3Object(uri, REACHABILITY_PROBE_OBJECT, options).get(abortSignal);
  } catch (error) {
    if (abortSignal?.aborted) {
      throw error;
    }
    throw objectStorageError(error, uri, options) ?? new HaikuError('storage_unreachable', `Could not reach object storage for ${uri}: ${withoutSecrets(errorMessage(error), options)}.`, { cause: error });
  }
}

function firstMatch(text: string, pattern: RegExp): string {
  return pattern.exec(text)?.[0] ?? 'refused';
}
