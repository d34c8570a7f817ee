import * as vscode from 'vscode';
import { COMMANDS, CONTEXT_KEYS } from './contributionIds';
import type { IndexService, IndexStatus } from './indexService';
import { statusBarText } from './statusText';

/** The status-bar item: state and counts; a click pauses, resumes or shows the log depending on the state. */
export function createStatusBar(indexService: IndexService): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('haiku.status', vscode.StatusBarAlignment.Left, 10);
  item.name = vscode.l10n.t('Haiku Index');
  const update = (status: IndexStatus): void => {
    const { text, tooltip } = statusBarText(status, vscode.l10n.t);
    item.text = text;
    item.tooltip = tooltip;
    item.command = status.state === 'indexing' ? COMMANDS.pauseIndexing
      : status.state === 'paused' ? COMMANDS.resumeIndexing
        : status.state === 'error' ? COMMANDS.showOutput
          : COMMANDS.showOutput;
    item.backgroundColor = status.state === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.indexState, status.state);
    void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.workspaceUntrusted, status.state === 'waiting-for-trust');
  };
  update(indexService.current);
  item.show();
  const subscription = indexService.onDidChangeStatus(update);
  return vscode.Disposable.from(item, subscription);
}
