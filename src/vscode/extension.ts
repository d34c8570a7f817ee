import * as vscode from 'vscode';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { HaikuConfig } from '../core/config';
import { HaikuParticipant } from './chat/participant';
import { registerCommands } from './commands';
import { DOCUMENT_SCHEME } from './contributionIds';
import { DocumentNavigator, DocumentRenderingProvider } from './documentNavigation';
import type { HaikuExtensionApi } from './extensionApi';
import { IndexService } from './indexService';
import { EndpointModelProvider, registerEndpointModelProvider } from './modelProvider';
import { loadBackendModule } from './backendModule';
import { RunsPanel } from './runs/runsPanel';
import { RunsStore } from './runs/runsStore';
import { createSectionsView, SectionsTreeProvider } from './sectionsTree';
import { configFromSettings, hasConfiguredEndpoint, SECRET_KEYS, type ApiKeys, type SettingReader } from './settingsMapping';
import { createStatusBar } from './statusBar';
import { registerListDocumentsTool } from './tools/listDocumentsTool';
import { registerReadSectionTool } from './tools/readSectionTool';
import { registerSearchTool } from './tools/searchTool';

/**
 * Activation wires cheap objects only: views, commands, the participant, the tools. The store, the indexer,
 * the agent and the sandbox are loaded with `await import()` on first use (see `nodeBackend.ts`).
 */
export async function activate(context: vscode.ExtensionContext): Promise<HaikuExtensionApi> {
  const started = performance.now();
  const output = vscode.window.createOutputChannel('Haiku', { log: true });
  context.subscriptions.push(output);

  // `get` (not `inspect`) so untrusted workspaces cannot override the restricted settings (capabilities in package.json).
  const read: SettingReader = (key) => vscode.workspace.getConfiguration('haiku').get(key);
  const apiKeys: ApiKeys = {};
  const loadApiKeys = async (): Promise<void> => {
    apiKeys.model = await context.secrets.get(SECRET_KEYS.model);
    apiKeys.embeddings = await context.secrets.get(SECRET_KEYS.embeddings);
    apiKeys.reranker = await context.secrets.get(SECRET_KEYS.reranker);
  };
  const keysLoaded = loadApiKeys().catch((error: unknown) => output.warn(`Could not read API keys from secret storage: ${String(error)}`));
  const storageFolder = context.storageUri ?? context.globalStorageUri;
  const defaultDatabaseUri = vscode.Uri.joinPath(storageFolder, 'index').fsPath;
  const getConfig = (): HaikuConfig => configFromSettings(read, { defaultDatabaseUri, apiKeys });
  const relativePathOf = (uri: string): string => {
    try {
      return vscode.workspace.asRelativePath(vscode.Uri.parse(uri), (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
    } catch {
      return uri;
    }
  };

  const indexService = new IndexService(getConfig, async (config, options) => {
    await keysLoaded;
    return loadBackendModule().loadNodeIndexBackend(getConfig(), options);
  }, output);
  const knowledgeBase = () => indexService.knowledgeBase();
  const runsStore = new RunsStore();
  const navigator = new DocumentNavigator(knowledgeBase);
  const renderingProvider = new DocumentRenderingProvider(knowledgeBase);
  const runsPanel = new RunsPanel(context.extensionUri, runsStore, async (chunkId, shownRange) => {
    await navigator.openChunk(chunkId, shownRange);
  }, (line) => output.info(line));
  const sectionsTree = new SectionsTreeProvider(() => indexService.openKnowledgeBase);
  const { view: sectionsView, disposable: sectionsViewDisposable } = createSectionsView(sectionsTree);

  const modelProvider = new EndpointModelProvider(read, async () => {
    await keysLoaded;
    return getConfig();
  }, async (config, name) => {
    const configured = await loadBackendModule().loadConfiguredModel({ ...config, qa: { ...config.qa, model: { ...config.qa.model, name } } });
    return configured!.model as LanguageModelV3;
  });

  const participant = new HaikuParticipant(context.extensionUri, {
    indexService,
    runsStore,
    navigator,
    getConfig,
    configuredModel: async () => {
      await keysLoaded;
      return hasConfiguredEndpoint(read) ? loadBackendModule().loadConfiguredModel(getConfig()) : undefined;
    },
    loadAgent: () => loadBackendModule().loadAgentModule(),
    loadSandboxFactory: async () => {
      try {
        return await loadBackendModule().loadSandboxFactory(getConfig(), context.extensionUri.fsPath);
      } catch (error) {
        output.warn(`The analysis sandbox is unavailable: ${String(error)}`);
        return undefined;
      }
    },
    relativePathOf,
    compactHistory: (messages) => loadBackendModule().compactHistory(messages),
    log: output,
  });

  const toolContext = { knowledgeBase, relativePathOf };
  context.subscriptions.push(
    indexService,
    navigator,
    renderingProvider,
    runsPanel,
    sectionsTree,
    sectionsViewDisposable,
    participant,
    modelProvider,
    createStatusBar(indexService),
    vscode.workspace.registerTextDocumentContentProvider(DOCUMENT_SCHEME, renderingProvider),
    registerEndpointModelProvider(modelProvider),
    registerSearchTool(toolContext),
    registerListDocumentsTool(toolContext),
    registerReadSectionTool(toolContext),
    ...registerCommands({
      context,
      indexService,
      navigator,
      runsPanel,
      sectionsTree,
      output,
      knowledgeBase,
      relativePathOf,
      getConfig,
      onApiKeyChanged: async (which) => {
        await loadApiKeys();
        if (which === 'model') {
          modelProvider.refresh();
        } else {
          await indexService.reopen();
        }
      },
    }),
    indexService.onDidChangeIndex(() => {
      sectionsTree.refresh();
      for (const document of vscode.workspace.textDocuments) {
        if (document.uri.scheme === DOCUMENT_SCHEME) {
          renderingProvider.refresh(document.uri);
        }
      }
    }),
    indexService.onDidChangeStatus((status) => {
      if (status.state === 'ready') {
        sectionsTree.refresh();
      }
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('haiku.model')) {
        modelProvider.refresh();
      }
      if (['haiku.index', 'haiku.embeddings', 'haiku.reranker', 'haiku.search'].some((section) => event.affectsConfiguration(section))) {
        output.info('Index settings changed: reopening the index.');
        void indexService.reopen();
      }
    }),
    context.secrets.onDidChange(() => void loadApiKeys()),
  );

  indexService.start();
  const activationMs = performance.now() - started;
  output.info(`Activated in ${activationMs.toFixed(1)} ms (VS Code ${vscode.version}, ${vscode.env.appName}).`);
  return {
    activationMs,
    indexService,
    runsStore,
    runsPanel,
    sectionsTree,
    sectionsView,
    participant,
    navigator,
    knowledgeBase,
    config: getConfig,
  };
}

export function deactivate(): void {
  // Everything is in context.subscriptions.
}
