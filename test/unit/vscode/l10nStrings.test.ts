import * as assert from 'node:assert/strict';
import type { SectionNode } from '../../../src/core/model/document';
import type { DocumentSummary, SearchResult } from '../../../src/core/model/search';
import { chatErrorView, indexNotReadyView } from '../../../src/vscode/chat/chatErrors';
import { untranslated, type Translate } from '../../../src/vscode/statusText';
import { formatDocumentList, formatSearchHits, formatTableOfContents } from '../../../src/vscode/tools/toolFormatting';

/** A translator that marks what it translated, so untranslated sentences stand out. */
const marked: Translate = (message, ...args) => `«${untranslated(message, ...args)}»`;

describe('l10n: chat errors and tool output go through vscode.l10n.t', () => {
  it('every chat error message and button title is translated', () => {
    const failures = [
      { languageModelErrorCode: 'NoPermissions', message: 'denied' },
      { languageModelErrorCode: 'Blocked', message: 'quota' },
      { languageModelErrorCode: 'NotFound', message: 'gone' },
      { haikuErrorCode: 'invalid_filter', message: 'Bad filter.' },
      { haikuErrorCode: 'cancelled', message: 'x' },
      { message: 'HTTP 429 Too Many Requests' },
      { message: 'tools not supported' },
      { message: 'Something broke.' },
      { haikuErrorCode: 'model_unreachable', message: 'Cannot reach.', remedy: { settings: ['qa.model.baseUrl' as const] } },
      { haikuErrorCode: 'model_failed', message: 'Rejected.', remedy: { settings: ['qa.model.apiKey' as const] } },
    ];
    for (const failure of failures) {
      const view = chatErrorView(failure, marked);
      assert.match(view.message, /«/, JSON.stringify(failure));
      if (view.button) {
        assert.match(view.button.title, /^«.*»$/, JSON.stringify(failure));
      }
    }
    for (const state of ['waiting-for-trust', 'indexing', 'paused', 'ready']) {
      const view = indexNotReadyView({ state, documents: 0 }, marked)!;
      assert.match(view.message, /^«.*»$/, state);
      assert.match(view.button!.title, /^«.*»$/, state);
    }
  });

  it("the tools' sentences are translated; document text, paths and tool names are not", () => {
    const document = { id: 'd1', relativePath: 'guides/a.md', title: 'A', format: 'markdown' } as DocumentSummary;
    const sections = [{ title: 'Intro', pageNumbers: [], children: [] }] as unknown as SectionNode[];
    assert.equal(formatSearchHits('ferrets', [], (uri) => uri, marked), '«No hits for "ferrets". Try other words, or haiku_listDocuments to see what is indexed.»');
    const hit = { rank: 1, uri: 'file:///a.md', headings: ['Intro'], title: 'A', chunkId: 'c1', score: 0.5, content: 'Text.', pageNumbers: [] } as unknown as SearchResult;
    assert.match(formatSearchHits('ferrets', [hit], (uri) => uri, marked), /^«1 hits for "ferrets" \(cite as path and line or page\):»\n\n\[1\] file:\/\/\/a\.md — Intro\n«chunk: c1 · score 0\.500»\nText\.$/);
    assert.equal(formatDocumentList([], marked), '«No documents are indexed (or none match).»');
    assert.equal(formatDocumentList([document], marked), '«1 documents:»\n- guides/a.md — "A" («markdown, id d1»)');
    assert.equal(formatTableOfContents(document, sections, marked), '«Sections of guides/a.md ("A"):»\n- Intro\n«Read one with haiku_readSection and its title.»');
  });
});
