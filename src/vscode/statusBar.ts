import * as vscode from 'vscode';
import { COMMANDS, CONTEXT_KEYS } from './contributionIds';
import type { IndexService, IndexStatus } from './indexService';

/** What the status-bar item says for a status (pure; exported for tests). */
export function statusBarText(status: IndexStatus): { text: string; tooltip: string } {
  const counts = `${status.documents} documents, ${status.chunks} chunks`;
  switch (status.state) {
    case 'waiting-for-trust':
      return { text: '$(shield) Haiku', tooltip: 'Haiku waits for workspace trust before indexing.' };
    case 'starting':
      return { text: '$(loading~spin) Haiku', tooltip: 'Haiku is opening its index.' };
    case 'indexing': {
      const progress = status.progress && status.progress.total > 0 ? ` ${status.progress.done}/${status.progress.total}` : '';
      return { text: `$(sync~spin) Haiku${progress}`, tooltip: `Indexing… (${counts}). Click to pause.` };
    }
    case 'paused':
      return { text: '$(debug-pause) Haiku', tooltip: `Indexing paused (${counts}). Click to resume.` };
    case 'error':
      return { text: '$(error) Haiku', tooltip: `Indexing failed: ${status.message ?? 'unknown error'}. Click to see the log.` };
    case 'ready':
      return { text: `$(book) ${status.documents}`, tooltip: `Haiku index ready: ${counts}.` };
  }
}

/** The status-bar item: state and counts; a click pauses, resumes or shows the log depending on the state. */
export function createStatusBar(indexService: IndexService): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('haiku.status', vscode.StatusBarAlignment.Left, 10);
  item.name = 'Haiku Index';
  const update = (status: IndexStatus): void => {
    const { text, tooltip } = statusBarText(status);
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
