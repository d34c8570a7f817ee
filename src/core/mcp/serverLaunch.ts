import { analysisModelOf, type HaikuConfig } from '../config';

/** How to start `haiku mcp` over stdio for a configuration: what an MCP host (VS Code) spawns. */
export interface McpServerLaunch {
  command: string;
  args: string[];
  /** Added to the host's environment. */
  env: Record<string, string>;
}

/**
 * The stdio launch of the bundled CLI for `config`: its index read-only (the host's indexer owns writes; a second
 * writer would race it), its embedder and reranker as flags, its model in HAIKU_* variables. The API key is left
 * out unless `withSecrets`: definitions are listed eagerly, the key is only needed when the server starts.
 */
export function mcpServerLaunch(config: HaikuConfig, options: { nodePath: string; cliPath: string; withSecrets?: boolean }): McpServerLaunch {
  const args = [options.cliPath, 'mcp', '--db', config.index.databaseUri, '--read-only'];
  if (config.embeddings.provider === 'openai' && config.embeddings.model !== '') {
    args.push('--embeddings-url', config.embeddings.baseUrl, '--embeddings-model', config.embeddings.model);
  }
  if (config.reranker.provider === 'http' && config.reranker.baseUrl !== '') {
    args.push('--reranker-url', config.reranker.baseUrl, '--reranker-model', config.reranker.model);
  }
  if (config.qa.model.thinking) {
    args.push('--thinking');
  }
  // A team index on object storage: where it is; its keys travel like the model key, only with `withSecrets`.
  const storage = config.index.storage;
  if (storage.endpoint !== '') {
    args.push('--endpoint', storage.endpoint);
  }
  if (storage.region !== '') {
    args.push('--region', storage.region);
  }
  if (storage.pathStyle) {
    args.push('--path-style');
  }
  if (storage.allowHttp) {
    args.push('--allow-http');
  }
  // ELECTRON_RUN_AS_NODE: inside VS Code `process.execPath` is the editor's Electron binary, which runs a script as Node only with it.
  const env: Record<string, string> = { ELECTRON_RUN_AS_NODE: '1', LANCEDB_LOG: 'error', HAIKU_BASE_URL: config.qa.model.baseUrl };
  if (config.qa.model.name !== '') {
    env.HAIKU_MODEL = config.qa.model.name;
  }
  if (options.withSecrets && config.qa.model.apiKey) {
    env.HAIKU_API_KEY = config.qa.model.apiKey;
  }
  Object.assign(env, analysisModelEnvironment(config, options.withSecrets === true));
  if (options.withSecrets && storage.accessKeyId && storage.secretAccessKey) {
    env.AWS_ACCESS_KEY_ID = storage.accessKeyId;
    env.AWS_SECRET_ACCESS_KEY = storage.secretAccessKey;
  }
  return { command: options.nodePath, args, env };
}

/**
 * `analysis.model` as HAIKU_ANALYSIS_* variables when it names an endpoint model (its own base URL, or a name at the
 * QA endpoint); a VS Code chat-picker model cannot serve a separate process and is left out.
 */
function analysisModelEnvironment(config: HaikuConfig, withSecrets: boolean): Record<string, string> {
  const own = config.analysis.model;
  if ((!own?.name && !own?.baseUrl) || (!own.baseUrl && config.qa.model.name === '')) {
    return {};
  }
  const model = analysisModelOf(config);
  const env: Record<string, string> = { HAIKU_ANALYSIS_BASE_URL: model.baseUrl, HAIKU_ANALYSIS_MODEL: model.name };
  if (withSecrets && model.apiKey && model.baseUrl !== config.qa.model.baseUrl) {
    env.HAIKU_ANALYSIS_API_KEY = model.apiKey;
  }
  return env;
}
