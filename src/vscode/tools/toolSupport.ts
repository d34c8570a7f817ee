import * as vscode from 'vscode';
import type { HaikuConfig } from '../../core/config';
import type { ExtensionKnowledgeBase } from '../indexBackend';

/** What every language-model tool needs: the store (opened on demand), path display and the settings. */
export interface ToolContext {
  knowledgeBase: () => Promise<ExtensionKnowledgeBase>;
  relativePathOf: (uri: string) => string;
  getConfig: () => HaikuConfig;
}

export function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

/** An AbortSignal that follows a cancellation token. */
export function signalOf(token: vscode.CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (token.isCancellationRequested) {
    controller.abort();
  } else {
    token.onCancellationRequested(() => controller.abort());
  }
  return controller.signal;
}
