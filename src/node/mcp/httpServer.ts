import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, HaikuError } from '../../core/errors';
import { MCP_HTTP_MAX_BODY_BYTES, MCP_HTTP_MAX_SESSIONS, MCP_HTTP_PATH, MCP_HTTP_TOKEN_BYTES, MCP_HTTP_SESSION_IDLE_MS, MCP_HTTP_SESSION_SWEEP_MS } from '../../core/limits';
import { createSessionServer, type HaikuMcpServerOptions, type McpSessionServer } from './mcpServer';

/** The loopback address the server binds: it is for clients on this machine only. */
const LOOPBACK_HOST = '127.0.0.1';

interface HttpSession {
  transport: StreamableHTTPServerTransport;
  session: McpSessionServer;
  /** `Date.now()` when the session's latest request started or ended. */
  lastActivityAt: number;
  /** Requests (and SSE streams) still open: a session is idle only without any. */
  openRequests: number;
}

export interface ServeHttpOptions {
  /** 0 picks a free port. */
  port: number;
  onListening: (url: string) => void;
  /** Closes sessions idle this long (default `MCP_HTTP_SESSION_IDLE_MS`). */
  sessionIdleMs?: number;
  /** Every request must carry `Authorization: Bearer <token>`; undefined only with `--no-auth`. */
  token: string | undefined;
}

/** A fresh bearer token: 32 random bytes, URL-safe. */
export function generateBearerToken(): string {
  return randomBytes(MCP_HTTP_TOKEN_BYTES).toString('base64url');
}

/** Whether the request's `Authorization` header carries `token`, compared in constant time (digests of equal length). */
function hasBearerToken(request: http.IncomingMessage, token: string): boolean {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(match?.[1] ?? ''), digest(token)) && match !== null;
}

class HttpRequestError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

function sendError(response: http.ServerResponse, status: number, message: string): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json', ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}) });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJsonBody(request: http.IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of request) {
    size += (part as Buffer).length;
    if (size > MCP_HTTP_MAX_BODY_BYTES) {
      throw new HttpRequestError(413, `The request body is larger than ${MCP_HTTP_MAX_BODY_BYTES} bytes.`);
    }
    parts.push(part as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    throw new HttpRequestError(400, 'Parse error: the request body is not JSON.');
  }
}

/**
 * Serves MCP over Streamable HTTP on 127.0.0.1 until the abort signal fires: one MCP server and one sandbox per
 * session (`Mcp-Session-Id`), at most `MCP_HTTP_MAX_SESSIONS` at once. Requests whose Host or Origin is not this
 * loopback address are refused (DNS rebinding: a web page must not reach the index through the user's browser),
 * and so are requests without the bearer token (any local user can reach a loopback port).
 */
export async function serveHttp(options: HaikuMcpServerOptions, httpOptions: ServeHttpOptions): Promise<void> {
  const { port, onListening } = httpOptions;
  const sessionIdleMs = httpOptions.sessionIdleMs ?? MCP_HTTP_SESSION_IDLE_MS;
  const sessions = new Map<string, HttpSession>();
  let allowedHosts = new Set<string>();

  const closeIdleSessions = () => {
    const now = Date.now();
    for (const entry of sessions.values()) {
      if (entry.openRequests === 0 && now - entry.lastActivityAt >= sessionIdleMs) {
        // `onclose` below forgets the session and disposes its sandbox.
        void entry.transport.close();
      }
    }
  };

  const openSession = async (request: http.IncomingMessage, response: http.ServerResponse, body: unknown) => {
    closeIdleSessions();
    if (sessions.size >= MCP_HTTP_MAX_SESSIONS) {
      throw new HttpRequestError(503, `The server already holds ${MCP_HTTP_MAX_SESSIONS} sessions; close one (DELETE ${MCP_HTTP_PATH}) or try later.`);
    }
    const session = createSessionServer(options);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, { transport, session, lastActivityAt: Date.now(), openRequests: 0 }),
    });
    transport.onclose = () => {
      if (transport.sessionId) {
        sessions.delete(transport.sessionId);
      }
      void session.close();
    };
    await session.server.connect(transport);
    try {
      await transport.handleRequest(request, response, body);
    } finally {
      // An initialize request that did not open a session leaves nothing behind.
      if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) {
        await session.close();
      }
    }
  };

  const handle = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    const url = new URL(request.url ?? '/', `http://${LOOPBACK_HOST}`);
    if (url.pathname !== MCP_HTTP_PATH) {
      throw new HttpRequestError(404, `Not found: the MCP endpoint is ${MCP_HTTP_PATH}.`);
    }
    const origin = request.headers.origin;
    if (!allowedHosts.has(request.headers.host ?? '') || (origin !== undefined && !allowedHosts.has(origin.replace(/^https?:\/\//, '')))) {
      throw new HttpRequestError(403, 'Forbidden: this server only answers requests addressed to its loopback address.');
    }
    if (httpOptions.token !== undefined && !hasBearerToken(request, httpOptions.token)) {
      throw new HttpRequestError(401, 'Unauthorized: send the token the server printed at start (or HAIKU_MCP_TOKEN) as "Authorization: Bearer <token>".');
    }
    const body = request.method === 'POST' ? await readJsonBody(request) : undefined;
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const existing = sessions.get(sessionId);
      if (!existing) {
        throw new HttpRequestError(404, 'Session not found: it was closed (idle, or by the client) or the server restarted. Initialize a new session.');
      }
      existing.openRequests += 1;
      existing.lastActivityAt = Date.now();
      response.once('close', () => {
        existing.openRequests -= 1;
        existing.lastActivityAt = Date.now();
      });
      await existing.transport.handleRequest(request, response, body);
      return;
    }
    if (request.method !== 'POST' || !isInitializeRequest(body)) {
      throw new HttpRequestError(400, 'Bad Request: no Mcp-Session-Id header; start a session with an initialize request.');
    }
    await openSession(request, response, body);
  };

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      sendError(response, error instanceof HttpRequestError ? error.status : 500, errorMessage(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new HaikuError('invalid_settings', `Port ${port} on ${LOOPBACK_HOST} is in use. Pick another with --port N (0 picks a free one).`) : error),
    );
    server.listen(port, LOOPBACK_HOST, () => resolve());
  });
  const actualPort = (server.address() as AddressInfo).port;
  allowedHosts = new Set([`${LOOPBACK_HOST}:${actualPort}`, `localhost:${actualPort}`]);
  onListening(`http://${LOOPBACK_HOST}:${actualPort}${MCP_HTTP_PATH}`);
  const sweeper = setInterval(closeIdleSessions, Math.min(sessionIdleMs, MCP_HTTP_SESSION_SWEEP_MS));
  sweeper.unref();

  await new Promise<void>((resolve) => {
    if (options.abortSignal.aborted) {
      resolve();
    } else {
      options.abortSignal.addEventListener('abort', () => resolve(), { once: true });
    }
  });
  clearInterval(sweeper);
  await Promise.all([...sessions.values()].map(({ session }) => session.close()));
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
