import type { ErrorRemedy } from '../../core/errors';
import { COMMANDS } from '../contributionIds';
import { vscodeRemedy } from '../errorWording';
import { untranslated, type Translate } from '../statusText';

/**
 * Maps failures of a chat request to a message that says what happened and a button that fixes it where one
 * exists (pure, unit-tested). Every text goes through `t` (`vscode.l10n.t` in the host).
 */
export interface ChatErrorView {
  /** Markdown shown in the chat. */
  message: string;
  button?: { command: string; title: string; arguments?: unknown[] };
  /** Short code kept in the result metadata. */
  code: string;
}

/** What is known about the failure: a `vscode.LanguageModelError` code, a `HaikuError` code and remedy, the message. */
export interface ChatFailure {
  languageModelErrorCode?: string;
  haikuErrorCode?: string;
  /** What to set or run, worded here in VS Code's terms (the real `haiku.*` setting or command). */
  remedy?: ErrorRemedy;
  message: string;
}

function openModelSettings(t: Translate) {
  return { command: 'workbench.action.openSettings', title: t('Configure an OpenAI-compatible model'), arguments: ['haiku.model'] };
}

export function chatErrorView(failure: ChatFailure, t: Translate = untranslated): ChatErrorView {
  const text = failure.message;
  const remedy = vscodeRemedy(failure.remedy, t);
  const withRemedy = remedy ? `${text} ${remedy.text}` : text;
  switch (failure.languageModelErrorCode) {
    case 'NoPermissions':
      return { code: 'no_permissions', message: t('Haiku may not use this language model: the permission was refused. Ask again and allow Haiku to use the model when VS Code asks, or configure an OpenAI-compatible endpoint (for example Ollama) in the Haiku settings.'), button: openModelSettings(t) };
    case 'Blocked':
      return { code: 'quota', message: t("The language model refused the request (blocked or over its quota): {0}. Wait and try again, pick another model in the chat's model picker, or configure an OpenAI-compatible endpoint.", text), button: openModelSettings(t) };
    case 'NotFound':
      return { code: 'no_model', message: t("The language model picked in the chat is not available: {0}. Pick another model in the chat's model picker, or configure an OpenAI-compatible endpoint.", text), button: openModelSettings(t) };
  }
  // Typed causes first: their messages quote URLs and server text (a port such as 42935 once read as HTTP 429).
  switch (failure.haikuErrorCode) {
    case 'model_unreachable':
      return { code: 'model_unreachable', message: withRemedy, button: remedy?.button ?? { command: 'workbench.action.openSettings', title: t('Open model settings'), arguments: ['haiku.model.baseUrl'] } };
    case 'rebuild_needed':
      return { code: 'rebuild_needed', message: withRemedy, button: { command: COMMANDS.rebuildIndex, title: t('Rebuild Index') } };
    case 'invalid_filter':
      return { code: 'invalid_filter', message: t('{0} Remove the attached files and ask again.', text) };
    case 'cancelled':
      return { code: 'cancelled', message: t('Stopped.') };
  }
  if (/\bquota\b|rate.?limit|\b429\b|too many requests/i.test(text)) {
    return { code: 'quota', message: t('The language model is over its quota or rate limit: {0}. Wait and try again, or pick another model.', text), button: openModelSettings(t) };
  }
  if (/tool.?call|tools? (are |is )?not supported|does not support tool/i.test(text)) {
    return { code: 'no_tool_calling', message: t('The chosen model cannot call tools, which Haiku needs to search the documents: {0}. Pick a model with tool calling (for Ollama: qwen3, llama3.1, gpt-oss).', text), button: openModelSettings(t) };
  }
  if (failure.haikuErrorCode === 'model_failed') {
    return { code: 'model_failed', message: withRemedy, button: remedy?.button ?? openModelSettings(t) };
  }
  if (remedy) {
    return { code: failure.haikuErrorCode ?? 'failed', message: withRemedy, button: remedy.button };
  }
  return { code: failure.haikuErrorCode ?? 'failed', message: t('Haiku could not answer: {0}', text), button: { command: COMMANDS.showOutput, title: t('Show log') } };
}

/** Before asking the model: the index is empty, still building, or untrusted. */
export function indexNotReadyView(status: { state: string; documents: number }, t: Translate = untranslated): ChatErrorView | undefined {
  if (status.state === 'waiting-for-trust') {
    return { code: 'untrusted', message: t('Haiku indexes the workspace only once it is trusted, so there is nothing to search yet.'), button: { command: 'workbench.trust.manage', title: t('Manage Workspace Trust') } };
  }
  if (status.documents > 0) {
    return undefined;
  }
  if (status.state === 'indexing' || status.state === 'starting') {
    return { code: 'index_building', message: t('The index is still being built and holds no documents yet. Ask again in a moment.'), button: { command: COMMANDS.showOutput, title: t('Show progress') } };
  }
  if (status.state === 'paused') {
    return { code: 'index_paused', message: t('Indexing is paused and the index is empty.'), button: { command: COMMANDS.resumeIndexing, title: t('Resume indexing') } };
  }
  return { code: 'empty_index', message: t('The Haiku index is empty: no Markdown, HTML, PDF, DOCX or text files were found in the workspace (see the `haiku.index.include` setting).'), button: { command: COMMANDS.buildIndex, title: t('Build index') } };
}

/** Guidance shown as the answer itself: Markdown with settings links, and the buttons that act on it. */
export interface ChatGuidanceView {
  code: string;
  /** Trusted Markdown: its links run only the commands of `commands`. */
  markdown: string;
  /** Commands the Markdown's links may run. */
  commands: string[];
  buttons: Array<{ command: string; title: string; arguments?: unknown[] }>;
}

function settingsLink(label: string, setting: string): string {
  return `[${label}](command:workbench.action.openSettings?${encodeURIComponent(JSON.stringify([setting]))})`;
}

/**
 * No language model can answer (only Haiku's search-only entry is picked, or the picked model vanished): say how to
 * get one, and offer what works without a model, a search for the same words.
 */
export function noModelView(query: string, t: Translate = untranslated): ChatGuidanceView {
  const setup = t(
    "**Haiku has no language model to answer with.** Pick a model in the chat's model picker, or set {0} and {1} to an OpenAI-compatible endpoint (for example Ollama: `http://localhost:11434/v1` and `qwen3`).",
    settingsLink('`haiku.model.baseUrl`', 'haiku.model.baseUrl'),
    settingsLink('`haiku.model.name`', 'haiku.model.name'),
  );
  const search = t('Searching needs no model: **Haiku: Search** finds and opens passages as you type, and `@haiku /search {0}` lists them here.', query.trim().replace(/`/g, "'") || '…');
  const buttons: ChatGuidanceView['buttons'] = [
    { command: COMMANDS.search, title: t('Search the documents'), arguments: query.trim() ? [query.trim()] : [] },
    { command: 'workbench.action.openSettings', title: t('Configure an OpenAI-compatible model'), arguments: ['haiku.model'] },
  ];
  return { code: 'no_model', markdown: `${setup}\n\n${search}\n`, commands: ['workbench.action.openSettings'], buttons };
}
