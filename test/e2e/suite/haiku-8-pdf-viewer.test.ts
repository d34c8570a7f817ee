import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PdfViewerEvent } from '../../../src/vscode/pdfViewer/pdfViewerProvider';
import type { HaikuTestApi } from '../../../src/vscode/testApi';
import { activateHaiku, askHaiku, waitFor, waitForIndex, workspaceUri } from '../haikuSupport';

type HighlightEvent = Extract<PdfViewerEvent, { kind: 'highlighted' }>;

/** The viewer's report of the jump after `before` events, for this file. */
function highlightReport(api: HaikuTestApi, uri: vscode.Uri, before: number): Promise<HighlightEvent> {
  return waitFor(() => api.pdfViewerEvents.slice(before).find((event): event is HighlightEvent => event.kind === 'highlighted' && event.uri === uri.toString()),
    `the PDF viewer to report the highlight (events: ${JSON.stringify(api.pdfViewerEvents.slice(before))})`, 90_000);
}

/** Precise jumps: the chunk's own lines selected with the context shaded, and PDF chunks on their page in the viewer. */
describe('Haiku: precise jumps and the PDF viewer', () => {
  let api: HaikuTestApi;

  before(async () => {
    api = await activateHaiku();
    await waitForIndex(api);
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('a chat citation to a Markdown chunk selects exactly the chunk\'s lines and shades the expanded context', async () => {
    const record = await askHaiku(api, '@haiku What is hot module replacement in Vite?');
    assert.strictEqual(record.error, undefined, JSON.stringify(record.error));
    const run = api.runsStore.get(record.runId)!;
    const cited = run.citations[0];
    assert.strictEqual(cited.relativePath, 'guides/features.md');
    const [chunk] = await (await api.knowledgeBase()).getChunks([cited.chunkId]);
    const own = chunk.sourceRange!;
    const [link] = record.chunkLinks;
    assert.ok(link && link.text === '[1]' && link.chunkId === cited.chunkId, `the [1] marker is a link to the cited chunk (${JSON.stringify(record.chunkLinks)})`);
    assert.match(cited.locationLabel, new RegExp(`^L${own.startLine! + 1}\\b`), 'the run labels the chunk\'s own lines');
    const expanded = cited.sourceRange!;
    assert.ok(expanded.startLine! < own.startLine! || expanded.endLine! > own.endLine!, `expansion added context around the chunk (${JSON.stringify({ expanded, own })})`);

    // What the chat does on a click: Open Chunk with the link's arguments (the chunk, the context the model read).
    await vscode.commands.executeCommand('haiku.openChunk', link.chunkId, link.context);
    const editor = await waitFor(() => vscode.window.activeTextEditor?.document.uri.toString() === chunk.uri && vscode.window.activeTextEditor, 'the cited file open');
    const highlight = await waitFor(() => api.lastHighlight?.uri === chunk.uri && api.lastHighlight.range.start.line === own.startLine ? api.lastHighlight : undefined, 'the context shading after the chat jump');
    assert.strictEqual(editor.selection.start.line, own.startLine);
    assert.strictEqual(editor.selection.start.character, own.startColumn ?? 0);
    assert.strictEqual(editor.selection.end.line, own.endLine);
    assert.strictEqual(editor.selection.end.character, own.endColumn ?? 0);
    assert.ok(highlight.contextRanges.length > 0, 'the context is decorated');
    const shaded = new Set(highlight.contextRanges.flatMap((range) => Array.from({ length: range.end.line - range.start.line + 1 }, (_, index) => range.start.line + index)));
    const ownLastLine = own.endColumn === 0 && own.endLine! > own.startLine! ? own.endLine! - 1 : own.endLine!;
    for (let line = own.startLine!; line <= ownLastLine; line++) {
      assert.ok(!shaded.has(line), `the chunk's own line ${line} is not shaded as context`);
    }
    assert.ok([...shaded].every((line) => line >= expanded.startLine! && line <= expanded.endLine!), 'only the expanded context is shaded');

    // The next edit clears the highlight; the edit is undone at once and the sample file checked unchanged.
    assert.ok(api.highlightShown);
    const original = editor.document.getText();
    await editor.edit((edit) => edit.insert(new vscode.Position(0, 0), ' '));
    assert.strictEqual(api.highlightShown, false, 'an edit clears the jump highlight');
    await vscode.commands.executeCommand('undo');
    assert.strictEqual(editor.document.getText(), original);
    if (editor.document.isDirty) {
      await editor.document.save();
    }
  });

  it('a jump to a PDF chunk opens the viewer on its page with the chunk\'s boxes strong and the context faint', async () => {
    const pdf = workspaceUri('papers/multi_page.pdf');
    const knowledgeBase = await api.knowledgeBase();
    const documents = await knowledgeBase.listDocuments();
    const document = documents.find((candidate) => candidate.uri === pdf.toString())!;
    const items = await knowledgeBase.getDocumentItems(document.id);
    // A chunk on a later page, so "the right page" means something.
    const item = items.find((candidate) => (candidate.boxes?.length ?? 0) > 0 && candidate.pageNumbers[0] >= 2 && candidate.chunkIds.length > 0 && candidate.label === 'paragraph')!;
    assert.ok(item, 'multi_page.pdf has boxed paragraphs beyond page 1 (layout with boxes)');
    const [chunk] = await knowledgeBase.getChunks([item.chunkIds[0]]);
    const ownBoxes = items.filter((candidate) => chunk.docItemRefs.includes(candidate.selfRef)).flatMap((candidate) => candidate.boxes ?? []);
    const position = items.indexOf(item);
    const contextRefs = items.slice(Math.max(0, position - 2), position + 3).map((candidate) => candidate.selfRef);
    const expectedContext = items.filter((candidate) => contextRefs.includes(candidate.selfRef) && !chunk.docItemRefs.includes(candidate.selfRef)).flatMap((candidate) => candidate.boxes ?? []);

    const before = api.pdfViewerEvents.length;
    const started = Date.now();
    await vscode.commands.executeCommand('haiku.openChunk', chunk.chunkId, { docItemRefs: contextRefs });
    const { report } = (await highlightReport(api, pdf, before));
    const firstPage = Math.min(...ownBoxes.map((box) => box.page));
    assert.strictEqual(report.page, firstPage, 'the viewer opens the chunk\'s first page');
    assert.ok(report.chunkInView, 'the chunk\'s first box is scrolled into view');
    const strong = report.rectangles.filter((rectangle) => rectangle.strength === 'chunk');
    const faint = report.rectangles.filter((rectangle) => rectangle.strength === 'context');
    assert.strictEqual(strong.length, ownBoxes.length, 'every own box is drawn strongly');
    assert.strictEqual(faint.length, expectedContext.length, 'every context box is drawn faintly');
    assert.ok(strong.every((rectangle) => rectangle.width > 0 && rectangle.height > 0 && rectangle.left >= 0 && rectangle.top >= 0));
    assert.ok(report.textLayer, 'the page has its text layer');
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    assert.ok(tab instanceof vscode.TabInputCustom && tab.viewType === 'haiku.pdfViewer' && tab.uri.toString() === pdf.toString(), 'the active tab is the PDF viewer on the file');
    console.log(`PDF jump (multi_page.pdf p.${report.page}): ${Date.now() - started} ms from the command to the report, ${report.elapsedMs.toFixed(0)} ms in the webview; heap ${report.usedHeapBytes ?? 'n/a'} bytes`);

    // A second jump in the open viewer only redraws.
    const again = api.pdfViewerEvents.length;
    await vscode.commands.executeCommand('haiku.openChunk', chunk.chunkId);
    const second = await highlightReport(api, pdf, again);
    assert.strictEqual(second.report.rectangles.filter((rectangle) => rectangle.strength === 'context').length, 0, 'without context refs only the chunk is drawn');
    writeArtifact('pdf-jump.json', { first: report, second: second.report });
  });

  it('opens a PDF section of the sections tree on its page, and "Open as Text" shows the rendering', async () => {
    const pdf = workspaceUri('papers/multi_page.pdf');
    const knowledgeBase = await api.knowledgeBase();
    const document = (await knowledgeBase.listDocuments()).find((candidate) => candidate.uri === pdf.toString())!;
    const items = await knowledgeBase.getDocumentItems(document.id);
    const header = items.filter((item) => item.label === 'section_header' && (item.boxes?.length ?? 0) > 0).at(-1)!;
    const before = api.pdfViewerEvents.length;
    await api.navigator.openSection(document, { title: header.text, selfRef: header.selfRef, page: header.pageNumbers[0] });
    const { report } = await highlightReport(api, pdf, before);
    assert.strictEqual(report.page, header.boxes![0].page);
    assert.ok(report.chunkInView);
    assert.strictEqual(report.rectangles.filter((rectangle) => rectangle.strength === 'chunk').length, header.boxes!.length);
    await vscode.commands.executeCommand('haiku.openPdfAsText');
    const editor = await waitFor(() => vscode.window.activeTextEditor?.document.uri.scheme === 'haiku-doc' ? vscode.window.activeTextEditor : undefined, 'the text rendering');
    assert.match(editor.document.uri.path, /multi_page\.pdf\.md$/);
  });

  it('a PDF the viewer cannot open reports the failure instead of throwing', async () => {
    const broken = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-pdf-')), 'broken.pdf');
    fs.writeFileSync(broken, '%PDF-1.7\n% a header and nothing a PDF needs\n');
    const uri = vscode.Uri.file(broken);
    const before = api.pdfViewerEvents.length;
    await api.pdfViewer.show(uri, { page: 3 });
    const failure = await waitFor(() => api.pdfViewerEvents.slice(before).find((event) => event.kind === 'loadFailed' && event.uri === uri.toString()), 'the viewer to report the failure');
    assert.ok(failure.kind === 'loadFailed' && failure.reason !== 'password', JSON.stringify(failure));
  });

  it('measures the jump to a highlighted page of a 117-page PDF (GeoTopo)', async function () {
    // Not carried in the repository (1.8 MB): `shared/` beside the checkout, or HAIKU_SHARED_DIR, has it.
    const sharedFolder = process.env.HAIKU_SHARED_DIR ?? path.resolve(__dirname, '..', '..', '..', 'shared');
    const geoTopo = path.join(sharedFolder, 'corpus', 'pdf-docx', 'py-pdf-sample-files', 'GeoTopo-komprimiert.pdf');
    if (!fs.existsSync(geoTopo)) {
      console.log(`      skipped: needs ${geoTopo} (shared/corpus; set HAIKU_SHARED_DIR)`);
      this.skip();
    }
    const uri = vscode.Uri.file(geoTopo);
    const timings: Array<{ page: number; totalMs: number; webviewMs: number; heap?: number }> = [];
    for (const page of [100, 17]) {
      const before = api.pdfViewerEvents.length;
      const started = Date.now();
      // A box in the middle of the page, as a chunk's would be (the file is outside the index). The first jump
      // opens the viewer (cold), the second only scrolls and draws.
      await api.pdfViewer.show(uri, { page, chunkBoxes: [{ page, x: 100, y: 400, width: 300, height: 40 }], contextBoxes: [{ page, x: 100, y: 300, width: 300, height: 100 }] });
      const { report } = await highlightReport(api, uri, before);
      assert.strictEqual(report.page, page);
      assert.ok(report.chunkInView);
      timings.push({ page, totalMs: Date.now() - started, webviewMs: Math.round(report.elapsedMs), heap: report.usedHeapBytes });
    }
    console.log(`GeoTopo (117 pages) jump → highlighted page: ${JSON.stringify(timings)}`);
    writeArtifact('pdf-geotopo-timing.json', timings);
  });
});

function writeArtifact(name: string, value: unknown): void {
  const folder = process.env.HAIKU_E2E_OUT;
  if (folder) {
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, name), JSON.stringify(value, null, 2));
  }
}
