import * as vscode from 'vscode';
import type { IndexService, IndexStatus } from './indexService';

/**
 * Context keys the walkthrough's steps complete on (`completionEvents: onContext:<key>` in package.json). The
 * workbench checks a step off when its expression becomes true; an expression already true when the walkthrough is
 * registered is never checked off in that session, so these start false at activation and turn true on the event.
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
}

/** Keeps the walkthrough's context keys in step with the index and the Sections view. */
export function registerWalkthroughProgress({ indexService, sectionsView }: WalkthroughSources): vscode.Disposable {
  const values = new Map<string, boolean>();
  const set = (key: string, value: boolean): void => {
    if (values.get(key) !== value) {
      values.set(key, value);
      void vscode.commands.executeCommand('setContext', key, value);
    }
  };
  const followIndex = (status: IndexStatus): void => set(WALKTHROUGH_CONTEXT_KEYS.indexReady, status.state === 'ready');
  const followView = (visible: boolean): void => set(WALKTHROUGH_CONTEXT_KEYS.sectionsVisible, visible);
  set(WALKTHROUGH_CONTEXT_KEYS.indexReady, false);
  set(WALKTHROUGH_CONTEXT_KEYS.sectionsVisible, false);
  followIndex(indexService.current);
  followView(sectionsView.visible);
  return vscode.Disposable.from(
    indexService.onDidChangeStatus(followIndex),
    sectionsView.onDidChangeVisibility((event) => followView(event.visible)),
  );
}
