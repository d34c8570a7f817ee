import type * as vscode from 'vscode';
import type { HaikuConfig } from '../core/config';
import type { HaikuParticipant } from './chat/participant';
import type { DocumentNavigator } from './documentNavigation';
import type { ExtensionKnowledgeBase } from './indexBackend';
import type { IndexService } from './indexService';
import type { RunsPanel } from './runs/runsPanel';
import type { RunsStore } from './runs/runsStore';
import type { SectionsTreeNode, SectionsTreeProvider } from './sectionsTree';

/**
 * What `activate()` returns: a small typed handle for the in-host test suites (wait for indexing, inspect
 * runs, the tree, what the participant streamed). Not a public API for other extensions.
 */
export interface HaikuExtensionApi {
  /** Wall-clock time `activate` took (ms). */
  readonly activationMs: number;
  readonly indexService: IndexService;
  readonly runsStore: RunsStore;
  readonly runsPanel: RunsPanel;
  readonly sectionsTree: SectionsTreeProvider;
  readonly sectionsView: vscode.TreeView<SectionsTreeNode>;
  readonly participant: HaikuParticipant;
  readonly navigator: DocumentNavigator;
  knowledgeBase(): Promise<ExtensionKnowledgeBase>;
  config(): HaikuConfig;
}
