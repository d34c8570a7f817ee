import * as vscode from 'vscode';
import type { HaikuExtensionApi } from '../../src/vscode/extensionApi';

/** Shared helpers of the in-host suites (bundled into each suite by e2e/build-suites.mjs). */
export const EXTENSION_ID = 'haiku-dev.haiku';

export async function activateHaiku(): Promise<HaikuExtensionApi> {
  const extension = vscode.extensions.getExtension<HaikuExtensionApi>(EXTENSION_ID);
  if (!extension) {
    throw new Error(`extension ${EXTENSION_ID} not found`);
  }
  return extension.activate();
}

export async function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 60_000): Promise<T> {
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
      throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/** Waits until the first index build is done and holds the fixture documents (README, two guides, two papers). */
export async function waitForIndex(api: HaikuExtensionApi, minimumDocuments = 5): Promise<void> {
  await waitFor(async () => {
    await api.indexService.whenIdle();
    const status = api.indexService.current;
    return status.state === 'ready' && status.documents >= minimumDocuments;
  }, `an index with ${minimumDocuments} documents (status ${JSON.stringify(api.indexService.current)})`, 180_000);
}

export function workspaceUri(relativePath: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    throw new Error('no workspace folder');
  }
  return vscode.Uri.joinPath(folder.uri, relativePath);
}

/** Sends a question to @haiku through the real Chat view with the scripted fake model, and waits for the answer. */
export async function askHaiku(api: HaikuExtensionApi, query: string, attachFiles?: vscode.Uri[]): Promise<HaikuExtensionApi['participant']['requests'][number]> {
  const before = api.participant.requests.length;
  await vscode.commands.executeCommand('workbench.action.chat.open', { query, modelSelector: { vendor: 'fake-lm' }, blockOnResponse: true, attachFiles });
  return waitFor(() => {
    const record = api.participant.requests[before];
    return record && record.done ? record : undefined;
  }, `@haiku to answer "${query}"`, 120_000);
}
