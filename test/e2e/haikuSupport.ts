import * as vscode from 'vscode';
import type { HaikuExtensionApi } from '../../src/vscode/extensionApi';
import type { HaikuTestApi, ParticipantRequestRecord } from '../../src/vscode/testApi';

/** Shared helpers of the in-host suites (bundled into each suite by e2e/build-suites.mjs). */
export const EXTENSION_ID = 'haiku-dev.haiku';

/** Activates Haiku and returns its test API (present because the suites run in `ExtensionMode.Test`). */
export async function activateHaiku(): Promise<HaikuTestApi> {
  const extension = vscode.extensions.getExtension<HaikuExtensionApi>(EXTENSION_ID);
  if (!extension) {
    throw new Error(`extension ${EXTENSION_ID} not found`);
  }
  const api = await extension.activate();
  if (api.apiVersion !== 1 || !api.testing) {
    throw new Error(`Haiku's API is version ${api.apiVersion}, test API ${api.testing ? 'present' : 'missing'}`);
  }
  return api.testing;
}

/** Polls `probe` until it returns a truthy value; `what` may be a function, read when the wait times out (the state then, not at the start). */
export async function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string | (() => string), timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) {
        return value;
      }
    } catch (error) {
      last = error;
    }
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}${last ? ` (last error: ${String(last)})` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/** Waits until the first index build is done and holds the fixture documents (README, two guides, two papers). */
export async function waitForIndex(api: HaikuTestApi, minimumDocuments = 5): Promise<void> {
  await waitFor(async () => {
    await api.indexService.whenIdle();
    const status = api.indexService.current;
    return status.state === 'ready' && status.documents >= minimumDocuments;
  }, () => `an index with ${minimumDocuments} documents (status ${JSON.stringify(api.indexService.current)})`, 180_000);
}

export function workspaceUri(relativePath: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    throw new Error('no workspace folder');
  }
  return vscode.Uri.joinPath(folder.uri, relativePath);
}

/**
 * Sends a question to @haiku through the real Chat view with the scripted fake model, and waits for the answer.
 * `vendor` picks the fake model: `fake-lm` (text only) or `fake-lm-vision` (takes images).
 */
export async function askHaiku(api: HaikuTestApi, query: string, attachFiles?: vscode.Uri[], vendor = 'fake-lm'): Promise<ParticipantRequestRecord> {
  const before = api.participantRequests.length;
  await vscode.commands.executeCommand('workbench.action.chat.open', { query, modelSelector: { vendor }, blockOnResponse: true, attachFiles });
  return waitFor(() => {
    const record = api.participantRequests[before];
    return record && record.done ? record : undefined;
  }, `@haiku to answer "${query}"`, 120_000);
}

/**
 * Where the chat's anchor or reference for a run's citation points, named as the test API records it
 * (`uri#line`, see `locationKey`): the source file at its start line, or the Markdown rendering of a PDF or DOCX.
 */
export function citationTarget(citation: { relativePath: string; locationLabel: string }): string | RegExp {
  if (/\.(pdf|docx)$/.test(citation.relativePath)) {
    return /^haiku-doc:/;
  }
  const uri = workspaceUri(citation.relativePath).toString();
  // Jumps open the chunk's own lines, which the label names ("L72–L76"), not the expanded context's.
  const line = /^L(\d+)/.exec(citation.locationLabel)?.[1];
  return line === undefined ? uri : `${uri}#${Number(line) - 1}`;
}

export function assertTargets(actual: readonly string[], expected: ReadonlyArray<string | RegExp>, what: string): void {
  const matches = actual.length === expected.length && expected.every((target, index) => (typeof target === 'string' ? actual[index] === target : target.test(actual[index])));
  if (!matches) {
    throw new Error(`${what}: expected ${expected.map(String).join(', ')}, got ${actual.join(', ')}`);
  }
}

/** The text of a language-model tool invoked outside a chat request (as an agent outside chat would). */
export async function invokeToolText(name: string, input: object): Promise<string> {
  const cancellation = new vscode.CancellationTokenSource();
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, cancellation.token);
  return result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
}

/** Requests the scripted fake model received (test-fixtures/fake-lm shares the extension host's global). */
export function fakeModelRequests(): Array<{ toolNames: string[]; messages: Array<{ role: number; text: string }> }> {
  return (globalThis as { __fakeLmRequests?: [] }).__fakeLmRequests ?? [];
}
