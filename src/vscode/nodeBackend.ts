import { fileURLToPath } from 'node:url';
import * as path from 'node:path';
import type { HaikuConfig } from '../core/config';
import type { SandboxFactory } from '../core/agent/agentRun';
import { compactEarlierTurns } from '../core/agent/contextManagement';
import type { ModelMessage } from 'ai';
import { DOCUMENT_SCHEME } from './contributionIds';
import type { IndexBackend, IndexBackendLoader, IndexRunSummary } from './indexBackend';
import { combinedKnowledgeBase } from './combinedKnowledgeBase';

/**
 * The only place the extension reaches the heavy Node modules (LanceDB, converters, the AI SDK, the sandbox).
 * Every one is loaded with `await import()` on first use, so `activate` parses none of them.
 */

function isInsideOrEqual(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function fsPathOf(uri: string): string | undefined {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

export const loadNodeIndexBackend: IndexBackendLoader = async (config, options) => {
  // LanceDB reads these when its native module loads (see shared notes §1): set them before the import.
  process.env.LANCE_CPU_THREADS ??= '4';
  process.env.LANCEDB_LOG ??= 'error';
  const [{ openIndex }, { indexWithRules }, { createConversionPool }, { mapToSourceRoot }] = await Promise.all([
    import('../node/backend/openIndex.js'),
    import('../node/backend/indexWithRules.js'),
    import('../node/convert/conversionPool.js'),
    import('../node/store/sourceRoot.js'),
  ]);
  // The same opening as the CLI and the MCP server: models, search options, rules and write policy from the settings.
  // The index service creates the index on first sync; `remote-readonly` opens a published one without writing.
  const index = await openIndex({ config, cwd: process.cwd(), mustExist: false, abortSignal: options.abortSignal });
  const { store, embedder, reranker, readOnly } = index;
  const { openAdditionalDatabases } = await import('../node/backend/additionalDatabases.js');
  const additional = await openAdditionalDatabases(config, store, { cwd: process.cwd(), abortSignal: options.abortSignal, log: options.log });
  // One long-lived pool: a file conversion can neither block nor crash the extension host, and watcher re-indexes
  // skip the workers' start-up.
  const conversionPool = createConversionPool();
  const backend: IndexBackend = {
    // A published index names the publisher's files: map them onto this machine's copy (or the stored rendering).
    knowledgeBase: combinedKnowledgeBase(
      readOnly
        ? mapToSourceRoot(store, {
          localRoots: options.sourceRoots ?? [],
          missing: (relativePath, documentId) => `${DOCUMENT_SCHEME}:/${encodeURI(relativePath)}.md?${encodeURIComponent(documentId)}`,
        })
        : store,
      additional.map(({ name, index: opened }) => ({ name, knowledgeBase: opened.store })),
    ),
    databaseUri: store.uri,
    readOnly,
    async refresh() {
      // The additional indexes follow their writers (a `haiku index` run) too; only the workspace index's change counts.
      await Promise.all(additional.map(({ index: opened }) => opened.store.refresh()));
      const before = JSON.stringify(await store.tableVersions());
      await store.refresh();
      return JSON.stringify(await store.tableVersions()) !== before;
    },
    async indexPaths(paths, indexOptions): Promise<IndexRunSummary> {
      const summary = await indexWithRules(index, paths, {
        conversionPool,
        abortSignal: indexOptions.abortSignal,
        baseFolder: indexOptions.baseFolder,
        fileRootsFollowRules: indexOptions.fileRootsFollowRules,
        removeMissing: indexOptions.prune,
        // Incremental runs leave optimizing to the store's debounce.
        optimize: indexOptions.prune,
        onProgress: (progress) => indexOptions.onProgress?.({ done: progress.filesDone, total: progress.filesTotal, path: progress.currentFile }),
      });
      if (!indexOptions.prune && (summary.added.length > 0 || summary.updated.length > 0 || summary.removed.length > 0)) {
        store.scheduleOptimize();
      }
      return {
        indexed: summary.added.length + summary.updated.length,
        unchanged: summary.unchanged,
        removed: summary.removed.length,
        failed: summary.failed.map((failure) => ({ path: failure.path, message: failure.reason, code: failure.code })),
      };
    },
    async removePaths(paths): Promise<number> {
      const documents = await store.listDocuments();
      const doomed = documents.filter((document) => {
        const documentPath = fsPathOf(document.uri);
        return documentPath !== undefined && paths.some((removed) => isInsideOrEqual(documentPath, removed));
      });
      if (doomed.length > 0) {
        await store.removeDocuments(doomed.map((document) => document.id));
        store.scheduleOptimize();
      }
      return doomed.length;
    },
    reset: () => store.reset(),
    close: async () => {
      await conversionPool.dispose();
      await Promise.all(additional.map(({ index: opened }) => opened.close()));
      await index.close();
    },
  };
  options.log(`Index at ${store.uri} (${embedder ? `embeddings ${embedder.id}` : 'full-text search only'}${reranker ? `, reranker ${reranker.id}` : ''}).`);
  return backend;
};

export async function loadAgentModule(): Promise<typeof import('../core/agent/runAgent')> {
  return import('../core/agent/runAgent.js');
}

/** The sandbox factory for `execute_code`, configured from the settings. */
export async function loadSandboxFactory(config: HaikuConfig, extensionFolder: string): Promise<SandboxFactory> {
  const { createCodeSandbox, resolveSandboxWorker } = await import('../node/sandbox/codeSandbox.js');
  const workerScript = resolveSandboxWorker(path.join(extensionFolder, 'dist'));
  return (host) => createCodeSandbox({
    host,
    workerScript,
    limits: { codeTimeoutSeconds: config.sandbox.codeTimeoutSeconds, maxOutputChars: config.sandbox.maxOutputChars, memoryLimitBytes: config.sandbox.memoryLimitBytes },
  });
}

/** The configured OpenAI-compatible model, or undefined when `haiku.model.baseUrl`/`name` are not set. */
export async function loadConfiguredModel(config: HaikuConfig): Promise<{ model: import('ai').LanguageModel; description: string } | undefined> {
  const { createOpenAiCompatibleModel } = await import('../node/agent/openAiCompatibleModel.js');
  const created = createOpenAiCompatibleModel({
    baseUrl: config.qa.model.baseUrl,
    name: config.qa.model.name,
    apiKey: config.qa.model.apiKey,
    temperature: config.qa.model.temperature,
    vision: config.qa.model.vision,
    thinking: config.qa.model.thinking,
  });
  return { model: created.model, description: created.description.name ?? config.qa.model.name };
}

/** An answer's messages as the next turn will send them (large evidence replaced by a marker): kept small in chat metadata. */
export function compactHistory(messages: readonly ModelMessage[]): ModelMessage[] {
  return compactEarlierTurns(messages);
}
