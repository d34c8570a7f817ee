import type { SearchResult } from '../model/search';
import type { Citation, ExecutionRecord } from './conversationState';

/** Where a search came from: the rag tool set, the analysis tool set, or code inside the sandbox. */
export type SearchSource = 'rag_search' | 'search' | 'sandbox';

/** What a run reports while it works, so a UI can stream "Searching…", the answer text and references. */
export type AgentEvent =
  /** `stepNumber`: the model response the text belongs to (text beside tool calls is often "Let me search…"). */
  | { type: 'text-delta'; text: string; stepNumber?: number }
  | { type: 'search-started'; source: SearchSource; query: string; toolCallId?: string }
  | { type: 'search-finished'; source: SearchSource; query: string; resultCount: number; results?: SearchResult[]; toolCallId?: string; refused?: boolean; error?: string }
  /** Vision on: the pictures a search return showed the model (fetch their bytes from the store to display them). */
  | { type: 'pictures-attached'; source: SearchSource; toolCallId: string; pictures: Array<{ documentId: string; selfRef: string; chunkId: string; mediaType: string }> }
  | { type: 'execution-started'; code: string; toolCallId: string }
  | { type: 'execution-finished'; execution: ExecutionRecord; toolCallId: string }
  | { type: 'citation-added'; citation: Citation }
  | { type: 'step-finished'; stepNumber: number; toolNames: string[]; finishReason: string };

export type AgentEventListener = (event: AgentEvent) => void;
