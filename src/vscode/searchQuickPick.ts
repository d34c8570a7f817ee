import * as vscode from 'vscode';
import { CITATION_PICK_DEBOUNCE_MS, CITATION_PICK_LIMIT } from '../core/limits';
import { errorMessage } from '../core/errors';
import type { SearchResult } from '../core/model/search';
import { COMMANDS } from './contributionIds';
import { vscodeErrorText } from './errorWording';
import type { ExtensionKnowledgeBase } from './indexBackend';
import { LiveSearch, searchPickRow } from './searchPickItems';

interface SearchPick extends vscode.QuickPickItem {
  /** Unset on the row that says why there is no hit (no match, a failure): accepting it does nothing. */
  result?: SearchResult;
}

/** What one "Haiku: Search" ended with: the rows last shown and the chunk opened (none when dismissed). */
export interface SearchPickOutcome {
  rows: Array<Pick<vscode.QuickPickItem, 'label' | 'description' | 'detail'>>;
  opened?: { chunkId: string; uri: string };
}

/**
 * "Haiku: Search": a quick pick that searches the index as the user types (no language model involved) and opens
 * the chosen chunk at its own range with the usual highlight (the Open Chunk command). `initialQuery` comes from the
 * chat's guidance button or a test.
 */
export async function showSearchQuickPick(
  knowledgeBase: () => Promise<ExtensionKnowledgeBase>,
  relativePathOf: (uri: string) => string,
  log: (message: string) => void,
  options: { initialQuery?: string; indexChanged?: vscode.Event<unknown> } = {},
): Promise<SearchPickOutcome> {
  const pick = vscode.window.createQuickPick<SearchPick>();
  pick.title = vscode.l10n.t('Haiku: Search');
  pick.placeholder = vscode.l10n.t('Search the indexed documents; pick a passage to open it');
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  const live = new LiveSearch<SearchPick[]>(
    async (query, abortSignal) => {
      const store = await knowledgeBase();
      const results = await store.search(query, { limit: CITATION_PICK_LIMIT, expand: false, abortSignal });
      // The index ranked these for the query; the quick pick's own filter would hide most of them.
      return results.map((result) => ({ ...searchPickRow(result, relativePathOf), alwaysShow: true, result }));
    },
    // The placeholder is hidden while the input holds text: no hit and failures are rows.
    (query, items) => {
      pick.items = items.length > 0 ? items : [{ label: vscode.l10n.t('No passage matches "{0}".', query), alwaysShow: true }];
    },
    (state) => {
      pick.busy = state.busy;
      if (state.error !== undefined) {
        log(`Haiku: Search failed: ${errorMessage(state.error)}`);
        pick.items = [{ label: `$(error) ${vscode.l10n.t('Search failed')}`, detail: vscodeErrorText(state.error, vscode.l10n.t), alwaysShow: true }];
      }
    },
    CITATION_PICK_DEBOUNCE_MS,
  );
  // Opened while the index builds: the same words search again as each index job finishes.
  const indexWatch = options.indexChanged?.(() => live.update(pick.value));
  const chosen = await new Promise<SearchResult | undefined>((resolve) => {
    pick.onDidChangeValue((value) => {
      if (value.trim() === '') {
        pick.items = [];
      }
      live.update(value);
    });
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0] ?? pick.activeItems[0];
      if (item?.result) {
        resolve(item.result);
        pick.hide();
      }
    });
    pick.onDidHide(() => resolve(undefined));
    if (options.initialQuery) {
      pick.value = options.initialQuery;
      live.update(options.initialQuery);
    }
    pick.show();
  });
  indexWatch?.dispose();
  live.cancel();
  const rows = pick.items.filter((item) => item.result).map(({ label, description, detail }) => ({ label, description, detail }));
  pick.dispose();
  if (!chosen) {
    return { rows };
  }
  // The same jump as a chat citation: the chunk's own range selected and highlighted (PDFs on their page).
  await vscode.commands.executeCommand(COMMANDS.openChunk, chosen.chunkId);
  return { rows, opened: { chunkId: chosen.chunkId, uri: chosen.uri } };
}
