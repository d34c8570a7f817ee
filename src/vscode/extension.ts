import * as vscode from 'vscode';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { HaikuConfig } from '../core/config';
import { createFeedbackLog } from './chat/feedbackLog';
import { HaikuParticipant } from './chat/participant';
import { registerCommands } from './commands';
import { COMMANDS, DOCUMENT_SCHEME } from './contributionIds';
import { registerPdfViewer } from './pdfViewer/pdfJumps';
import { DocumentNavigator, DocumentRenderingProvider } from './documentNavigation';
import { HAIKU_API_VERSION, type HaikuExtensionApi } from './extensionApi';
import { IndexService } from './indexService';
import { EndpointModelProvider, registerEndpointModelProvider } from './modelProvider';
import { loadBackendModule } from './backendModule';
import { RunsPanel } from './runs/runsPanel';
import { RunsStore } from './runs/runsStore';
import { createSectionsView, SectionsTreeProvider } from './sectionsTree';
import { ApiKeyStore, secretBaseUrls } from './apiKeys';
import { autoIndexEnabled, configFromSettings, excludeGlobsFromWorkspaceSettings, hasConfiguredEndpoint, layeredSettingReader, workspaceConfigFileValues, type SettingReader } from './settingsMapping';
import { CONFIG_FILE_NAME } from '../core/configFile';
import { createStatusBar } from './statusBar';
import { registerWalkthroughProgress } from './walkthrough';
import { registerIndexProblems } from './indexProblems';
import { backendBundleLoaded, TestRecorder } from './testApi';
import { registerListDocumentsTool } from './tools/listDocumentsTool';
import { registerReadPictureTool } from './tools/readPictureTool';
import { registerReadSectionTool } from './tools/readSectionTool';
import { registerSearchTool } from './tools/searchTool';
import { registerHaikuMcpServer } from './mcpServerProvider';
import { openPicture, registerPictureView } from './pictureView';
import { configuredAnalysisModel, type ResolvedModel } from './analysisModel';
import { registerAnalyzeTool } from './tools/analyzeTool';
import type { SandboxFactory } from '../core/agent/agentRun';

/** Settings, API keys and paths every part reads. */
interface ExtensionSettings {
  read: SettingReader;
  getConfig: () => HaikuConfig;
  /** Resolves once the API keys were read from secret storage. */
  keysLoaded: Promise<void>;
  apiKeys: ApiKeyStore;
  defaultDatabaseUri: string;
  relativePathOf: (uri: string) => string;
}

/**
 * Activation wires cheap objects only: views, commands, the participant, the tools. The store, the indexer,
 * the agent and the sandbox are loaded with `await import()` on first use (see `nodeBackend.ts`).
 */
export async function activate(context: vscode.ExtensionContext): Promise<HaikuExtensionApi> {
  const started = performance.now();
  const output = vscode.window.createOutputChannel('Haiku', { log: true });
  context.subscriptions.push(output);
  const settings = readSettings(context, output);
  const recorder = context.extensionMode === vscode.ExtensionMode.Test ? new TestRecorder() : undefined;

  const indexService = new IndexService(settings.getConfig, async (_config, options) => {
    await settings.keysLoaded;
    return loadBackendModule().loadNodeIndexBackend(settings.getConfig(), options);
  }, output, () => autoIndexEnabled(settings.read));
  const knowledgeBase = () => indexService.knowledgeBase();
  const runsStore = new RunsStore();
  const navigator = new DocumentNavigator(knowledgeBase);
  const pdfViewer = registerPdfViewer(context.extensionUri, navigator, knowledgeBase, output);
  const runsPanel = new RunsPanel(context.extensionUri, runsStore, async (chunkId, shownRange) => {
    await navigator.openChunk(chunkId, shownRange);
  }, (line) => output.info(line), {
    bytes: async (documentId, selfRef) => (await knowledgeBase()).pictureBytes(documentId, selfRef),
    open: openPicture,
  });
  const sectionsTree = new SectionsTreeProvider(() => indexService.openKnowledgeBase, () => indexService.notIndexed);
  const { view: sectionsView, disposable: sectionsViewDisposable } = createSectionsView(sectionsTree);
  const modelProvider = createModelProvider(settings);
  const participant = createParticipant(context, { settings, indexService, runsStore, navigator, output, recorder });

  context.subscriptions.push(
    indexService, navigator, pdfViewer.disposable, runsPanel, sectionsTree, sectionsViewDisposable, participant, modelProvider,
    createStatusBar(indexService),
    registerWalkthroughProgress({ indexService, sectionsView, tabGroups: vscode.window.tabGroups }),
    registerIndexProblems(indexService),
    indexService.onDidChangeNotIndexed(() => sectionsTree.refresh()),
    registerEndpointModelProvider(modelProvider),
    registerHaikuMcpServer(context, settings.getConfig, indexService),
    ...registerTools({ knowledgeBase, relativePathOf: settings.relativePathOf, getConfig: settings.getConfig }),
    registerAnalysisTool(context, settings, output, knowledgeBase),
    registerDocumentRenderings(indexService, knowledgeBase),
    registerPictureView(knowledgeBase),
    ...registerCommands({
      context, indexService, navigator, runsPanel, sectionsTree, output, knowledgeBase,
      relativePathOf: settings.relativePathOf,
      getConfig: settings.getConfig,
      storeApiKey: async (which, key) => {
        const config = settings.getConfig();
        await settings.apiKeys.set(which, key, secretBaseUrls(config)[which]);
        if (which === 'model') {
          modelProvider.refresh();
        } else {
          await indexService.reopen();
        }
      },
    }),
    vscode.commands.registerCommand(COMMANDS.refreshIndex, () => indexService.refreshIndex()),
    indexService.onDidChangeIndex(() => {
      sectionsTree.refresh();
      runsPanel.forgetThumbnails();
    }),
    indexService.onDidChangeStatus((status) => status.state === 'ready' && sectionsTree.refresh()),
    followSettings({ output, indexService, modelProvider }),
    // A key allowed for a new URL (see ApiKeyStore) or changed in another window.
    context.secrets.onDidChange(() => void settings.apiKeys.load().then(() => modelProvider.refresh())),
  );
  if (recorder) {
    context.subscriptions.push(recorder.attach({ participant, indexService, runsPanel, sectionsTree, navigator, pdfViewer: pdfViewer.provider }));
  }

  indexService.start();
  const activationMs = performance.now() - started;
  output.info(`Activated in ${activationMs.toFixed(1)} ms (VS Code ${vscode.version}, ${vscode.env.appName}).`);
  const api: HaikuExtensionApi = {
    apiVersion: HAIKU_API_VERSION,
    indexStatus: () => {
      const { state, documents, chunks } = indexService.current;
      return { state, documents, chunks };
    },
  };
  if (!recorder) {
    return api;
  }
  return {
    ...api,
    testing: Object.defineProperties({
      activationMs, indexService, runsStore, runsPanel, sectionsTree, sectionsView, navigator, pdfViewer: pdfViewer.provider,
      defaultDatabaseUri: settings.defaultDatabaseUri,
      backendLoaded: () => backendBundleLoaded(context.extensionUri.fsPath),
      knowledgeBase,
      config: settings.getConfig,
    }, {
      // Live views of the recorder's fields.
      participantRequests: { get: () => recorder.participantRequests },
      indexJobs: { get: () => recorder.indexJobs },
      renderReports: { get: () => recorder.renderReports },
      treeChildrenRequests: { get: () => recorder.treeChildrenRequests },
      lastHighlight: { get: () => recorder.lastHighlight },
      pdfViewerEvents: { get: () => recorder.pdfViewerEvents },
      highlightShown: { get: () => recorder.highlightShown },
    }) as NonNullable<HaikuExtensionApi['testing']>,
  };
}

export function deactivate(): void {
  // Everything is in context.subscriptions.
}

/** The settings reader, the API keys from secret storage and the core configuration built from both. */
function readSettings(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): ExtensionSettings {
  // `get` (not `inspect`) so untrusted workspaces cannot override the restricted settings (capabilities in package.json).
  const readSetting: SettingReader = (key) => vscode.workspace.getConfiguration('haiku').get(key);
  // The workspace's haiku.config.json lies under the settings the user set explicitly; never read untrusted.
  const fileValues = workspaceConfigFileValues(
    () => (vscode.workspace.isTrusted ? (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file').map((folder) => folder.uri.fsPath) : []),
    (problem) => {
      output.warn(`${problem} Haiku uses its settings without the file until it is fixed.`);
      void vscode.window.showWarningMessage(vscode.l10n.t('Haiku ignores {0}: {1}', CONFIG_FILE_NAME, problem));
    },
  );
  const isExplicitlySet = (key: string): boolean => {
    const inspected = vscode.workspace.getConfiguration('haiku').inspect(key);
    return inspected !== undefined && [inspected.globalValue, inspected.workspaceValue, inspected.workspaceFolderValue].some((value) => value !== undefined);
  };
  const read: SettingReader = (key) => layeredSettingReader(readSetting, isExplicitlySet, fileValues())(key);
  const apiKeys = new ApiKeyStore(context.secrets, output);
  const keysLoaded = apiKeys.load().catch((error: unknown) => output.warn(`Could not read API keys from secret storage: ${String(error)}`));
  const storageFolder = context.storageUri ?? context.globalStorageUri;
  const defaultDatabaseUri = vscode.Uri.joinPath(storageFolder, 'index').fsPath;
  const relativePathOf = (uri: string): string => {
    try {
      return vscode.workspace.asRelativePath(vscode.Uri.parse(uri), (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
    } catch {
      return uri;
    }
  };
  const getConfig = (): HaikuConfig => {
    const workspaceExcludes = excludeGlobsFromWorkspaceSettings(vscode.workspace.getConfiguration('files').get('exclude'), vscode.workspace.getConfiguration('search').get('exclude'));
    const withoutKeys = configFromSettings(read, { defaultDatabaseUri, workspaceExcludes });
    // Each key only for the base URL it was stored for (a workspace's settings may point elsewhere).
    const keys = apiKeys.keysFor(secretBaseUrls(withoutKeys));
    return configFromSettings(read, { defaultDatabaseUri, workspaceExcludes, apiKeys: keys });
  };
  return { read, getConfig, keysLoaded, apiKeys, defaultDatabaseUri, relativePathOf };
}

/** The configured OpenAI-compatible endpoint's models in the chat's model picker. */
function createModelProvider(settings: ExtensionSettings): EndpointModelProvider {
  return new EndpointModelProvider(settings.read, async () => {
    await settings.keysLoaded;
    return settings.getConfig();
  }, async (config, name) => {
    const configured = await loadBackendModule().loadConfiguredModel({ ...config, qa: { ...config.qa, model: { ...config.qa.model, name } } });
    return configured!.model as LanguageModelV3;
  });
}

/** `@haiku`, with its heavy parts (agent, sandbox, configured model) loaded on the first question. */
function createParticipant(
  context: vscode.ExtensionContext,
  parts: { settings: ExtensionSettings; indexService: IndexService; runsStore: RunsStore; navigator: DocumentNavigator; output: vscode.LogOutputChannel; recorder: TestRecorder | undefined },
): HaikuParticipant {
  const { settings, output } = parts;
  return new HaikuParticipant(context.extensionUri, {
    indexService: parts.indexService,
    runsStore: parts.runsStore,
    navigator: parts.navigator,
    getConfig: settings.getConfig,
    configuredModel: async () => {
      await settings.keysLoaded;
      return hasConfiguredEndpoint(settings.read) ? loadBackendModule().loadConfiguredModel(settings.getConfig()) : undefined;
    },
    analysisModel: () => analysisModel(settings),
    loadAgent: () => loadBackendModule().loadAgentModule(),
    loadSandboxFactory: () => loadSandboxFactory(context, settings, output),
    relativePathOf: settings.relativePathOf,
    compactHistory: (messages) => loadBackendModule().compactHistory(messages),
    log: output,
    observeStream: parts.recorder?.observeStream,
    recordFeedback: createFeedbackLog(context.globalStorageUri, output),
  });
}

/** The model `haiku.analysis.model.*` names (the participant's /analyze and the haiku_analyze tool). */
async function analysisModel(settings: ExtensionSettings): Promise<ResolvedModel | undefined> {
  await settings.keysLoaded;
  return configuredAnalysisModel({
    read: settings.read,
    getConfig: settings.getConfig,
    loadConfiguredModel: (config) => loadBackendModule().loadConfiguredModel(config),
    justification: vscode.l10n.t('Haiku analyses your workspace documents by running code over them.'),
  });
}

/** The analysis sandbox, or undefined (logged) when this build cannot start it. */
async function loadSandboxFactory(context: vscode.ExtensionContext, settings: ExtensionSettings, output: vscode.LogOutputChannel): Promise<SandboxFactory | undefined> {
  try {
    return await loadBackendModule().loadSandboxFactory(settings.getConfig(), context.extensionUri.fsPath);
  } catch (error) {
    output.warn(`The analysis sandbox is unavailable: ${String(error)}`);
    return undefined;
  }
}

/** `haiku_analyze`: the analysis model, else the configured endpoint (else the tool picks a chat model). */
function registerAnalysisTool(context: vscode.ExtensionContext, settings: ExtensionSettings, output: vscode.LogOutputChannel, knowledgeBase: () => ReturnType<IndexService['knowledgeBase']>): vscode.Disposable {
  return registerAnalyzeTool({
    knowledgeBase,
    relativePathOf: settings.relativePathOf,
    getConfig: settings.getConfig,
    loadAgent: () => loadBackendModule().loadAgentModule(),
    loadSandboxFactory: () => loadSandboxFactory(context, settings, output),
    configuredModel: async () => {
      const analysis = await analysisModel(settings);
      if (analysis || !hasConfiguredEndpoint(settings.read)) {
        return analysis;
      }
      const configured = await loadBackendModule().loadConfiguredModel(settings.getConfig());
      return configured ? { ...configured, baseUrl: settings.getConfig().qa.model.baseUrl } : undefined;
    },
  });
}

function registerTools(toolContext: Parameters<typeof registerSearchTool>[0]): vscode.Disposable[] {
  return [registerSearchTool(toolContext), registerListDocumentsTool(toolContext), registerReadSectionTool(toolContext), registerReadPictureTool(toolContext)];
}

/** The read-only Markdown renderings of PDF and DOCX documents, reloaded when the index changes. */
function registerDocumentRenderings(indexService: IndexService, knowledgeBase: () => ReturnType<IndexService['knowledgeBase']>): vscode.Disposable {
  const renderingProvider = new DocumentRenderingProvider(knowledgeBase);
  return vscode.Disposable.from(
    renderingProvider,
    vscode.workspace.registerTextDocumentContentProvider(DOCUMENT_SCHEME, renderingProvider),
    indexService.onDidChangeIndex(() => {
      for (const document of vscode.workspace.textDocuments) {
        if (document.uri.scheme === DOCUMENT_SCHEME) {
          renderingProvider.refresh(document.uri);
        }
      }
    }),
  );
}

/** Settings changes: the model picker follows `haiku.model`; index, embeddings, search and exclude settings reopen the index. */
function followSettings(parts: { output: vscode.LogOutputChannel; indexService: IndexService; modelProvider: EndpointModelProvider }): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((event) => {
    if (event.affectsConfiguration('haiku.model')) {
      parts.modelProvider.refresh();
    }
    if (['haiku.index', 'haiku.embeddings', 'haiku.reranker', 'haiku.search', 'files.exclude', 'search.exclude'].some((section) => event.affectsConfiguration(section))) {
      parts.output.info('Index settings changed: reopening the index.');
      void parts.indexService.reopen();
    }
  });
}
