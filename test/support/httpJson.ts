import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Answers a scripted test server's request with a JSON body. */
export function sendJson(response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** A scripted test server listening on 127.0.0.1 (random port). */
export interface LocalTestServer {
  port: number;
  /** Leaves a response unanswered until the client gives up or the server closes (timeout tests). */
  hold(response: http.ServerResponse): void;
  /** Drops held responses and open connections, then stops listening. */
  close(): Promise<void>;
}

/** Starts a scripted test server on 127.0.0.1 that hands each request to `handle` with its whole body. */
export async function startLocalTestServer(handle: (request: http.IncomingMessage, body: string, response: http.ServerResponse) => void): Promise<LocalTestServer> {
  const held = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handle(request, Buffer.concat(chunks).toString('utf8'), response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hold: (response) => {
      held.add(response);
      response.on('close', () => held.delete(response));
    },
    close: async () => {
      for (const response of held) {
        response.destroy();
      }
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A 127.0.0.1 port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
