import * as vscode from 'vscode';
import { COMMANDS, CONTEXT_KEYS } from './contributionIds';
import type { IndexService, IndexStatus } from './indexService';
import { statusBarText } from './statusText';

/** VS Code's command that opens the Problems panel, where the files not indexed are listed. */
const PROBLEMS_PANEL_COMMAND = 'workbench.actions.view.problems';

/** The status-bar item: state and counts; a click pauses, resumes or shows the log depending on the state. */
export function createStatusBar(indexService: IndexService): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('haiku.status', vscode.StatusBarAlignment.Left, 10);
  item.name = vscode.l10n.t('Haiku Index');
  const update = (status: IndexStatus): void => {
    const { text, tooltip, warning } = statusBarText(status, vscode.l10n.t);
    item.text = text;
    item.tooltip = tooltip;
    item.command = status.state === 'indexing' ? COMMANDS.pauseIndexing
      : status.state === 'paused' ? COMMANDS.resumeIndexing
        : warning ? PROBLEMS_PANEL_COMMAND
          : COMMANDS.showOutput;
    item.backgroundColor = status.state === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.indexState, status.state);
    void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.workspaceUntrusted, status.state === 'waiting-for-trust');
  };
  update(indexService.current);
  item.show();
  const subscription = indexService.onDidChangeStatus(update);
  return vscode.Disposable.from(item, subscription);
}
