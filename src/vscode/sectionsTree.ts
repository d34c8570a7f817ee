import * as vscode from 'vscode';
import type { SectionNode } from '../core/model/document';
import type { DocumentSummary, StoredItem } from '../core/model/search';
import { buildSectionTree } from '../core/toc';
import { COMMANDS, DOCUMENT_SCHEME, SECTIONS_VIEW_ID } from './contributionIds';
import type { ExtensionKnowledgeBase } from './indexBackend';
import type { PictureTarget } from './pictureView';
import { figureLabel, figuresDirectlyIn } from './pictureViewModel';
import { folderOf, headerItem, sectionPathAtLine, sectionPathAtRenderingLine } from './sectionLocate';
import { notIndexedProblem } from './indexProblems';
import { notIndexedReason, type NotIndexedFile } from './notIndexed';
import { namedLocation } from '../core/sourceRanges';

export type SectionsTreeNode =
  | { kind: 'folder'; key: string; path: string }
  | { kind: 'document'; key: string; document: DocumentSummary }
  | { kind: 'section'; key: string; document: DocumentSummary; section: SectionNode; parentKey: string; startLine?: number; hasFigures?: boolean; place?: string }
  | { kind: 'figure'; key: string; document: DocumentSummary; picture: StoredItem; label: string };

/** The "Not indexed (n)" node, the files under it, and each file's actions (open, setting, retry, log). */
export type NotIndexedNode =
  | { kind: 'notIndexed'; key: string; count: number }
  | { kind: 'notIndexedFile'; key: string; file: NotIndexedFile }
  | { kind: 'notIndexedAction'; key: string; label: string; icon: string; command: vscode.Command };

/** Every node of the Sections view: the documents' outline and the files the index could not index. */
export type SectionsViewNode = SectionsTreeNode | NotIndexedNode;

const NOT_INDEXED_KEY = 'not-indexed';

interface DocumentOutline {
  contentHash: string;
  items: StoredItem[];
  sections: SectionNode[];
}

/**
 * The Sections view: documents grouped by folder, then each document's section tree. Node objects are cached by
 * key so `reveal` and `getParent` see the same instances; everything refreshes when the index changes.
 */
export class SectionsTreeProvider implements vscode.TreeDataProvider<SectionsViewNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<SectionsViewNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private documents: DocumentSummary[] | undefined;
  private readonly outlines = new Map<string, DocumentOutline>();
  private readonly nodes = new Map<string, SectionsTreeNode>();
  private readonly parents = new Map<string, SectionsTreeNode | undefined>();
  private readonly childrenEmitter = new vscode.EventEmitter<SectionsViewNode | undefined>();
  /** Fires when the view asks for the children of a node (undefined: the roots). */
  readonly onDidRequestChildren = this.childrenEmitter.event;

  constructor(
    private readonly knowledgeBase: () => ExtensionKnowledgeBase | undefined,
    /** The files the index could not index: listed under "Not indexed (n)" after the documents. */
    private readonly notIndexed: () => readonly NotIndexedFile[] = () => [],
  ) {}

  refresh(): void {
    this.documents = undefined;
    this.nodes.clear();
    this.parents.clear();
    this.changeEmitter.fire(undefined);
  }

  async listDocuments(): Promise<DocumentSummary[]> {
    const knowledgeBase = this.knowledgeBase();
    if (!knowledgeBase) {
      return [];
    }
    this.documents ??= (await knowledgeBase.listDocuments()).sort((left, right) => left.relativePath.localeCompare(right.relativePath));
    return this.documents;
  }

  async outline(document: DocumentSummary): Promise<DocumentOutline> {
    const cached = this.outlines.get(document.id);
    if (cached && cached.contentHash === document.contentHash) {
      return cached;
    }
    const knowledgeBase = this.knowledgeBase();
    const items = knowledgeBase ? await knowledgeBase.getDocumentItems(document.id) : [];
    const chunkIdsByRef = new Map(items.map((item) => [item.selfRef, item.chunkIds]));
    const outline = { contentHash: document.contentHash, items, sections: buildSectionTree(items, chunkIdsByRef) };
    this.outlines.set(document.id, outline);
    return outline;
  }

  private node<T extends SectionsTreeNode>(node: T, parent: SectionsTreeNode | undefined): T {
    const existing = this.nodes.get(node.key) as T | undefined;
    if (existing) {
      return existing;
    }
    this.nodes.set(node.key, node);
    this.parents.set(node.key, parent);
    return node;
  }

  async getChildren(element?: SectionsViewNode): Promise<SectionsViewNode[]> {
    this.childrenEmitter.fire(element);
    if (element && isNotIndexedNode(element)) {
      return this.notIndexedChildren(element);
    }
    const documents = await this.listDocuments();
    if (!element) {
      const folders = [...new Set(documents.map((document) => folderOf(document.relativePath)))].filter((folder) => folder !== '').sort();
      const topLevel = documents.filter((document) => folderOf(document.relativePath) === '');
      const failed = this.notIndexed();
      return [
        ...folders.map((folder) => this.node({ kind: 'folder', key: `folder:${folder}`, path: folder }, undefined)),
        ...topLevel.map((document) => this.documentNode(document, undefined)),
        ...(failed.length > 0 ? [{ kind: 'notIndexed', key: NOT_INDEXED_KEY, count: failed.length } as const] : []),
      ];
    }
    if (element.kind === 'folder') {
      return documents.filter((document) => folderOf(document.relativePath) === element.path).map((document) => this.documentNode(document, element));
    }
    if (element.kind === 'figure') {
      return [];
    }
    const outline = await this.outline(element.document);
    const sections = element.kind === 'document' ? outline.sections : element.section.children;
    // Figures come after the subsections: outside every subsection, they belong to this level's own text.
    const figures = figuresDirectlyIn(outline.items, element.kind === 'document' ? undefined : element.section.itemRange, sections);
    return [
      ...sections.map((section) => this.sectionNode(element.document, section, outline.items, element)),
      ...figures.map((picture) => this.node({ kind: 'figure', key: `figure:${element.document.id}:${picture.selfRef}`, document: element.document, picture, label: figureLabel(picture, outline.items) }, element)),
    ];
  }

  private documentNode(document: DocumentSummary, parent: SectionsTreeNode | undefined): SectionsTreeNode {
    return this.node({ kind: 'document', key: `document:${document.id}`, document }, parent);
  }

  private sectionNode(document: DocumentSummary, section: SectionNode, items: readonly StoredItem[], parent: SectionsTreeNode): SectionsTreeNode {
    const hasFigures = figuresDirectlyIn(items, section.itemRange, section.children).length > 0;
    const header = headerItem(section, items);
    // Slides, sheets and notebook cells go by their own names ("slide 3"), not by page or JSON line.
    const place = namedLocation(header?.sourceRange);
    return this.node({ kind: 'section', key: `section:${document.id}:${section.selfRef}`, document, section, parentKey: parent.key, startLine: header?.sourceRange?.startLine, hasFigures, place }, parent);
  }

  /** Under "Not indexed": each file; under a file: what to do about it. */
  private notIndexedChildren(element: NotIndexedNode): NotIndexedNode[] {
    if (element.kind === 'notIndexed') {
      return this.notIndexed().map((file) => ({ kind: 'notIndexedFile', key: `${NOT_INDEXED_KEY}:${file.fsPath}`, file }));
    }
    if (element.kind === 'notIndexedAction') {
      return [];
    }
    const uri = vscode.Uri.file(element.file.fsPath);
    const problem = notIndexedProblem(element.file);
    const action = (name: string, label: string, icon: string, command: vscode.Command): NotIndexedNode => ({ kind: 'notIndexedAction', key: `${element.key}:${name}`, label, icon, command });
    return [
      action('open', vscode.l10n.t('Open File'), 'go-to-file', { command: 'vscode.open', title: vscode.l10n.t('Open File'), arguments: [uri] }),
      ...(problem.openSetting && problem.setting ? [action('setting', vscode.l10n.t('Open Setting {0}', problem.setting), 'settings-gear', problem.openSetting)] : []),
      action('retry', vscode.l10n.t('Retry (index this file again)'), 'refresh', { command: COMMANDS.indexCurrentFile, title: vscode.l10n.t('Retry'), arguments: [uri] }),
      action('log', vscode.l10n.t('Show Log'), 'output', { command: COMMANDS.showOutput, title: vscode.l10n.t('Show Log') }),
    ];
  }

  getParent(element: SectionsViewNode): SectionsViewNode | undefined {
    if (isNotIndexedNode(element)) {
      // The actions' parents are not kept: only the documents' nodes are revealed.
      return element.kind === 'notIndexedFile' ? { kind: 'notIndexed', key: NOT_INDEXED_KEY, count: this.notIndexed().length } : undefined;
    }
    return this.parents.get(element.key);
  }

  getTreeItem(element: SectionsViewNode): vscode.TreeItem {
    switch (element.kind) {
      case 'notIndexed': {
        const item = new vscode.TreeItem(vscode.l10n.t('Not indexed ({0})', element.count), vscode.TreeItemCollapsibleState.Expanded);
        item.id = element.key;
        item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
        item.tooltip = vscode.l10n.t('Files Haiku could not index, with the reason; the Problems panel lists them too.');
        item.contextValue = 'haiku.notIndexed';
        return item;
      }
      case 'notIndexedFile': {
        const uri = vscode.Uri.file(element.file.fsPath);
        const item = new vscode.TreeItem(uri, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = element.key;
        item.label = vscode.workspace.asRelativePath(uri, false);
        const problem = notIndexedProblem(element.file);
        item.description = notIndexedReason(element.file);
        item.tooltip = problem.message;
        item.iconPath = new vscode.ThemeIcon('warning');
        item.contextValue = 'haiku.notIndexedFile';
        item.command = { command: 'vscode.open', title: vscode.l10n.t('Open File'), arguments: [uri] };
        return item;
      }
      case 'notIndexedAction': {
        const item = new vscode.TreeItem(element.label, vscode.TreeItemCollapsibleState.None);
        item.id = element.key;
        item.iconPath = new vscode.ThemeIcon(element.icon);
        item.command = element.command;
        item.contextValue = 'haiku.notIndexedAction';
        return item;
      }
      case 'folder': {
        const item = new vscode.TreeItem(element.path, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = element.key;
        item.iconPath = vscode.ThemeIcon.Folder;
        item.contextValue = 'haiku.folder';
        return item;
      }
      case 'document': {
        const document = element.document;
        const item = new vscode.TreeItem(document.title || document.relativePath, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = element.key;
        item.description = document.relativePath.split('/').pop();
        item.tooltip = `${document.relativePath} (${document.format})`;
        item.resourceUri = vscode.Uri.parse(document.uri);
        item.iconPath = vscode.ThemeIcon.File;
        item.contextValue = `haiku.document.${document.format}`;
        item.command = { command: COMMANDS.openSection, title: vscode.l10n.t('Open'), arguments: [element] };
        return item;
      }
      case 'section': {
        const section = element.section;
        const item = new vscode.TreeItem(section.title, section.children.length > 0 || element.hasFigures ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        item.id = element.key;
        const page = element.place ?? (section.pageNumbers.length > 0 ? `p. ${section.pageNumbers[0]}` : undefined);
        item.description = page ?? (element.startLine !== undefined ? `L${element.startLine + 1}` : undefined);
        item.tooltip = `${element.document.relativePath} › ${section.title}${page ? ` (${page})` : ''} — ${section.chunkIds.length} chunks`;
        item.iconPath = new vscode.ThemeIcon('symbol-string');
        item.contextValue = 'haiku.section';
        item.command = { command: COMMANDS.openSection, title: vscode.l10n.t('Open Section'), arguments: [element] };
        return item;
      }
      case 'figure': {
        const picture = element.picture;
        const item = new vscode.TreeItem(element.label, vscode.TreeItemCollapsibleState.None);
        item.id = element.key;
        const page = namedLocation(picture.sourceRange) ?? (picture.pageNumbers.length > 0 ? `p. ${picture.pageNumbers[0]}` : undefined);
        item.description = page;
        item.tooltip = `${element.document.relativePath} › ${element.label}${picture.picture ? ` (${picture.picture.width}×${picture.picture.height})` : ` — ${vscode.l10n.t('no image stored')}`}`;
        item.iconPath = new vscode.ThemeIcon('file-media');
        item.contextValue = picture.picture ? 'haiku.figure' : 'haiku.figure.captionOnly';
        const target: PictureTarget = { documentId: element.document.id, selfRef: picture.selfRef, documentPath: element.document.relativePath, mimeType: picture.picture?.mimeType };
        // A figure without stored bytes (vector-only, or indexed with pictures: none) opens its place in the document.
        item.command = picture.picture
          ? { command: COMMANDS.openPicture, title: vscode.l10n.t('Open Picture'), arguments: [target] }
          : { command: COMMANDS.openSection, title: vscode.l10n.t('Open Section'), arguments: [this.parents.get(element.key) ?? element] };
        return item;
      }
    }
  }

  /**
   * The tree node of the innermost section at `line` of a source file (by URI) or of a rendering (`haiku-doc`,
   * by the Markdown heading above the line), building parents on the way.
   */
  async nodeAt(uri: string, line: number, renderingText?: string): Promise<SectionsTreeNode | undefined> {
    const documents = await this.listDocuments();
    const parsed = vscode.Uri.parse(uri);
    const document = parsed.scheme === DOCUMENT_SCHEME
      ? documents.find((candidate) => candidate.id === parsed.query)
      : documents.find((candidate) => candidate.uri === uri);
    if (!document) {
      return undefined;
    }
    const folder = folderOf(document.relativePath);
    const folderNode = folder === '' ? undefined : this.node({ kind: 'folder', key: `folder:${folder}`, path: folder } as SectionsTreeNode, undefined);
    let parent = this.documentNode(document, folderNode);
    const outline = await this.outline(document);
    const path = renderingText !== undefined ? sectionPathAtRenderingLine(outline.sections, renderingText, line) : sectionPathAtLine(outline.sections, outline.items, line);
    for (const section of path) {
      parent = this.sectionNode(document, section, outline.items, parent);
    }
    return parent;
  }

  dispose(): void {
    this.changeEmitter.dispose();
    this.childrenEmitter.dispose();
  }
}

/** Creates the view and keeps the selection on the section under the active editor's cursor (when visible). */
export function createSectionsView(provider: SectionsTreeProvider): { view: vscode.TreeView<SectionsViewNode>; disposable: vscode.Disposable } {
  const view = vscode.window.createTreeView(SECTIONS_VIEW_ID, { treeDataProvider: provider, showCollapseAll: true });
  let timer: NodeJS.Timeout | undefined;
  const follow = (editor: vscode.TextEditor | undefined): void => {
    if (timer) {
      clearTimeout(timer);
    }
    timer = setTimeout(async () => {
      timer = undefined;
      const scheme = editor?.document.uri.scheme;
      if (!editor || !view.visible || (scheme !== 'file' && scheme !== DOCUMENT_SCHEME)) {
        return;
      }
      try {
        const rendering = scheme === DOCUMENT_SCHEME ? editor.document.getText() : undefined;
        const node = await provider.nodeAt(editor.document.uri.toString(), editor.selection.active.line, rendering);
        if (node && node.kind !== 'folder') {
          await view.reveal(node, { select: true, focus: false, expand: false });
        }
      } catch {
        // Revealing is a convenience; a tree that changed meanwhile is fine to skip.
      }
    }, 300);
  };
  const subscriptions = [
    view,
    vscode.window.onDidChangeActiveTextEditor(follow),
    vscode.window.onDidChangeTextEditorSelection((event) => follow(event.textEditor)),
    view.onDidChangeVisibility(() => follow(vscode.window.activeTextEditor)),
  ];
  return { view, disposable: vscode.Disposable.from(...subscriptions, { dispose: () => timer && clearTimeout(timer) }) };
}

function isNotIndexedNode(node: SectionsViewNode): node is NotIndexedNode {
  return node.kind === 'notIndexed' || node.kind === 'notIndexedFile' || node.kind === 'notIndexedAction';
}
