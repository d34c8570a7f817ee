import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One page the test server serves: its body, headers, status; `etag` makes it answer If-None-Match with 304. */
export interface ServedPage {
  body?: string | Buffer;
  status?: number;
  contentType?: string;
  etag?: string;
  lastModified?: string;
  headers?: Record<string, string>;
  /** Never answers (for the time limit). */
  hang?: boolean;
  /** Sends no Content-Length (chunked), so only the reader's count can stop a large body. */
  chunked?: boolean;
}

/** A real HTTP server on 127.0.0.1 whose pages a test changes between requests, counting requests per path. */
export interface DocumentServer {
  origin: string;
  pages: Map<string, ServedPage>;
  requests: Map<string, number>;
  /** The If-None-Match / If-Modified-Since headers of each request, in order. */
  conditions: Array<{ path: string; ifNoneMatch?: string; ifModifiedSince?: string }>;
  close(): Promise<void>;
}

export async function startDocumentServer(): Promise<DocumentServer> {
  const pages = new Map<string, ServedPage>();
  const requests = new Map<string, number>();
  const conditions: DocumentServer['conditions'] = [];
  const server = http.createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    requests.set(path, (requests.get(path) ?? 0) + 1);
    const ifNoneMatch = request.headers['if-none-match'];
    const ifModifiedSince = request.headers['if-modified-since'];
    conditions.push({ path, ifNoneMatch: typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined, ifModifiedSince });
    const page = pages.get(path);
    if (!page) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
      return;
    }
    if (page.hang) {
      return;
    }
    const headers: Record<string, string> = { ...page.headers };
    if (page.contentType) {
      headers['content-type'] = page.contentType;
    }
    if (page.etag) {
      headers.etag = page.etag;
      if (ifNoneMatch === page.etag) {
        response.writeHead(304, headers).end();
        return;
      }
    }
    if (page.lastModified) {
      headers['last-modified'] = page.lastModified;
    }
    const body = page.body ?? '';
    if (page.chunked) {
      response.writeHead(page.status ?? 200, headers);
      const bytes = Buffer.from(body);
      for (let offset = 0; offset < bytes.length; offset += 16 * 1024) {
        response.write(bytes.subarray(offset, offset + 16 * 1024));
      }
      response.end();
      return;
    }
    response.writeHead(page.status ?? 200, { ...headers, 'content-length': String(Buffer.byteLength(body)) }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    pages,
    requests,
    conditions,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
