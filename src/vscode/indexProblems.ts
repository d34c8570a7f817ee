import * as vscode from 'vscode';
import { vscodeRemedy } from './errorWording';
import type { IndexService } from './indexService';
import { notIndexedReason, remedySettingOf, type NotIndexedFile } from './notIndexed';

/** The diagnostics' source and collection name, as the Problems panel shows them. */
export const PROBLEMS_SOURCE = 'Haiku';

/** How a file not indexed reads in VS Code: the reason, then the setting that fixes it (with its Settings-editor command). */
export function notIndexedProblem(file: NotIndexedFile): { message: string; setting?: string; openSetting?: vscode.Command } {
  const setting = remedySettingOf(file);
  const remedy = setting ? vscodeRemedy({ settings: [setting] }, vscode.l10n.t) : undefined;
  const settingName = remedy?.button.command === 'workbench.action.openSettings' ? String(remedy.button.arguments?.[0]) : undefined;
  return {
    message: remedy ? `${vscode.l10n.t('Not indexed: {0}', notIndexedReason(file))} ${remedy.text}` : vscode.l10n.t('Not indexed: {0}', notIndexedReason(file)),
    setting: settingName,
    openSetting: remedy ? { command: remedy.button.command, title: remedy.button.title, arguments: remedy.button.arguments } : undefined,
  };
}

/**
 * Puts the files the index could not index into the Problems panel (one warning at the top of each file), and
 * keeps them in step: a file that indexes later, or is deleted, loses its warning with the next update.
 */
export function registerIndexProblems(indexService: IndexService): vscode.Disposable {
  const collection = vscode.languages.createDiagnosticCollection('haiku');
  const publish = (files: readonly NotIndexedFile[]): void => {
    collection.clear();
    for (const file of files) {
      const problem = notIndexedProblem(file);
      const diagnostic = new vscode.Diagnostic(new vscode.Range(0, 0, 0, 0), problem.message, vscode.DiagnosticSeverity.Warning);
      diagnostic.source = PROBLEMS_SOURCE;
      if (file.code) {
        diagnostic.code = file.code;
      }
      collection.set(vscode.Uri.file(file.fsPath), [diagnostic]);
    }
  };
  publish(indexService.notIndexed);
  return vscode.Disposable.from(collection, indexService.onDidChangeNotIndexed(publish));
}
