import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createSessionServer, type HaikuMcpServerOptions } from './mcpServer';

/**
 * Serves one client over stdin/stdout until it disconnects (stdin ends) or the server is stopped.
 * Nothing else may write to stdout meanwhile: it carries the protocol.
 */
export async function serveStdio(options: HaikuMcpServerOptions, streams: { stdin: Readable; stdout: Writable } = { stdin: process.stdin, stdout: process.stdout }): Promise<void> {
  if (options.abortSignal.aborted) {
    return;
  }
  const session = createSessionServer(options);
  const transport = new StdioServerTransport(streams.stdin, streams.stdout);
  const closed = new Promise<void>((resolve) => {
    session.server.server.onclose = resolve;
  });
  const stop = () => void session.close();
  streams.stdin.once('end', stop);
  options.abortSignal.addEventListener('abort', stop, { once: true });
  try {
    await session.server.connect(transport);
    await closed;
  } finally {
    streams.stdin.off('end', stop);
    options.abortSignal.removeEventListener('abort', stop);
    await session.close();
  }
}
