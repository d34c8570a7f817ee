import * as vscode from 'vscode';
import { CITATION_PICK_DEBOUNCE_MS, CITATION_PICK_LIMIT } from '../core/limits';
import { errorMessage } from '../core/errors';
import type { SearchResult } from '../core/model/search';
import { locationLabel, markdownCitation, preview } from './citationFormat';
import type { ExtensionKnowledgeBase } from './indexBackend';

interface HitPick extends vscode.QuickPickItem {
  result: SearchResult;
}

/**
 * "Haiku: Insert Citation": a quick pick that searches as the user types and inserts a Markdown link to the
 * chosen chunk's source (relative path with `#L<line>`, or `#page=N` for PDFs) at the cursor.
 * `initialQuery` and `pickFirst` let tests drive it without typing.
 */
export async function insertCitation(
  knowledgeBase: () => Promise<ExtensionKnowledgeBase>,
  relativePathOf: (uri: string) => string,
  options: { initialQuery?: string; pickFirst?: boolean } = {},
): Promise<string | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Open the Markdown file to cite into, place the cursor, and run Haiku: Insert Citation again.'));
    return undefined;
  }
  const store = await knowledgeBase();
  const search = async (query: string): Promise<HitPick[]> => {
    const results = await store.search(query, { limit: CITATION_PICK_LIMIT, expand: false });
    return results.map((result) => ({
      label: result.headings[result.headings.length - 1] ?? result.title,
      description: `${relativePathOf(result.uri)} ${locationLabel(result.sourceRange, result.pageNumbers)}`.trim(),
      detail: preview(result.content, 200),
      // The index ranked these for the query; the quick pick's own label filter would hide most of them.
      alwaysShow: true,
      result,
    }));
  };
  let chosen: SearchResult | undefined;
  if (options.pickFirst && options.initialQuery) {
    chosen = (await search(options.initialQuery))[0]?.result;
  } else {
    chosen = await new Promise<SearchResult | undefined>((resolve) => {
      const pick = vscode.window.createQuickPick<HitPick>();
      pick.title = vscode.l10n.t('Insert Citation');
      pick.placeholder = vscode.l10n.t('Search the indexed documents; pick a passage to cite');
      let timer: NodeJS.Timeout | undefined;
      let generation = 0;
      const run = (query: string): void => {
        if (timer) {
          clearTimeout(timer);
        }
        if (query.trim() === '') {
          pick.items = [];
          return;
        }
        timer = setTimeout(async () => {
          const current = ++generation;
          pick.busy = true;
          try {
            const items = await search(query);
            if (current === generation) {
              pick.items = items;
            }
          } catch (error) {
            pick.items = [];
            pick.placeholder = `Search failed: ${errorMessage(error)}`;
          } finally {
            if (current === generation) {
              pick.busy = false;
            }
          }
        }, CITATION_PICK_DEBOUNCE_MS);
      };
      pick.onDidChangeValue(run);
      pick.onDidAccept(() => {
        resolve((pick.selectedItems[0] ?? pick.activeItems[0])?.result);
        pick.hide();
      });
      pick.onDidHide(() => {
        resolve(undefined);
        pick.dispose();
      });
      if (options.initialQuery) {
        pick.value = options.initialQuery;
        run(options.initialQuery);
      }
      pick.show();
    });
  }
  if (!chosen) {
    return undefined;
  }
  const target = vscode.Uri.parse(chosen.uri);
  const link = editor.document.uri.scheme === 'file' && target.scheme === 'file'
    ? markdownCitation(chosen, { fromFsPath: editor.document.uri.fsPath, targetFsPath: target.fsPath })
    : markdownCitation(chosen, { fromFsPath: '/index.md', targetFsPath: `/${relativePathOf(chosen.uri)}` });
  await editor.edit((edit) => {
    for (const selection of editor.selections) {
      edit.replace(selection, link);
    }
  });
  return link;
}
