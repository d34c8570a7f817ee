import type { ModelMessage, ToolResultPart } from 'ai';
import { OLD_TOOL_RESULT_MARKER_THRESHOLD } from '../limits';
import { ANALYSIS_SEARCH_TOOL_NAME } from './analysisSearchTool';
import { EXECUTE_CODE_TOOL_NAME } from './executeCodeTool';
import { RAG_SEARCH_TOOL_NAME } from './ragSearchTool';

/** What replaces a large evidence return of an earlier question on the wire. */
export const EARLIER_EVIDENCE_MARKER =
  '[Evidence retrieved for an earlier question; no longer shown. It does not count as evidence for the current question: search again if you need it. Chunk ids cited earlier can still be cited.]';

/** Tools whose returns are evidence (large, and stale once the question that asked for them is answered). */
const EVIDENCE_TOOL_NAMES: ReadonlySet<string> = new Set([RAG_SEARCH_TOOL_NAME, ANALYSIS_SEARCH_TOOL_NAME, EXECUTE_CODE_TOOL_NAME]);

function outputLength(part: ToolResultPart): number {
  const output = part.output;
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value.length;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value ?? null).length;
    case 'content':
      return JSON.stringify(output.value).length;
    default:
      return 0;
  }
}

/**
 * Replaces large evidence-tool returns of earlier questions with a short marker, leaving each tool result in
 * place (same `toolCallId`, same position) so tool-call pairing stays valid. `history` holds only earlier turns;
 * the current question's evidence is produced during the run and never passes through here. Returns new
 * messages; the caller's history is not modified.
 */
export function compactEarlierTurns(history: readonly ModelMessage[], threshold = OLD_TOOL_RESULT_MARKER_THRESHOLD): ModelMessage[] {
  return history.map((message) => {
    if (message.role !== 'tool') {
      return message;
    }
    let changed = false;
    const content = message.content.map((part) => {
      if (part.type !== 'tool-result' || !EVIDENCE_TOOL_NAMES.has(part.toolName) || outputLength(part) <= threshold) {
        return part;
      }
      changed = true;
      return { ...part, output: { type: 'text' as const, value: EARLIER_EVIDENCE_MARKER } };
    });
    return changed ? { ...message, content } : message;
  });
}
