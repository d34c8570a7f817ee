import * as crypto from 'node:crypto';
import { HaikuError } from '../../core/errors';
import { OBJECT_STORAGE_REQUEST_TIMEOUT_SECONDS } from '../../core/limits';

/** One object's answer: status, body text and the headers the lease needs. */
export interface S3Response {
  status: number;
  body: string;
  etag: string | undefined;
  /** The server's clock (`Date`) and the object's (`Last-Modified`), in ms; undefined when absent. */
  serverTimeMs: number | undefined;
  lastModifiedMs: number | undefined;
}

/**
 * Signed (AWS Signature V4) requests on single objects in an `s3://bucket/prefix`, with the same storage options
 * LanceDB gets. LanceDB has no API for a small object of our own (the writer lease), and no S3 SDK is a
 * dependency; this is the few lines of signing such an object needs.
 */
export class S3Object {
  private readonly bucket: string;
  private readonly key: string;
  private readonly options: Readonly<Record<string, string>>;

  /** `uri` is `s3://bucket/prefix`; the object is `prefix/name`. */
  constructor(uri: string, name: string, options: Readonly<Record<string, string>>) {
    const match = /^s3a?:\/\/([^/]+)\/?(.*)$/i.exec(uri);
    if (!match) {
      throw new HaikuError('invalid_settings', `${uri} is not an s3://bucket/prefix URI.`);
    }
    this.bucket = match[1];
    const prefix = match[2].replace(/\/+$/, '');
    this.key = prefix ? `${prefix}/${name}` : name;
    this.options = options;
  }

  get(abortSignal?: AbortSignal): Promise<S3Response> {
    return this.request('GET', undefined, {}, abortSignal);
  }

  put(body: string, conditions: { ifNoneMatch?: string; ifMatch?: string } = {}, abortSignal?: AbortSignal): Promise<S3Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (conditions.ifNoneMatch) {
      headers['if-none-match'] = conditions.ifNoneMatch;
    }
    if (conditions.ifMatch) {
      headers['if-match'] = conditions.ifMatch;
    }
    return this.request('PUT', body, headers, abortSignal);
  }

  delete(abortSignal?: AbortSignal): Promise<S3Response> {
    return this.request('DELETE', undefined, {}, abortSignal);
  }

  private url(): URL {
    const encodedKey = this.key.split('/').map(encodeRfc3986).join('/');
    const endpoint = this.options.aws_endpoint;
    const virtualHosted = this.options.virtual_hosted_style_request === 'true' || (!endpoint && this.options.virtual_hosted_style_request !== 'false');
    const region = this.options.region ?? 'us-east-1';
    const base = new URL(endpoint ?? `https://s3.${region}.amazonaws.com`);
    if (virtualHosted) {
      base.hostname = `${this.bucket}.${base.hostname}`;
      base.pathname = `/${encodedKey}`;
    } else {
      base.pathname = `${base.pathname.replace(/\/+$/, '')}/${encodeRfc3986(this.bucket)}/${encodedKey}`;
    }
    return base;
  }

  private async request(method: string, body: string | undefined, extraHeaders: Record<string, string>, abortSignal?: AbortSignal): Promise<S3Response> {
    const url = this.url();
    const payloadHash = sha256Hex(body ?? '');
    const now = new Date();
    const amzDate = now.toISOString().replace(/[:-]|\.\d{3}/g, '');
    const headers: Record<string, string> = { ...extraHeaders, host: url.host, 'x-amz-date': amzDate, 'x-amz-content-sha256': payloadHash };
    if (this.options.aws_session_token) {
      headers['x-amz-security-token'] = this.options.aws_session_token;
    }
    const keyId = this.options.aws_access_key_id;
    const secret = this.options.aws_secret_access_key;
    if (keyId && secret) {
      headers.authorization = signatureV4({ method, url, headers, payloadHash, amzDate, region: this.options.region ?? 'us-east-1', keyId, secret });
    }
    const { host: _host, ...sent } = headers;
    // A server that accepts the connection and never answers would hold the request (and the command) forever.
    const timeout = AbortSignal.timeout(OBJECT_STORAGE_REQUEST_TIMEOUT_SECONDS * 1000);
    const signal = abortSignal ? AbortSignal.any([abortSignal, timeout]) : timeout;
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, { method, headers: sent, body, signal });
      text = await response.text();
    } catch (error) {
      if (abortSignal?.aborted || !(timeout.aborted || error instanceof TypeError)) {
        throw error;
      }
      // Worded like object_store's errors, which `objectStorageError` recognises as an unreachable server.
      const reason = timeout.aborted ? `timed out after ${OBJECT_STORAGE_REQUEST_TIMEOUT_SECONDS} s without an answer` : causeText(error);
      const failure = new Error(`error sending request for ${url.origin}: ${reason}`, { cause: error });
      failure.name = timeout.aborted ? 'TimeoutError' : 'NetworkError';
      throw failure;
    }
    const parseTime = (value: string | null) => (value ? Date.parse(value) : undefined);
    return {
      status: response.status,
      body: text,
      etag: response.headers.get('etag') ?? undefined,
      serverTimeMs: parseTime(response.headers.get('date')),
      lastModifiedMs: parseTime(response.headers.get('last-modified')),
    };
  }
}

/** fetch's "fetch failed" says nothing: its cause names the refusal or the name lookup that failed. */
function causeText(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
}

/** The `Authorization` header of AWS Signature V4 for S3 (every given header is signed). */
export function signatureV4(request: { method: string; url: URL; headers: Record<string, string>; payloadHash: string; amzDate: string; region: string; keyId: string; secret: string }): string {
  const names = Object.keys(request.headers).map((name) => name.toLowerCase()).sort();
  const canonicalHeaders = names.map((name) => `${name}:${request.headers[name].trim()}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalQuery = [...request.url.searchParams.entries()]
    .map(([key, value]) => `${encodeRfc3986(key)}=${encodeRfc3986(value)}`)
    .sort()
    .join('&');
  const canonicalRequest = [request.method, request.url.pathname, canonicalQuery, canonicalHeaders, signedHeaders, request.payloadHash].join('\n');
  const day = request.amzDate.slice(0, 8);
  const scope = `${day}/${request.region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', request.amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  let key: Buffer = hmac(`AWS4${request.secret}`, day);
  for (const part of [request.region, 's3', 'aws4_request']) {
    key = hmac(key, part);
  }
  const signature = crypto.createHmac('sha256', key).update(stringToSign).digest('hex');
  return `AWS4-HMAC-SHA256 Credential=${request.keyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}

function hmac(key: string | Buffer, data: string): Buffer {
  return crypto.createHmac('sha256', key).update(data).digest();
}

function sha256Hex(data: string): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

/** S3's URI encoding: everything but unreserved characters, as %XX. */
export function encodeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}
