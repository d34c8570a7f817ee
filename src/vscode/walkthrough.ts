import * as vscode from 'vscode';
import type { IndexService } from './indexService';

/**
 * Context keys the walkthrough's steps complete on (`completionEvents: onContext:<key>` in package.json). The
 * workbench checks a step off when its expression turns true while its walkthrough service runs; that service starts
 * only when a workbench page such as Welcome first opens (seen in code-server 4.139: events before it are lost), and an
 * expression already true then is recorded as seen and never checks its step in that session. So the keys stay false
 * until such a page has opened in this window, then follow the index and the Sections view.
 */
export const WALKTHROUGH_CONTEXT_KEYS = {
  /** The workspace index is ready (built now, or already built when the window opened). */
  indexReady: 'haiku.indexReady',
  /** The Sections view is showing (opened now, or restored open). */
  sectionsVisible: 'haiku.sectionsVisible',
} as const;

/** What the keys follow: the index's state and the Sections view's visibility (a `TreeView`). */
export interface WalkthroughSources {
  indexService: Pick<IndexService, 'current' | 'onDidChangeStatus'>;
  sectionsView: Pick<vscode.TreeView<unknown>, 'visible' | 'onDidChangeVisibility'>;
  tabGroups: Pick<vscode.TabGroups, 'all' | 'onDidChangeTabs'>;
}

/** A workbench page (Welcome, a walkthrough, Settings): the extension API gives such tabs no input. */
function workbenchPageOpen(tabGroups: WalkthroughSources['tabGroups']): boolean {
  return tabGroups.all.some((group) => group.tabs.some((tab) => tab.input === undefined));
}

/** Keeps the walkthrough's context keys in step with the index and the Sections view. */
export function registerWalkthroughProgress({ indexService, sectionsView, tabGroups }: WalkthroughSources): vscode.Disposable {
  const values = new Map<string, boolean>();
  const set = (key: string, value: boolean): void => {
    if (values.get(key) !== value) {
      values.set(key, value);
      void vscode.commands.executeCommand('setContext', key, value);
    }
  };
  let walkthroughServiceRuns = false;
  const update = (): void => {
    walkthroughServiceRuns ||= workbenchPageOpen(tabGroups);
    set(WALKTHROUGH_CONTEXT_KEYS.indexReady, walkthroughServiceRuns && indexService.current.state === 'ready');
    set(WALKTHROUGH_CONTEXT_KEYS.sectionsVisible, walkthroughServiceRuns && sectionsView.visible);
  };
  update();
  return vscode.Disposable.from(
    indexService.onDidChangeStatus(update),
    sectionsView.onDidChangeVisibility(update),
    tabGroups.onDidChangeTabs(update),
  );
}
