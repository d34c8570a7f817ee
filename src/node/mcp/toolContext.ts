import type { AgentSettings } from '../../core/agent/runAgent';
import type { OpenAiCompatibleModel } from '../agent/openAiCompatibleModel';
import type { Embedder } from '../../core/embeddings/embedder';
import type { CodeSandboxLimits } from '../sandbox/codeSandbox';
import type { OpenedIndex } from '../backend/openIndex';
import type { LanceStore } from '../store/lanceStore';
import type { CodeSession } from './codeSession';

/** What every MCP tool of one session works with: the shared index, the session's sandbox, the server's settings. */
export interface McpToolContext {
  store: LanceStore;
  /** The opened index: its search options (limit, context size), index rules and write policy from the configuration. */
  index: OpenedIndex;
  /** Brings the store up to date with writes of other processes; called before each tool runs. */
  refreshIfChanged(): Promise<void>;
  /** The model of `ask_question`/`analyze`; throws an `invalid_settings` error naming the flags when none is set. */
  model(): OpenAiCompatibleModel;
  /** The model of `analyze`: the analysis model when one is set, else `model()`. */
  analysisModel(): OpenAiCompatibleModel;
  sandboxLimits: CodeSandboxLimits;
  /** Budgets, prompts and sampling of ask_question/analyze; absent, the defaults. */
  agentSettings?: AgentSettings;
  codeSession: CodeSession;
  /** Relative file paths of `add_document_from_file` resolve against this folder (the server's working folder). */
  cwd: string;
  /** add_document_from_url may fetch from loopback addresses (`haiku mcp --allow-loopback-urls`). */
  allowLoopbackUrls?: boolean;
  embedder?: Embedder;
  /** Fires when the server shuts down; every tool's work is cancelled with it. */
  abortSignal: AbortSignal;
}

/** What a tool says when no document matches a reference. */
export const MCP_DOCUMENT_LIST_HINT = 'Call list_documents for the ids and paths.';
