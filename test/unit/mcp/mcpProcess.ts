import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { repositoryRoot } from '../../support/paths';

/** `haiku` from source: the real CLI entry under tsx, as a separate process (what an MCP host spawns). */
export const CLI_FROM_SOURCE = ['--require', require.resolve('tsx/cjs'), path.join(repositoryRoot, 'src', 'node', 'cli', 'main.ts')];

export interface StdioSession {
  client: Client;
  stderr(): string;
  close(): Promise<void>;
}

/** Spawns `haiku mcp <args>` over stdio and connects the SDK's client to it. */
export async function connectStdio(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<StdioSession> {
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...CLI_FROM_SOURCE, 'mcp', ...args],
    cwd: options.cwd,
    env: { ...getDefaultEnvironment(), LANCEDB_LOG: 'error', ...options.env },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'haiku-test', version: '0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

export interface HttpServerProcess {
  /** `http://127.0.0.1:<port>/mcp` as the server printed it. */
  url: string;
  /** The bearer token the server printed (undefined when it printed none: HAIKU_MCP_TOKEN or --no-auth). */
  token: string | undefined;
  stderr(): string;
  child: ChildProcess;
  /** Connects with the printed token, or with `token` when given (null: none). */
  connect(token?: string | null): Promise<Client>;
  /** SIGTERM, then waits for the exit code. */
  stop(): Promise<number | null>;
}

/** Spawns `haiku mcp --http --port 0 <args>` and waits for the line that names its URL. */
export async function startHttpServer(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, [...CLI_FROM_SOURCE, 'mcp', '--http', '--port', '0', ...args], { cwd: options.cwd, env: { ...process.env, LANCEDB_LOG: 'error', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      // The token line, when there is one, comes in the same write as the URL line.
      const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (match) {
        resolve(match[1]);
      }
    });
    void exited.then((code) => reject(new Error(`haiku mcp --http exited (${code}) before listening:\n${stderr}`)));
  });
  const token = /Bearer token .*: (\S+)\n/.exec(stderr)?.[1];
  return {
    url,
    token,
    child,
    stderr: () => stderr,
    async connect(chosen?: string | null) {
      const sent = chosen === undefined ? token : chosen ?? undefined;
      const client = new Client({ name: 'haiku-test', version: '0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), sent ? { requestInit: { headers: { authorization: `Bearer ${sent}` } } } : {}));
      return client;
    },
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs `haiku <args>` to its end: exit code and output. */
export function runCliProcess(args: string[], options: { cwd: string }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI_FROM_SOURCE, ...args], { cwd: options.cwd, env: { ...process.env, LANCEDB_LOG: 'error' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The text of a tool result's first content block. */
export function resultText(result: unknown): string {
  const content = (result as CallToolResult).content;
  const first = content[0];
  return first?.type === 'text' ? first.text : '';
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult & { text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { ...result, text: resultText(result) };
}
