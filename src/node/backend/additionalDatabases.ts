import type { HaikuConfig } from '../../core/config';
import { HaikuError } from '../../core/errors';
import { DatabaseSet } from '../store/databaseSet';
import type { LanceStore } from '../store/lanceStore';
import { openIndex, type OpenedIndex } from './openIndex';

/** The names `haiku.index.additionalDatabases` accepts (those of `haiku search --db name=uri`); they prefix ids. */
const DATABASE_NAME = /^[A-Za-z][\w.-]*$/;

/** The configured names checked: each must be usable as an id prefix (`team:<chunk id>`). */
export function checkDatabaseNames(names: readonly string[]): void {
  const bad = names.filter((name) => !DATABASE_NAME.test(name));
  if (bad.length > 0) {
    throw new HaikuError(
      'invalid_settings',
      `These additional index names cannot be used: ${bad.map((name) => JSON.stringify(name)).join(', ')}. A name starts with a letter and holds only letters, digits, ".", "_" and "-".`,
      { remedy: { settings: ['index.additionalDatabases'] } },
    );
  }
}

/**
 * `index.additionalDatabases`, each opened read-only through `openIndex` with the configuration's models (they must
 * have been built with the workspace index's embedder, as `haiku search --db` requires). One that cannot be opened
 * is left out and its reason logged, so the workspace index still works.
 */
export async function openAdditionalDatabases(
  config: HaikuConfig,
  primary: LanceStore,
  options: { cwd: string; abortSignal: AbortSignal; log: (line: string) => void },
): Promise<Array<{ name: string; index: OpenedIndex }>> {
  const entries = Object.entries(config.index.additionalDatabases);
  checkDatabaseNames(entries.map(([name]) => name));
  const opened: Array<{ name: string; index: OpenedIndex }> = [];
  for (const [name, uri] of entries) {
    let index: OpenedIndex | undefined;
    try {
      index = await openIndex({ config, cwd: options.cwd, databaseUri: uri.trim(), mustExist: true, readOnly: true, abortSignal: options.abortSignal });
      // Rankings fuse only across one embedder (a workspace index not built yet has none to compare); this throws otherwise.
      new DatabaseSet([
        ...(primary.storedEmbedderId === null ? [] : [{ name: 'workspace', store: primary }]),
        ...opened.map((other) => ({ name: other.name, store: other.index.store })),
        { name, store: index.store },
      ]);
      opened.push({ name, index });
      options.log(`Also searching index "${name}" at ${index.store.uri} (read-only).`);
    } catch (error) {
      await index?.close();
      options.log(`Additional index "${name}" (${uri}) is not searched: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return opened;
}
