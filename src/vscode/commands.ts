import * as vscode from 'vscode';
import type { HaikuConfig } from '../core/config';
import { errorMessage } from '../core/errors';
import { plainCitation } from './citationFormat';
import { vscodeErrorText } from './errorWording';
import { COMMANDS, type CommandId } from './contributionIds';
import { opensAsRendering } from './sectionLocate';
import { renderingUri, type DocumentNavigator, type JumpContext } from './documentNavigation';
import type { ExtensionKnowledgeBase } from './indexBackend';
import type { IndexService } from './indexService';
import { insertCitation } from './insertCitation';
import type { RunsPanel } from './runs/runsPanel';
import { showSearchQuickPick } from './searchQuickPick';
import type { SectionsTreeNode, SectionsTreeProvider } from './sectionsTree';
import { SECRET_KEYS } from './settingsMapping';

export interface CommandDependencies {
  context: vscode.ExtensionContext;
  indexService: IndexService;
  navigator: DocumentNavigator;
  runsPanel: RunsPanel;
  sectionsTree: SectionsTreeProvider;
  output: vscode.LogOutputChannel;
  knowledgeBase: () => Promise<ExtensionKnowledgeBase>;
  relativePathOf: (uri: string) => string;
  getConfig: () => HaikuConfig;
  /** Stores (or, when empty, removes) an endpoint's API key, bound to the endpoint's current base URL, and reloads what uses it. */
  storeApiKey: (which: keyof typeof SECRET_KEYS, key: string) => Promise<void>;
}

/** Runs a command body and turns a failure into an error notification with the actionable message. */
function guarded<T extends unknown[]>(output: vscode.LogOutputChannel, body: (...args: T) => unknown): (...args: T) => Promise<unknown> {
  return async (...args: T) => {
    try {
      return await body(...args);
    } catch (error) {
      output.error(errorMessage(error));
      const showLog = vscode.l10n.t('Show Log');
      void vscode.window.showErrorMessage(vscode.l10n.t('Haiku: {0}', vscodeErrorText(error, vscode.l10n.t)), showLog).then((choice) => choice === showLog && output.show());
      return undefined;
    }
  };
}

/** Every command of package.json, registered by its id constant. */
export function registerCommands(dependencies: CommandDependencies): vscode.Disposable[] {
  const { indexService, navigator, runsPanel, sectionsTree, output, knowledgeBase, relativePathOf } = dependencies;
  const register = <T extends unknown[]>(id: CommandId, body: (...args: T) => unknown): vscode.Disposable => vscode.commands.registerCommand(id, guarded(output, body));

  return [
    register(COMMANDS.buildIndex, async () => {
      await indexService.build();
      const status = indexService.current;
      void vscode.window.showInformationMessage(vscode.l10n.t('Haiku: index built — {0} documents, {1} chunks.', status.documents, status.chunks));
    }),
    register(COMMANDS.rebuildIndex, async () => {
      await indexService.rebuild();
      const status = indexService.current;
      void vscode.window.showInformationMessage(vscode.l10n.t('Haiku: index rebuilt — {0} documents, {1} chunks.', status.documents, status.chunks));
    }),
    register(COMMANDS.pauseIndexing, () => indexService.pause()),
    register(COMMANDS.resumeIndexing, () => indexService.resume()),
    register(COMMANDS.indexCurrentFile, async (uri?: vscode.Uri) => {
      const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
      if (!target || target.scheme !== 'file') {
        void vscode.window.showInformationMessage(vscode.l10n.t('Haiku: open a workspace file (Markdown, HTML, PDF, DOCX or text) to index it.'));
        return;
      }
      await indexService.indexFiles([target]);
      vscode.window.setStatusBarMessage(vscode.l10n.t('Haiku: indexed {0}', relativePathOf(target.toString())), 3000);
    }),
    register(COMMANDS.showOutput, () => output.show()),
    register(COMMANDS.setApiKey, async (which?: keyof typeof SECRET_KEYS, value?: string) => {
      const choices: Array<vscode.QuickPickItem & { key: keyof typeof SECRET_KEYS }> = [
        { key: 'model', label: vscode.l10n.t('Chat model endpoint'), description: 'haiku.model.baseUrl' },
        { key: 'embeddings', label: vscode.l10n.t('Embeddings endpoint'), description: 'haiku.embeddings.baseUrl' },
        { key: 'reranker', label: vscode.l10n.t('Reranker endpoint'), description: 'haiku.reranker.baseUrl' },
        { key: 'storageAccessKeyId', label: vscode.l10n.t('Object storage access key id (team index)'), description: 'haiku.index.storage.endpoint' },
        { key: 'storageSecretAccessKey', label: vscode.l10n.t('Object storage secret access key (team index)'), description: 'haiku.index.storage.endpoint' },
      ];
      const key = which ?? (await vscode.window.showQuickPick(choices, { title: vscode.l10n.t('Haiku: Set API Key'), placeHolder: vscode.l10n.t('Which endpoint is the key for?') }))?.key;
      if (!key) {
        return;
      }
      const secret = value ?? await vscode.window.showInputBox({ title: vscode.l10n.t('API key for the {0} endpoint', key), prompt: vscode.l10n.t('Stored in VS Code\'s secret storage and sent only to the endpoint\'s current base URL. Leave empty to remove the key.'), password: true, ignoreFocusOut: true });
      if (secret === undefined) {
        return;
      }
      await dependencies.storeApiKey(key, secret);
      vscode.window.setStatusBarMessage(secret === '' ? vscode.l10n.t('Haiku: {0} API key removed', key) : vscode.l10n.t('Haiku: {0} API key saved', key), 3000);
    }),
    register(COMMANDS.insertCitation, (options?: { query?: string; pickFirst?: boolean }) =>
      insertCitation(knowledgeBase, relativePathOf, { initialQuery: options?.query, pickFirst: options?.pickFirst })),
    // No model involved: a string argument (the chat's guidance button, a test) starts the pick with that query.
    register(COMMANDS.search, (query?: unknown) =>
      showSearchQuickPick(knowledgeBase, relativePathOf, (message) => output.warn(message), {
        initialQuery: typeof query === 'string' ? query : undefined,
        indexChanged: indexService.onDidFinishJob,
      })),
    register(COMMANDS.showRuns, (runId?: string) => runsPanel.show(typeof runId === 'string' ? runId : undefined)),
    register(COMMANDS.openChunk, async (chunkId: string, context?: JumpContext) => {
      await navigator.openChunk(chunkId, context);
    }),
    register(COMMANDS.openSection, async (node: SectionsTreeNode) => {
      if (node.kind === 'document') {
        const document = node.document;
        await vscode.commands.executeCommand('vscode.open', opensAsRendering(document.format) ? renderingUri(document) : vscode.Uri.parse(document.uri));
      } else if (node.kind === 'section') {
        await navigator.openSection(node.document, { title: node.section.title, startLine: node.startLine, selfRef: node.section.selfRef, page: node.section.pageNumbers[0] });
      }
    }),
    register(COMMANDS.askAboutSection, async (node?: SectionsTreeNode) => {
      const target = node;
      if (!target || target.kind === 'folder') {
        return;
      }
      const query = target.kind === 'section'
        ? `@haiku What does the section "${target.section.title}" of ${target.document.relativePath} say?`
        : `@haiku Summarize ${target.document.relativePath}.`;
      await vscode.commands.executeCommand('workbench.action.chat.open', { query, isPartialQuery: true });
      return query;
    }),
    register(COMMANDS.copyCitation, async (node?: SectionsTreeNode) => {
      if (!node || node.kind === 'folder') {
        return undefined;
      }
      const document = node.document;
      let text: string;
      if (node.kind === 'section') {
        const outline = await sectionsTree.outline(document);
        const header = outline.items.find((item) => item.selfRef === node.section.selfRef);
        const trail = trailOf(outline.sections, node.section.selfRef) ?? [node.section.title];
        text = plainCitation({ title: document.title, headings: trail, pageNumbers: node.section.pageNumbers, sourceRange: header?.sourceRange }, document.relativePath);
      } else {
        text = `${document.title} — ${document.relativePath}`;
      }
      await vscode.env.clipboard.writeText(text);
      vscode.window.setStatusBarMessage(vscode.l10n.t('Haiku: citation copied'), 3000);
      return text;
    }),
    register(COMMANDS.reindexDocument, async (node?: SectionsTreeNode) => {
      if (!node || node.kind === 'folder') {
        return;
      }
      await indexService.indexFiles([vscode.Uri.parse(node.document.uri)]);
    }),
  ];
}

/** Titles from the root to the section with this selfRef. */
function trailOf(sections: readonly import('../core/model/document').SectionNode[], selfRef: string): string[] | undefined {
  for (const section of sections) {
    if (section.selfRef === selfRef) {
      return [section.title];
    }
    const below = trailOf(section.children, selfRef);
    if (below) {
      return [section.title, ...below];
    }
  }
  return undefined;
}
