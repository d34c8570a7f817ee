import * as vscode from 'vscode';
import type { ExtensionKnowledgeBase } from '../indexBackend';

/** What every language-model tool needs: the store (opened on demand) and path display. */
export interface ToolContext {
  knowledgeBase: () => Promise<ExtensionKnowledgeBase>;
  relativePathOf: (uri: string) => string;
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
