/**
 * Finds the script of a `worker_threads` worker, the same way for every worker Haiku starts (the code sandbox,
 * document conversion), whether it runs bundled, compiled by tsc, or from TypeScript source under tsx.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HaikuError, type HaikuErrorCode } from '../core/errors';

/** What `new Worker(file, { execArgv })` needs. */
export interface WorkerScript {
  file: string;
  execArgv: string[];
}

export interface WorkerScriptNames {
  /** The esbuild bundle's file name, beside the bundle that loads it (e.g. `sandbox-worker.js` in `dist/`). */
  bundledFileName: string;
  /** The source file's name without extension, beside the code that starts it (e.g. `worker` for `worker.ts`). */
  sourceBaseName: string;
  /** Who the worker is, for error messages ("The sandbox worker"). */
  description: string;
  /** Code of the `HaikuError` thrown when no script is found. */
  errorCode: HaikuErrorCode;
}

/**
 * Where the worker script is, in this order:
 * 1. `<bundledFileName>` in `folder`: the esbuild bundle (`dist/extension.js`, `dist/cli.js` → `dist/<bundledFileName>`);
 * 2. `<sourceBaseName>.js` in `folder`: the tsc output (`out/src/node/...`);
 * 3. `<sourceBaseName>.ts` in `folder`: running from source under tsx (mocha, scripts); the worker gets tsx's CommonJS
 *    hook via `--require <absolute path of tsx/cjs>`, resolved from this file so the current folder does not matter.
 */
export function resolveWorkerScript(folder: string, names: WorkerScriptNames): WorkerScript {
  const bundled = path.join(folder, names.bundledFileName);
  if (fs.existsSync(bundled)) {
    return { file: bundled, execArgv: [] };
  }
  const compiled = path.join(folder, `${names.sourceBaseName}.js`);
  if (fs.existsSync(compiled)) {
    return { file: compiled, execArgv: [] };
  }
  const source = path.join(folder, `${names.sourceBaseName}.ts`);
  if (fs.existsSync(source)) {
    let tsxHook: string;
    try {
      tsxHook = require.resolve('tsx/cjs');
    } catch (error) {
      throw new HaikuError(names.errorCode, `${names.description} is only available as TypeScript source (${source}) and tsx is not installed. Build with 'npm run build'.`, { cause: error });
    }
    return { file: source, execArgv: ['--require', tsxHook] };
  }
  throw new HaikuError(names.errorCode, `${names.description} script is missing next to ${folder} (${names.bundledFileName}). Rebuild the extension with 'npm run build'.`);
}
