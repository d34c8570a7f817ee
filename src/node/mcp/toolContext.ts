import type { AgentSettings } from '../../core/agent/runAgent';
import type { OpenAiCompatibleModel } from '../agent/openAiCompatibleModel';
import type { Embedder } from '../../core/embeddings/embedder';
import type { CodeSandboxLimits } from '../sandbox/codeSandbox';
import type { LanceStore } from '../store/lanceStore';
import type { CodeSession } from './codeSession';

/** What every MCP tool of one session works with: the shared index, the session's sandbox, the server's settings. */
export interface McpToolContext {
  store: LanceStore;
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
  /** Relative file paths of the write tools resolve against this folder, which is also the documents' base folder. */
  cwd: string;
  embedder?: Embedder;
  /** Fires when the server shuts down; every tool's work is cancelled with it. */
  abortSignal: AbortSignal;
}
