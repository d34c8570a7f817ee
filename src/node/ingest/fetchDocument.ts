/**
 * Downloads one document over http or https for `haiku add <url>` and MCP `add_document_from_url`: every hop's
 * address checked by the SSRF guard after DNS, redirects followed by hand (each re-checked, at most a few), the body
 * read up to a size limit, a connect and a total time limit, and a conditional request when the caller knows the
 * stored ETag / Last-Modified (304 means unchanged and nothing is downloaded).
 */
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import { CancelledError, ConversionError, HaikuError, isHaikuError } from '../../core/errors';
import { URL_CONNECT_TIMEOUT_MS, URL_DOWNLOAD_MAX_BYTES, URL_FETCH_TIMEOUT_MS, URL_MAX_REDIRECTS } from '../../core/limits';
import { checkAddress, guardedLookup, type GuardWording } from './addressGuard';

export interface FetchDocumentOptions {
  /** Loopback addresses may be fetched (`--allow-loopback`); private, link-local and metadata ones never. */
  allowLoopback?: boolean;
  /** The flag named when loopback is refused. */
  wording?: GuardWording;
  /** Bytes read at most; a longer body is stopped and refused (default `URL_DOWNLOAD_MAX_BYTES`). */
  maxBytes?: number;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  maxRedirects?: number;
  /** The stored ETag: sent as If-None-Match. */
  etag?: string;
  /** The stored Last-Modified: sent as If-Modified-Since. */
  lastModified?: string;
  abortSignal?: AbortSignal;
}

export type FetchedDocument =
  | { notModified: true; url: string }
  | { notModified: false; url: string; bytes: Buffer; contentType?: string; etag?: string; lastModified?: string };

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** The URL checked as one Haiku fetches: http or https only, no other scheme (file:, ftp:, data:, …). */
export function parseFetchableUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new HaikuError('invalid_settings', `'${text}' is not a URL. Give an http:// or https:// address.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HaikuError('unsupported_format', `${url.href}: only http and https URLs are fetched, not ${url.protocol.replace(/:$/, '')}. Download the document and add the file instead.`);
  }
  return url;
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes} bytes`;
}

/** Fetches `address`, following redirects; see the module comment. */
export async function fetchDocument(address: string, options: FetchDocumentOptions = {}): Promise<FetchedDocument> {
  const started = parseFetchableUrl(address);
  const maxRedirects = options.maxRedirects ?? URL_MAX_REDIRECTS;
  const totalTimeoutMs = options.totalTimeoutMs ?? URL_FETCH_TIMEOUT_MS;
  const overall = new AbortController();
  const timer = setTimeout(() => overall.abort(), totalTimeoutMs);
  const onAbort = () => overall.abort();
  options.abortSignal?.addEventListener('abort', onAbort, { once: true });
  try {
    let url = started;
    for (let hop = 0; ; hop++) {
      const outcome = await fetchOnce(url, options, overall.signal, () => {
        if (options.abortSignal?.aborted) {
          return new CancelledError(`Fetching ${started.href}`);
        }
        return new ConversionError('conversion_timeout', started.href, `did not finish downloading within ${totalTimeoutMs / 1000} s. Try again later, or download it and add the file.`);
      });
      if ('redirect' in outcome) {
        if (hop >= maxRedirects) {
          throw new ConversionError('unreadable_file', started.href, `redirects more than ${maxRedirects} times (last to ${outcome.redirect}). Give the final address instead.`);
        }
        url = parseFetchableUrl(outcome.redirect);
        continue;
      }
      return outcome;
    }
  } finally {
    clearTimeout(timer);
    options.abortSignal?.removeEventListener('abort', onAbort);
  }
}

/** One request: a redirect target, a 304, or the body. */
function fetchOnce(url: URL, options: FetchDocumentOptions, overall: AbortSignal, abortError: () => Error): Promise<FetchedDocument | { redirect: string }> {
  const policy = { allowLoopback: options.allowLoopback === true };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An address written in the URL is never looked up: it is checked here, and on the socket below.
  if (net.isIP(host) !== 0) {
    checkAddress(url.href, host, host, policy, options.wording);
  }
  const maxBytes = options.maxBytes ?? URL_DOWNLOAD_MAX_BYTES;
  const headers: Record<string, string> = { 'user-agent': 'Haiku (document fetch)', accept: '*/*', 'accept-encoding': 'identity' };
  if (options.etag) {
    headers['if-none-match'] = options.etag;
  }
  if (options.lastModified) {
    headers['if-modified-since'] = options.lastModified;
  }
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, value?: FetchedDocument | { redirect: string }) => {
      if (settled) {
        return;
      }
      settled = true;
      clearTimeout(connectTimer);
      overall.removeEventListener('abort', onOverallAbort);
      if (error) {
        request.destroy();
        reject(error);
      } else {
        resolve(value!);
      }
    };
    // A fresh connection per request (no pooled socket): the guard sees every connection this fetch makes.
    const request = transport.request(url, { method: 'GET', headers, agent: false, lookup: guardedLookup(url.href, policy, options.wording) });
    const connectTimeoutMs = options.connectTimeoutMs ?? URL_CONNECT_TIMEOUT_MS;
    const connectTimer = setTimeout(() => finish(new ConversionError('conversion_timeout', url.href, `the server did not accept a connection within ${connectTimeoutMs / 1000} s. Check the address, or try again later.`)), connectTimeoutMs);
    const onOverallAbort = () => finish(abortError());
    overall.addEventListener('abort', onOverallAbort, { once: true });
    if (overall.aborted) {
      onOverallAbort();
      return;
    }
    request.on('socket', (socket: net.Socket) => {
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      socket.once('connect', () => {
        // The lookup checked the answers; this is the address the socket reached.
        const remote = socket.remoteAddress;
        if (remote !== undefined) {
          try {
            checkAddress(url.href, host, remote, policy, options.wording);
          } catch (error) {
            finish(error as Error);
          }
        }
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (isHaikuError(error)) {
        finish(error);
        return;
      }
      const why = error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN' ? `the host ${url.hostname} was not found` : error.code === 'ECONNREFUSED' ? 'the connection was refused' : error.message;
      finish(new ConversionError('unreadable_file', url.href, `could not be fetched: ${why}. Check the address and your network.`, { cause: error }));
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(status) && location) {
        response.resume();
        finish(undefined, { redirect: new URL(location, url).href });
        return;
      }
      if (status === 304) {
        response.resume();
        finish(undefined, { notModified: true, url: url.href });
        return;
      }
      if (status < 200 || status > 299) {
        response.resume();
        const code = status === 404 || status === 410 ? 'not_found' : 'unreadable_file';
        const what = status === 404 || status === 410 ? 'the server has no document there' : status === 401 || status === 403 ? 'the server refused access' : 'the server answered with an error';
        finish(new ConversionError(code, url.href, `could not be fetched: HTTP ${status} ${response.statusMessage ?? ''}`.trimEnd() + ` (${what}). Check the address.`));
        return;
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        finish(new ConversionError('file_too_large', url.href, `is ${formatBytes(declared)}, over the ${formatBytes(maxBytes)} download limit. Download it and split it, or raise the index's size limit.`));
        return;
      }
      const parts: Buffer[] = [];
      let length = 0;
      response.on('data', (part: Buffer) => {
        length += part.length;
        if (length > maxBytes) {
          // Stopped here: nothing past the limit is read.
          finish(new ConversionError('file_too_large', url.href, `is over the ${formatBytes(maxBytes)} download limit (stopped reading at ${formatBytes(length)}). Download it and split it, or raise the index's size limit.`));
          return;
        }
        parts.push(part);
      });
      response.on('error', (error) => finish(new ConversionError('unreadable_file', url.href, `the download broke off: ${error.message}. Try again.`, { cause: error })));
      response.on('aborted', () => finish(new ConversionError('unreadable_file', url.href, 'the download broke off before its end. Try again.')));
      response.on('end', () => {
        const header = (name: string) => {
          const value = response.headers[name];
          return typeof value === 'string' && value !== '' ? value : undefined;
        };
        finish(undefined, { notModified: false, url: url.href, bytes: Buffer.concat(parts, length), contentType: header('content-type'), etag: header('etag'), lastModified: header('last-modified') });
      });
    });
    request.end();
  });
}
