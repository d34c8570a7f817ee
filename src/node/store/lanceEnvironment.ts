import * as os from 'node:os';

/**
 * Import this module before `@lancedb/lancedb` (imports run in order in CommonJS).
 * - LanceDB 0.31.0 deadlocks building FTS indexes when its CPU pool has ≤2 threads (shared notes §1, bug 1);
 *   the pool is created lazily, so setting the variable before the first call is enough.
 * - Rust warnings (deprecations) go to stderr unless the log level is set before the native module loads.
 */
process.env.LANCE_CPU_THREADS ??= String(Math.max(4, os.cpus().length));
process.env.LANCEDB_LOG ??= 'error';

export const lanceEnvironmentReady = true;
