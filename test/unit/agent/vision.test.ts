import * as assert from 'node:assert';
import * as path from 'node:path';
import type { KnowledgeBase, PictureImage, SearchResult } from '../../../src/core/model/search';
import { PictureAttachmentLedger, pictureLabel } from '../../../src/core/agent/pictureAttachments';
import { expandSearchResults } from '../../../src/core/search/contextExpansion';
import { indexPaths } from '../../../src/node/index/indexer';
import { openStore, type LanceStore } from '../../../src/node/store/lanceStore';
import { createCodeSandbox } from '../../../src/node/sandbox/codeSandbox';
import { runCli } from '../../../src/node/cli/main';
import { imagesFollowNotice, moveToolResultImagesToUserMessages } from '../../../src/node/agent/toolResultImages';
import type { CommandIo } from '../../../src/node/cli/command';
import { lastToolText, startScriptedChatServer, toolMessages, type RecordedRequest, type ScriptedChatServer } from '../../support/scriptedChatServer';
import { temporaryFolder } from '../../support/indexFixtures';
import { corpusRoot } from '../../support/paths';
import { askScripted } from './agentHarness';
import { chunkIdsIn } from './corpusIndex';

const PICTURE_FOLDER = path.join(corpusRoot, 'pdf-docx', 'docling');
/** A PDF with two captioned raster figures and a DOCX with one captioned picture. */
const PICTURE_FILES = ['picture_classification.pdf', 'word_sample.docx'];
/** Three rephrasings a model would send together; they overlap on the PDF's figures. */
const SIBLING_QUERIES = ['example image', 'Figure 2 example image', 'cute duckling'];
const SEARCH_LIMIT = 3;
const LABEL_PATTERN = /^Page image (\d+) of (\d+), retrieved from the knowledge base for search result \[([^\]]+)\] \(([^)]+)\)\. Not provided by the user\.$/;

/** One image the server received, with the label line that came right before it. */
interface WireImage {
  label: string;
  url: string;
  role: string;
}

/** Every image part of a request body, in order, each with the text part just before it. */
function wireImages(request: RecordedRequest): WireImage[] {
  const images: WireImage[] = [];
  for (const message of request.body.messages) {
    if (!Array.isArray(message.content)) {
      continue;
    }
    const parts = message.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    parts.forEach((part, index) => {
      if (part.type === 'image_url') {
        images.push({ label: parts[index - 1]?.text ?? '', url: part.image_url!.url, role: message.role });
      }
    });
  }
  return images;
}

/** Images a request added after the ones the previous request already carried (its history). */
function newImages(requests: readonly RecordedRequest[], index: number): WireImage[] {
  return wireImages(requests[index]).slice(index > 0 ? wireImages(requests[index - 1]).length : 0);
}

function captureIo(cwd: string): CommandIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (text) => out.push(text), stderr: (text) => err.push(text), cwd, env: {} };
}

/** The store, with picture reads counted and optionally replaced (undecodable bytes). */
function countingPictures(store: LanceStore, replace?: (documentId: string, selfRef: string, image: PictureImage | undefined) => PictureImage | undefined): KnowledgeBase & { pictureReads: number } {
  const wrapper = Object.create(store) as KnowledgeBase & { pictureReads: number };
  wrapper.pictureReads = 0;
  wrapper.pictureBytes = async (documentId, selfRef) => {
    wrapper.pictureReads++;
    const image = await store.pictureBytes(documentId, selfRef);
    return replace ? replace(documentId, selfRef, image) : image;
  };
  return wrapper;
}

describe('vision: pictures attached to search returns, once per response', function () {
  this.timeout(180_000);
  let folder: { path: string; cleanup: () => void };
  let databasePath: string;
  let store: LanceStore;
  let server: ScriptedChatServer;
  /** documentId + self ref of every picture the three sibling searches' hits hold themselves. */
  let expectedPictures: Set<string>;

  before(async () => {
    folder = temporaryFolder('haiku-vision-');
    databasePath = path.join(folder.path, 'index');
    store = await openStore({ uri: databasePath });
    const summary = await indexPaths({ roots: PICTURE_FILES.map((file) => path.join(PICTURE_FOLDER, file)), store, baseFolder: PICTURE_FOLDER });
    assert.strictEqual(summary.added.length, PICTURE_FILES.length, JSON.stringify(summary.failed));
    expectedPictures = new Set();
    for (const query of SIBLING_QUERIES) {
      for (const result of await store.search(query, { limit: SEARCH_LIMIT, expand: true })) {
        for (const selfRef of result.ownPictureRefs ?? []) {
          expectedPictures.add(`${result.documentId} ${selfRef}`);
        }
      }
    }
    // Both PDF figures and the DOCX duckling: the fixture really exercises de-duplication across documents.
    assert.strictEqual(expectedPictures.size, 3, [...expectedPictures].join(', '));
  });
  after(async () => {
    await store?.close();
    folder?.cleanup();
  });
  beforeEach(async () => {
    server = await startScriptedChatServer();
  });
  afterEach(async () => {
    await server.close();
  });

  /** Three sibling searches in response 1, one search in response 2, then the answer. */
  function pushSiblingScript(): void {
    server.push(
      { toolCalls: SIBLING_QUERIES.map((query) => ({ name: 'rag_search', arguments: { query, limit: SEARCH_LIMIT } })) },
      { toolCalls: [{ name: 'rag_search', arguments: { query: 'cute duckling', limit: 1 } }] },
      { text: 'Figure 1 shows an example image.' },
    );
  }

  it('the server receives each (document, picture) once per response across three sibling searches, as user-message images after the tool replies', async () => {
    pushSiblingScript();
    const knowledgeBase = countingPictures(store);
    await askScripted(server, knowledgeBase, { settings: { vision: true } });
    assert.strictEqual(server.requests.length, 3);

    const first = newImages(server.requests, 1);
    const seen = new Map<string, string>();
    const chunks = new Map((await store.getChunks(first.map((image) => LABEL_PATTERN.exec(image.label)?.[3] ?? ''))).map((chunk) => [chunk.chunkId, chunk]));
    for (const image of first) {
      const label = LABEL_PATTERN.exec(image.label);
      assert.ok(label, `a label line precedes every image: ${image.label}`);
      assert.strictEqual(image.role, 'user', 'chat completions take images in user messages only');
      const documentId = chunks.get(label[3])!.documentId;
      const key = `${documentId} ${label[4]}`;
      assert.ok(!seen.has(key), `${key} attached twice in one response`);
      seen.set(key, image.url);
      const stored = await store.pictureBytes(documentId, label[4]);
      assert.strictEqual(image.url, `data:${stored!.mimeType};base64,${Buffer.from(stored!.bytes).toString('base64')}`, 'the stored bytes, unchanged');
    }
    assert.deepStrictEqual(new Set(seen.keys()), expectedPictures);
    // Labels number the images of their own search return: each return's labels run 1..n.
    for (const image of first) {
      const [, index, total] = LABEL_PATTERN.exec(image.label)!;
      assert.ok(Number(index) >= 1 && Number(index) <= Number(total));
    }
    // Tool messages stay text: no base64 rides along as JSON text.
    for (const message of toolMessages(server.requests[1])) {
      assert.ok(!message.content.includes('base64') && !message.content.includes('iVBORw0KGgo'), message.content.slice(0, 200));
    }
    const firstToolReplies = toolMessages(server.requests[1]).map((message) => message.content).join('\n');
    assert.match(firstToolReplies, /^Figure caption \(#\/pictures\/0\): Figure 1: This is an example image\.$/m, 'format_for_agent lists captioned figures');
    assert.match(firstToolReplies, /^Figure caption \(#\/pictures\/0\): Figure 1: This is a cute duckling$/m);
    // The user message with the images comes right after the tool replies of that response.
    const roles = server.requests[1].body.messages.map((message) => message.role);
    assert.deepStrictEqual(roles.slice(-SIBLING_QUERIES.length - 1), [...SIBLING_QUERIES.map(() => 'tool'), 'user']);

    // A later response starts a new ledger: the duckling is shown again.
    const second = newImages(server.requests, 2);
    assert.strictEqual(second.length, 1);
    assert.match(second[0].label, /^Page image 1 of 1, .*\(#\/pictures\/0\)/);
    const duckling = first.find((image) => image.url === second[0].url);
    assert.ok(duckling && /\(#\/pictures\/0\)/.test(duckling.label), 'the same picture as in response 1');
    assert.strictEqual(knowledgeBase.pictureReads, expectedPictures.size + 1, 'bytes are read once per attachment, never for a repeat');
  });

  it('vision off: no image reaches the server and no picture bytes are read', async () => {
    pushSiblingScript();
    const knowledgeBase = countingPictures(store);
    const { events } = await askScripted(server, knowledgeBase, { settings: { vision: false } });
    assert.strictEqual(server.requests.length, 3);
    for (const request of server.requests) {
      assert.deepStrictEqual(wireImages(request), []);
      assert.doesNotMatch(JSON.stringify(request.body), /Page image \d+ of \d+/, 'no label lines either');
    }
    assert.strictEqual(knowledgeBase.pictureReads, 0);
    assert.ok(!events.some((event) => event.type === 'pictures-attached'));
    // The captions are text, so the model still learns the figures exist.
    assert.match(lastToolText(server.requests[1]), /Figure caption \(#\/pictures\/\d\): /);
  });

  it('a picture whose bytes do not decode, or whose read fails, is skipped, and the labels stay aligned', async () => {
    const [broken, unreadable] = [...expectedPictures].sort();
    const knowledgeBase = countingPictures(store, (documentId, selfRef, image) => {
      if (`${documentId} ${selfRef}` === unreadable) {
        throw new Error('the picture row is gone');
      }
      // A truncated PNG: the signature without its header chunk.
      return `${documentId} ${selfRef}` === broken && image ? { ...image, bytes: image.bytes.subarray(0, 12) } : image;
    });
    server.push({ toolCalls: SIBLING_QUERIES.map((query) => ({ name: 'rag_search', arguments: { query, limit: SEARCH_LIMIT } })) }, { text: 'done' });
    const { events } = await askScripted(server, knowledgeBase, { settings: { vision: true } });
    const images = newImages(server.requests, 1);
    assert.strictEqual(images.length, expectedPictures.size - 2);
    const attached = events.flatMap((event) => (event.type === 'pictures-attached' ? event.pictures.map((picture) => `${picture.documentId} ${picture.selfRef}`) : []));
    assert.ok(!attached.includes(broken) && !attached.includes(unreadable), 'the undecodable and the unreadable picture are not attached');
    assert.strictEqual(attached.length, images.length);
    // Within each return, numbering has no gap where the broken picture was: 1..n of n.
    for (const event of events) {
      if (event.type === 'pictures-attached') {
        const labels = images.splice(0, event.pictures.length).map((image) => LABEL_PATTERN.exec(image.label)!.slice(1, 3).map(Number));
        assert.deepStrictEqual(labels, event.pictures.map((_, index) => [index + 1, event.pictures.length]));
      }
    }
  });

  it('the ledger attaches only a hit\'s own pictures, never the ones expansion swept in', async () => {
    const [document] = await store.listDocuments({ filter: "relative_path = 'picture_classification.pdf'" });
    const base: SearchResult = {
      chunkId: 'c1', documentId: document.id, uri: document.uri, title: document.title, content: 'x', headings: [], labels: ['paragraph'],
      pageNumbers: [1], docItemRefs: ['#/texts/0'], score: 1, rank: 1,
    };
    const ledger = new PictureAttachmentLedger();
    const swept = await ledger.attach(0, [{ ...base, pictureRefs: ['#/pictures/0', '#/pictures/1'], ownPictureRefs: ['#/pictures/1'] }], store);
    assert.deepStrictEqual(swept.map((picture) => [picture.selfRef, picture.label]), [['#/pictures/1', pictureLabel(1, 1, 'c1', '#/pictures/1')]]);
    // Without expansion every picture ref is the hit's own; the one already shown in this response is not repeated.
    const raw = await ledger.attach(0, [{ ...base, pictureRefs: ['#/pictures/0', '#/pictures/1'] }], store);
    assert.deepStrictEqual(raw.map((picture) => picture.selfRef), ['#/pictures/0']);
    assert.deepStrictEqual((await ledger.attach(1, [{ ...base, pictureRefs: ['#/pictures/1'] }], store)).map((picture) => picture.selfRef), ['#/pictures/1']);
  });

  it('chat-completions prompts: tool results keep their text, their labelled images move to one user message after the tool replies', () => {
    const label = pictureLabel(1, 1, 'c1', '#/pictures/0');
    const moved = moveToolResultImagesToUserMessages([
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      { role: 'tool', content: [
        { type: 'tool-result', toolCallId: 'a', toolName: 'rag_search', output: { type: 'text', value: 'plain' } },
        { type: 'tool-result', toolCallId: 'b', toolName: 'rag_search', output: { type: 'content', value: [{ type: 'text', text: 'results' }, { type: 'text', text: label }, { type: 'image-data', data: 'AAAA', mediaType: 'image/png' }] } },
      ] },
      { role: 'assistant', content: [{ type: 'text', text: 'answer' }] },
    ]);
    assert.deepStrictEqual(moved.map((message) => message.role), ['user', 'tool', 'user', 'assistant']);
    assert.deepStrictEqual(moved[1].content, [
      { type: 'tool-result', toolCallId: 'a', toolName: 'rag_search', output: { type: 'text', value: 'plain' } },
      { type: 'tool-result', toolCallId: 'b', toolName: 'rag_search', output: { type: 'text', value: `results\n\n${imagesFollowNotice(1)}` } },
    ]);
    assert.deepStrictEqual(moved[2].content, [{ type: 'text', text: label }, { type: 'file', data: 'AAAA', mediaType: 'image/png' }]);
  });

  it('expansion marks own pictures (directly or through their caption) apart from swept-in ones, and collects captions', () => {
    const item = (position: number, selfRef: string, label: SearchResult['labels'][number], text: string) => ({ position, selfRef, label, text, pageNumbers: [1] });
    const items = [
      item(0, '#/texts/0', 'section_header', 'Results'),
      item(1, '#/texts/1', 'paragraph', 'The measured values are shown below and discussed in the text.'),
      item(2, '#/pictures/0', 'picture', ''),
      item(3, '#/texts/2', 'caption', 'Figure 1: measured values'),
      item(4, '#/pictures/1', 'picture', ''),
      item(5, '#/texts/3', 'caption', 'Figure 2: the setup'),
    ];
    const hit = (chunkId: string, refs: string[]): SearchResult => ({
      chunkId, documentId: 'd', uri: 'file:///d.pdf', title: 'D', content: 'c', headings: [], labels: ['paragraph'], pageNumbers: [1], docItemRefs: refs, score: 1, rank: 1,
    });
    const [paragraph] = expandSearchResults([hit('p', ['#/texts/1'])], new Map([['d', items]]), { maxContextChars: 10_000 });
    assert.deepStrictEqual(paragraph.pictureRefs, ['#/pictures/0', '#/pictures/1']);
    assert.deepStrictEqual(paragraph.ownPictureRefs, [], 'the section\'s figures are context, not the hit');
    assert.deepStrictEqual(paragraph.pictureCaptions, { '#/pictures/0': 'Figure 1: measured values', '#/pictures/1': 'Figure 2: the setup' });
    const [caption] = expandSearchResults([hit('c', ['#/texts/3'])], new Map([['d', items]]), { maxContextChars: 10_000 });
    assert.deepStrictEqual(caption.ownPictureRefs, ['#/pictures/1'], 'a matched caption brings its picture');
  });

  it('in-code search() hits carry picture_refs; items.jsonl keeps the picture label and caption text, never bytes', async () => {
    const [document] = await store.listDocuments({ filter: "relative_path = 'picture_classification.pdf'" });
    server.push(
      {
        toolCalls: [{
          name: 'execute_code',
          arguments: {
            code: `const hits = await search("example image", 3);
const lines = await readLines('/documents/${document.id}/items.jsonl');
const file = await readFile('/documents/${document.id}/items.jsonl');
console.log(JSON.stringify({ refs: hits.map((hit) => hit.picture_refs), pictures: lines.filter((line) => line.includes('"picture"')).map((line) => JSON.parse(line)), size: file.length }));`,
          },
        }],
      },
      { text: 'done' },
    );
    await askScripted(server, store, { mode: 'analysis', createSandbox: (host) => createCodeSandbox({ host }), settings: { vision: true } });
    const printed = JSON.parse(lastToolText(server.requests[1]).trim().split('\n')[0]) as { refs: string[][]; pictures: Array<Record<string, unknown>>; size: number };
    assert.ok(printed.refs.some((refs) => refs.includes('#/pictures/0')), JSON.stringify(printed.refs));
    assert.deepStrictEqual(printed.pictures.map((line) => [line.self_ref, line.label]), [['#/pictures/0', 'picture'], ['#/pictures/1', 'picture']]);
    assert.deepStrictEqual(Object.keys(printed.pictures[0]).sort(), ['chunk_ids', 'heading_level', 'label', 'page_numbers', 'self_ref', 'text']);
    assert.ok(printed.size < 5_000, `items.jsonl holds no image data (${printed.size} characters)`);
    assert.deepStrictEqual(newImages(server.requests, 1), [], 'code output never carries pictures');
  });

  it('haiku ask --vision --json: citations carry picture_refs and the model saw the pictures', async () => {
    server.push(
      { toolCalls: [{ name: 'rag_search', arguments: { query: 'cute duckling', limit: 1 } }] },
      (request) => ({ toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: chunkIdsIn(lastToolText(request)).slice(0, 1) } }] }),
      { text: 'A cartoon duckling.' },
    );
    const io = captureIo(folder.path);
    const code = await runCli(['ask', 'What does figure 1 show?', '--db', databasePath, '--base-url', server.baseUrl, '--model', 'scripted', '--vision', '--json'], io);
    assert.strictEqual(code, 0, io.err.join(''));
    const printed = JSON.parse(io.out.join('')) as { citations: Array<{ picture_refs: string[]; uri: string }> };
    assert.strictEqual(printed.citations.length, 1);
    assert.match(printed.citations[0].uri, /word_sample\.docx$/);
    assert.deepStrictEqual(printed.citations[0].picture_refs, ['#/pictures/0']);
    assert.strictEqual(newImages(server.requests, 1).length, 1);
    assert.strictEqual(newImages(server.requests, 2).length, 0, 'citing attaches nothing');

    // As text, the citation names its figure.
    server.push(
      { toolCalls: [{ name: 'rag_search', arguments: { query: 'cute duckling', limit: 1 } }] },
      (request) => ({ toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: chunkIdsIn(lastToolText(request)).slice(0, 1) } }] }),
      { text: 'A cartoon duckling.' },
    );
    const textIo = captureIo(folder.path);
    assert.strictEqual(await runCli(['ask', 'What does figure 1 show?', '--db', databasePath, '--base-url', server.baseUrl, '--model', 'scripted'], textIo), 0, textIo.err.join(''));
    assert.match(textIo.out.join(''), /^ {4}\[Figure: #\/pictures\/0\]$/m);
  });
});
