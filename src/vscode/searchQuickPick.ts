import * as vscode from 'vscode';
import { CITATION_PICK_DEBOUNCE_MS, CITATION_PICK_LIMIT } from '../core/limits';
import type { SearchResult } from '../core/model/search';
import { COMMANDS } from './contributionIds';
import { vscodeErrorText } from './errorWording';
import type { ExtensionKnowledgeBase } from './indexBackend';
import { LiveSearch, searchPickRow } from './searchPickItems';

interface SearchPick extends vscode.QuickPickItem {
  result: SearchResult;
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
  options: { initialQuery?: string } = {},
): Promise<SearchPickOutcome> {
  const pick = vscode.window.createQuickPick<SearchPick>();
  pick.title = vscode.l10n.t('Haiku: Search');
  const placeholder = vscode.l10n.t('Search the indexed documents; pick a passage to open it');
  pick.placeholder = placeholder;
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  const live = new LiveSearch<SearchPick[]>(
    async (query, abortSignal) => {
      const store = await knowledgeBase();
      const results = await store.search(query, { limit: CITATION_PICK_LIMIT, expand: false, abortSignal });
      // The index ranked these for the query; the quick pick's own filter would hide most of them.
      return results.map((result) => ({ ...searchPickRow(result, relativePathOf), alwaysShow: true, result }));
    },
    (query, items) => {
      pick.items = items;
      pick.placeholder = items.length === 0 ? vscode.l10n.t('No passage matches "{0}".', query) : placeholder;
    },
    (state) => {
      pick.busy = state.busy;
      if (state.error !== undefined) {
        pick.items = [];
        pick.placeholder = vscode.l10n.t('Search failed: {0}', vscodeErrorText(state.error, vscode.l10n.t));
      }
    },
    CITATION_PICK_DEBOUNCE_MS,
  );
  const chosen = await new Promise<SearchResult | undefined>((resolve) => {
    pick.onDidChangeValue((value) => {
      if (value.trim() === '') {
        pick.items = [];
      }
      live.update(value);
    });
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0] ?? pick.activeItems[0];
      if (item) {
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
  live.cancel();
  const rows = pick.items.map(({ label, description, detail }) => ({ label, description, detail }));
  pick.dispose();
  if (!chosen) {
    return { rows };
  }
  // The same jump as a chat citation: the chunk's own range selected and highlighted (PDFs on their page).
  await vscode.commands.executeCommand(COMMANDS.openChunk, chosen.chunkId);
  return { rows, opened: { chunkId: chosen.chunkId, uri: chosen.uri } };
}
