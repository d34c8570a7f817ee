import { COMMANDS } from '../contributionIds';

/**
 * Maps failures of a chat request to a message that says what happened and a button that fixes it where one
 * exists (pure, unit-tested).
 */
export interface ChatErrorView {
  /** Markdown shown in the chat. */
  message: string;
  button?: { command: string; title: string; arguments?: unknown[] };
  /** Short code kept in the result metadata. */
  code: string;
}

const OPEN_MODEL_SETTINGS = { command: 'workbench.action.openSettings', title: 'Configure an OpenAI-compatible model', arguments: ['haiku.model'] };

/** What is known about the failure: a `vscode.LanguageModelError` code, a `HaikuError` code, the message. */
export interface ChatFailure {
  languageModelErrorCode?: string;
  haikuErrorCode?: string;
  message: string;
}

export function chatErrorView(failure: ChatFailure): ChatErrorView {
  const text = failure.message;
  switch (failure.languageModelErrorCode) {
    case 'NoPermissions':
      return { code: 'no_permissions', message: `Haiku may not use this language model: the permission was refused. Ask again and allow Haiku to use the model when VS Code asks, or configure an OpenAI-compatible endpoint (for example Ollama) in the Haiku settings.`, button: OPEN_MODEL_SETTINGS };
    case 'Blocked':
      return { code: 'quota', message: `The language model refused the request (blocked or over its quota): ${text}. Wait and try again, pick another model in the chat's model picker, or configure an OpenAI-compatible endpoint.`, button: OPEN_MODEL_SETTINGS };
    case 'NotFound':
      return { code: 'no_model', message: `The language model picked in the chat is not available: ${text}. Pick another model in the chat's model picker, or configure an OpenAI-compatible endpoint.`, button: OPEN_MODEL_SETTINGS };
  }
  // Typed causes first: their messages quote URLs and server text (a port such as 42935 once read as HTTP 429).
  switch (failure.haikuErrorCode) {
    case 'model_unreachable':
      return { code: 'model_unreachable', message: text, button: { command: 'workbench.action.openSettings', title: 'Open model settings', arguments: ['haiku.model.baseUrl'] } };
    case 'rebuild_needed':
      return { code: 'rebuild_needed', message: text, button: { command: COMMANDS.rebuildIndex, title: 'Rebuild index' } };
    case 'invalid_filter':
      return { code: 'invalid_filter', message: `${text} Remove the attached files and ask again.` };
    case 'cancelled':
      return { code: 'cancelled', message: 'Stopped.' };
  }
  if (/\bquota\b|rate.?limit|\b429\b|too many requests/i.test(text)) {
    return { code: 'quota', message: `The language model is over its quota or rate limit: ${text}. Wait and try again, or pick another model.`, button: OPEN_MODEL_SETTINGS };
  }
  if (/tool.?call|tools? (are |is )?not supported|does not support tool/i.test(text)) {
    return { code: 'no_tool_calling', message: `The chosen model cannot call tools, which Haiku needs to search the documents: ${text}. Pick a model with tool calling (for Ollama: qwen3, llama3.1, gpt-oss).`, button: OPEN_MODEL_SETTINGS };
  }
  if (failure.haikuErrorCode === 'model_failed') {
    return { code: 'model_failed', message: text, button: OPEN_MODEL_SETTINGS };
  }
  return { code: failure.haikuErrorCode ?? 'failed', message: `Haiku could not answer: ${text}`, button: { command: COMMANDS.showOutput, title: 'Show log' } };
}

/** Before asking the model: the index is empty, still building, or untrusted. */
export function indexNotReadyView(status: { state: string; documents: number }): ChatErrorView | undefined {
  if (status.state === 'waiting-for-trust') {
    return { code: 'untrusted', message: 'Haiku indexes the workspace only once it is trusted, so there is nothing to search yet.', button: { command: 'workbench.trust.manage', title: 'Manage Workspace Trust' } };
  }
  if (status.documents > 0) {
    return undefined;
  }
  if (status.state === 'indexing' || status.state === 'starting') {
    return { code: 'index_building', message: 'The index is still being built and holds no documents yet. Ask again in a moment.', button: { command: COMMANDS.showOutput, title: 'Show progress' } };
  }
  if (status.state === 'paused') {
    return { code: 'index_paused', message: 'Indexing is paused and the index is empty.', button: { command: COMMANDS.resumeIndexing, title: 'Resume indexing' } };
  }
  return { code: 'empty_index', message: 'The Haiku index is empty: no Markdown, HTML, PDF, DOCX or text files were found in the workspace (see the `haiku.index.include` setting).', button: { command: COMMANDS.buildIndex, title: 'Build index' } };
}
