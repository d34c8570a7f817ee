import { HaikuError } from '../../../core/errors';
import { MCP_HTTP_DEFAULT_PORT } from '../../../core/limits';
import { createOpenAiCompatibleModel, type OpenAiCompatibleModel, type OpenAiCompatibleModelOptions } from '../../agent/openAiCompatibleModel';
import { generateBearerToken, serveHttp } from '../../mcp/httpServer';
import type { HaikuMcpServerOptions } from '../../mcp/mcpServer';
import { serveStdio } from '../../mcp/stdioServer';
import { DEFAULT_CODE_SANDBOX_LIMITS } from '../../sandbox/codeSandbox';
import { booleanFlag, numberFlag, UsageError, type CliCommand, type CommandContext } from '../command';
import { haikuVersion } from '../haikuVersion';
import { commandConfig } from '../../config/cliConfig';
import { ANALYSIS_MODEL_OPTIONS, analysisModelOptions, questionModelOptions, QUESTION_OPTIONS } from '../questions';
import { DATABASE_OPTION, EMBEDDING_OPTIONS, RERANKER_OPTIONS, STORAGE_OPTIONS, embedderFromFlags, openCommandIndex, rerankerFromFlags } from '../indexAccess';
import { agentSettingsFromConfig } from '../../../core/agent/runAgent';

/** The environment variable that sets the bearer token of `haiku mcp --http`. */
export const MCP_TOKEN_VARIABLE = 'HAIKU_MCP_TOKEN';

/** Made on first use, so a server without a model still serves search, browsing and code. */
function lazyModel(options: OpenAiCompatibleModelOptions): () => OpenAiCompatibleModel {
  let model: OpenAiCompatibleModel | undefined;
  return () => {
    if (options.name.trim() === '') {
      throw new HaikuError('invalid_settings', 'ask_question and analyze need a model: restart the server with `haiku mcp --model NAME [--base-url URL]`, or set HAIKU_MODEL (and HAIKU_BASE_URL, HAIKU_API_KEY) in its environment.');
    }
    model ??= createOpenAiCompatibleModel(options);
    return model;
  };
}

function portFlag(context: CommandContext): number {
  const port = numberFlag(context, 'port');
  if (port === undefined) {
    return MCP_HTTP_DEFAULT_PORT;
  }
  if (!booleanFlag(context, 'http')) {
    // A flag that does not fit the command line is a usage error (exit code 2), not a settings problem.
    throw new UsageError('--port applies to --http only; stdio has no port. Add --http, or leave --port out.');
  }
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`--port takes a port number from 0 to 65535 (0 picks a free one), got ${port}.`);
  }
  return port;
}

/** The model flags `ask` takes (base URL, model, key, thinking), without the question-only ones. */
const MODEL_OPTIONS = QUESTION_OPTIONS.filter((option) => /^--(base-url|model|api-key|thinking)\b/.test(option.flags));

export const mcpCommand: CliCommand = {
  name: 'mcp',
  arguments: [],
  summary: 'Serve the index to MCP clients: stdio, or Streamable HTTP on 127.0.0.1 (search, documents, ask, analyze, code)',
  description:
    'Serve the index to MCP clients (Copilot agent mode, Claude, any MCP host): stdio by default, or Streamable HTTP on 127.0.0.1 with --http. Tools: search_documents, list_documents, get_document, read_section, ask_question, analyze, execute_code, and add_document_from_file / add_document_from_url / add_document_from_text / delete_document unless read-only (over --http only with --allow-writes). Over --http every request needs the bearer token (HAIKU_MCP_TOKEN, else one printed at start). The index must exist; it is opened once at start.',
  options: [
    DATABASE_OPTION,
    ...STORAGE_OPTIONS,
    ...EMBEDDING_OPTIONS,
    ...RERANKER_OPTIONS,
    { flags: '--http', description: 'Serve Streamable HTTP on 127.0.0.1 instead of stdio.' },
    { flags: '--port <number>', description: `Port of --http (default ${MCP_HTTP_DEFAULT_PORT}; 0 picks a free one).`, value: 'number' },
    { flags: '--read-only', description: 'Leave out the write tools (add_document_from_file, delete_document) and never write the index (a published team index; also index.mode "remote-readonly" in haiku.config.json).' },
    { flags: '--allow-writes', description: 'With --http: offer the write tools too (off by default over HTTP; add_document_from_file accepts only files inside the index\'s folders).' },
    { flags: '--allow-loopback-urls', description: 'Let add_document_from_url fetch from this machine (127.0.0.0/8, ::1); private, link-local and metadata addresses stay refused.' },
    { flags: '--no-auth', description: `With --http: accept requests without the bearer token (the token comes from ${MCP_TOKEN_VARIABLE}, else a random one is printed at start). Any local process could then use the server.` },
    ...MODEL_OPTIONS,
    ...ANALYSIS_MODEL_OPTIONS,
  ],
  examples: ['haiku mcp --db .haiku --read-only', 'haiku mcp --http --port 8001 --model qwen3:8b'],
  async run(context) {
    const port = portFlag(context);
    const http = booleanFlag(context, 'http');
    const noAuth = context.flags.auth === false;
    if (!http && (noAuth || booleanFlag(context, 'allow-writes'))) {
      throw new HaikuError('invalid_settings', '--no-auth and --allow-writes apply to --http only; over stdio the host that starts the server is its only client.');
    }
    // The configuration's index, search options, rules and write policy (`index.mode: remote-readonly`, `--read-only`).
    const index = await openCommandIndex(context, { embedder: embedderFromFlags(context), reranker: rerankerFromFlags(context), followOtherWriters: true });
    // SIGTERM is how MCP hosts stop a server: close the sessions and the index instead of dying mid-write.
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGTERM', onSignal);
    const abortSignal = AbortSignal.any([context.abortSignal, stop.signal]);
    const config = commandConfig(context);
    const sandbox = config.sandbox;
    const options: HaikuMcpServerOptions = {
      index,
      // Over HTTP any local process that has the token is a client: writes only when asked for.
      allowWrites: http ? booleanFlag(context, 'allow-writes') : true,
      model: lazyModel(questionModelOptions(context)),
      analysisModel: lazyModel(analysisModelOptions(context)),
      embedder: index.embedder,
      sandboxLimits: { ...DEFAULT_CODE_SANDBOX_LIMITS, codeTimeoutSeconds: sandbox.codeTimeoutSeconds, maxOutputChars: sandbox.maxOutputChars, memoryLimitBytes: sandbox.memoryLimitBytes },
      // The file's and flags' qa.* (budgets, request limit, domain preamble) reach ask_question and analyze too.
      agentSettings: agentSettingsFromConfig(config),
      cwd: context.io.cwd,
      allowLoopbackUrls: booleanFlag(context, 'allow-loopback-urls'),
      version: haikuVersion(),
      abortSignal,
    };
    const writes = index.readOnly ? ', read-only' : options.allowWrites ? '' : ', no write tools (--allow-writes offers them)';
    try {
      if (http) {
        const fromEnvironment = context.io.env[MCP_TOKEN_VARIABLE];
        const token = noAuth ? undefined : fromEnvironment !== undefined && fromEnvironment !== '' ? fromEnvironment : generateBearerToken();
        if (noAuth) {
          context.io.stderr('Warning: --no-auth: any process on this machine that can reach the port can use the index (and, with --allow-writes, change it).\n');
        }
        await serveHttp(options, {
          port,
          token,
          onListening: (url) => {
            // One write: the token line travels with the URL (clients send it as "Authorization: Bearer <token>").
            const tokenLine = token === undefined ? ''
              : token === fromEnvironment ? `Clients authenticate with the token in ${MCP_TOKEN_VARIABLE} ("Authorization: Bearer <token>").\n`
              : `Bearer token (send as "Authorization: Bearer <token>"; set ${MCP_TOKEN_VARIABLE} to choose one): ${token}\n`;
            context.io.stderr(`Haiku MCP server at ${url} (index ${index.store.uri}${writes}). Stop with Ctrl+C.\n${tokenLine}`);
          },
        });
      } else {
        context.io.stderr(`Haiku MCP server on stdio (index ${index.store.uri}${writes}).\n`);
        await serveStdio(options);
      }
    } finally {
      process.off('SIGTERM', onSignal);
      await index.close();
    }
    return 0;
  },
};
