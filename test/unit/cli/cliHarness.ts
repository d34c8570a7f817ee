import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import type { CommandIo } from '../../../src/node/cli/command';
import { runCli } from '../../../src/node/cli/main';
import { repositoryRoot } from '../../support/paths';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { startScriptedChatServer, type ScriptedChatServer } from '../../support/scriptedChatServer';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface InProcessOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Standard input's whole text. */
  stdin?: string;
  interactive?: boolean;
  stderrColumns?: number;
  abortSignal?: AbortSignal;
}

/** `runCli` in this process with captured output. */
export async function runInProcess(argv: string[], options: InProcessOptions): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    cwd: options.cwd,
    env: options.env ?? {},
    stdin: options.stdin === undefined ? undefined : Readable.from([Buffer.from(options.stdin)]),
    interactive: options.interactive,
    stderrColumns: options.stderrColumns,
  };
  const code = await runCli(argv, io, options.abortSignal);
  return { code, stdout, stderr };
}

/** The CLI's source entry under tsx, as a real process would run it. */
export const CLI_SOURCE = path.join(repositoryRoot, 'src', 'node', 'cli', 'main.ts');

/** Node arguments that start the CLI from source. */
export function cliNodeArguments(argv: readonly string[]): string[] {
  return ['--require', require.resolve('tsx/cjs'), CLI_SOURCE, ...argv];
}

/** The CLI as a child process (for signals, pipes and terminals); resolves when it exits. */
export function runProcess(argv: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number }): Promise<CliRun & { signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliNodeArguments(argv), { cwd: options.cwd, env: { ...process.env, LANCEDB_LOG: 'error', ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, signal, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

/** A temporary folder with `files` indexed into its default `.haiku/`, and a scripted chat server. */
export interface IndexedWorkspace {
  path: string;
  server: ScriptedChatServer;
  /** `--base-url … --model scripted`: the question commands' flags for the scripted server. */
  modelFlags(): string[];
  close(): Promise<void>;
}

export async function startIndexedWorkspace(files: Record<string, string>): Promise<IndexedWorkspace> {
  const folder = temporaryFolder('haiku-cli-');
  writeFiles(folder.path, files);
  const server = await startScriptedChatServer();
  const indexed = await runInProcess(['index', '.', '--quiet'], { cwd: folder.path });
  if (indexed.code !== 0) {
    throw new Error(`indexing the test workspace failed: ${indexed.stderr}`);
  }
  return {
    path: folder.path,
    server,
    modelFlags: () => ['--base-url', server.baseUrl, '--model', 'scripted'],
    async close() {
      await server.close();
      folder.cleanup();
    },
  };
}
