import * as vscode from 'vscode';
import type { HaikuConfig } from '../../core/config';
import type { DocumentSummary, StoredItem } from '../../core/model/search';
import type { ExtensionKnowledgeBase } from '../indexBackend';
import { documentFilterFor, matchDocument } from '../../core/documents/documentAccess';
import { isHaikuError } from '../../core/errors';
import { DOCUMENT_CANDIDATES_SHOWN } from '../../core/limits';

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

/** What a tool says when no document matches a reference. */
export const TOOL_DOCUMENT_LIST_HINT = 'Call haiku_listDocuments for the ids and paths.';

/** The document a tool's input names (id, path or unique path suffix) with its items, or the result saying none matches. */
export async function documentForTool(
  context: ToolContext,
  reference: string | undefined,
  token: vscode.CancellationToken,
): Promise<{ knowledgeBase: ExtensionKnowledgeBase; document: DocumentSummary; items: StoredItem[] } | vscode.LanguageModelToolResult> {
  const knowledgeBase = await context.knowledgeBase();
  const documents = await knowledgeBase.listDocuments({ abortSignal: signalOf(token) });
  const { document, candidates } = matchDocument(documents, reference ?? '');
  if (!document) {
    return textResult(candidates.length > 1
      ? `"${reference}" matches ${candidates.length} documents: ${candidates.slice(0, DOCUMENT_CANDIDATES_SHOWN).map((candidate) => candidate.relativePath).join(', ')}. Give more of the path, or the document id.`
      : `No indexed document matches "${reference}". ${TOOL_DOCUMENT_LIST_HINT}`);
  }
  return { knowledgeBase, document, items: await knowledgeBase.getDocumentItems(document.id) };
}

/**
 * The filter a tool's optional `path` input names (the document by id, path or unique path suffix, as the other
 * tools take it), or the result saying no document matches.
 */
export async function documentFilterForTool(
  knowledgeBase: ExtensionKnowledgeBase,
  reference: string | undefined,
  token: vscode.CancellationToken,
): Promise<{ filter: string | undefined } | vscode.LanguageModelToolResult> {
  try {
    return { filter: await documentFilterFor(knowledgeBase, reference, { listHint: TOOL_DOCUMENT_LIST_HINT, abortSignal: signalOf(token) }) };
  } catch (error) {
    if (isHaikuError(error, 'not_found')) {
      return textResult(error.message);
    }
    throw error;
  }
}
