import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Embedder } from '../../core/embeddings/embedder';
import type { OpenAiCompatibleModel } from '../agent/openAiCompatibleModel';
import type { CodeSandboxLimits } from '../sandbox/codeSandbox';
import { CodeSession } from './codeSession';
import type { OpenedIndex } from '../backend/openIndex';
import type { McpToolContext } from './toolContext';
import { registerAddDocumentFromFileTool } from './tools/addDocumentFromFileTool';
import { registerAddDocumentFromTextTool } from './tools/addDocumentFromTextTool';
import { registerAddDocumentFromUrlTool } from './tools/addDocumentFromUrlTool';
import { registerAnalyzeTool } from './tools/analyzeTool';
import { registerAskQuestionTool } from './tools/askQuestionTool';
import { registerDeleteDocumentTool } from './tools/deleteDocumentTool';
import { registerExecuteCodeTool } from './tools/executeCodeTool';
import { registerGetDocumentTool } from './tools/getDocumentTool';
import { registerListDocumentsTool } from './tools/listDocumentsTool';
import { registerReadSectionTool } from './tools/readSectionTool';
import { registerSearchDocumentsTool } from './tools/searchDocumentsTool';
import type { AgentSettings } from '../../core/agent/runAgent';

/** The name clients show for this server. */
export const MCP_SERVER_NAME = 'haiku';

const SERVER_INSTRUCTIONS =
  "Haiku's knowledge base of the user's documents. Find passages with search_documents (cite its chunk ids), browse with " +
  'list_documents, get_document and read_section, compute over the whole corpus with execute_code, or let Haiku answer ' +
  'with ask_question (search and cite) or analyze (code over the documents).';

/**
 * One MCP server (one client session) over the shared index: the read tools always, the write tools only when
 * `writable` (not read-only, and over HTTP only with `--allow-writes`).
 */
export function createHaikuMcpServer(context: McpToolContext, options: { writable: boolean; version: string }): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: options.version }, { instructions: SERVER_INSTRUCTIONS });
  registerSearchDocumentsTool(server, context);
  registerListDocumentsTool(server, context);
  registerGetDocumentTool(server, context);
  registerReadSectionTool(server, context);
  registerAskQuestionTool(server, context);
  registerAnalyzeTool(server, context);
  registerExecuteCodeTool(server, context);
  if (options.writable) {
    registerAddDocumentFromFileTool(server, context);
    registerAddDocumentFromUrlTool(server, context);
    registerAddDocumentFromTextTool(server, context);
    registerDeleteDocumentTool(server, context);
  }
  return server;
}

/** What every session of one running server shares. */
export interface HaikuMcpServerOptions {
  /** Opened by `openIndex` with `followOtherWriters`; a read-only index (`--read-only`, `remote-readonly`) gets no write tools. */
  index: OpenedIndex;
  /** Offer add_document_from_file, add_document_from_url, add_document_from_text and delete_document (never on a read-only index; over HTTP only with `--allow-writes`). */
  allowWrites: boolean;
  /** Resolves the model of ask_question/analyze on first use (a server without a model still serves the rest). */
  model: () => OpenAiCompatibleModel;
  /** The model of `analyze` (`--analysis-model`); absent, `model`. */
  analysisModel?: () => OpenAiCompatibleModel;
  embedder?: Embedder;
  sandboxLimits: CodeSandboxLimits;
  /** Budgets, prompts and sampling of ask_question/analyze (the configuration's `qa.*`); absent, the defaults. */
  agentSettings?: AgentSettings;
  /** Relative paths of `add_document_from_file` resolve against this folder. */
  cwd: string;
  /** add_document_from_url may fetch from this machine (loopback addresses; `haiku mcp --allow-loopback-urls`). */
  allowLoopbackUrls?: boolean;
  version: string;
  /** Fires when the server shuts down. */
  abortSignal: AbortSignal;
}

/** One client session: its MCP server and its `execute_code` sandbox, closed together. */
export interface McpSessionServer {
  server: McpServer;
  close(): Promise<void>;
}

export function createSessionServer(options: HaikuMcpServerOptions): McpSessionServer {
  const codeSession = new CodeSession(options.index.store, options.sandboxLimits, options.abortSignal);
  const context: McpToolContext = {
    store: options.index.store,
    index: options.index,
    refreshIfChanged: () => options.index.refreshIfChanged(),
    model: options.model,
    analysisModel: options.analysisModel ?? options.model,
    sandboxLimits: options.sandboxLimits,
    agentSettings: options.agentSettings,
    codeSession,
    cwd: options.cwd,
    allowLoopbackUrls: options.allowLoopbackUrls,
    embedder: options.embedder,
    abortSignal: options.abortSignal,
  };
  const server = createHaikuMcpServer(context, { writable: options.allowWrites && !options.index.readOnly, version: options.version });
  let closing: Promise<void> | undefined;
  return {
    server,
    close: () => (closing ??= server.close().finally(() => codeSession.dispose())),
  };
}
