import type { GuestSession } from './guestSession';

/**
 * A start-up run of the execute path in a new sandbox worker: the code rewrite (acorn), the prelude, the bridge,
 * the value encoder and the interpreter's file and JSON paths. V8 compiles functions lazily, and a fresh worker
 * paid that on the question's first `execute_code` (30–40 ms of the analysis bench's first run); here it is paid
 * while the worker starts, before the model has written any code. Its host calls are answered from the synthetic
 * files below, never by the real host, and it declares nothing at the guest's top level.
 */
const WARM_UP_CODE = `await (async () => {
  const documents = await list_documents();
  let total = 0;
  const count = (nodes) => nodes.reduce((sum, node) => sum + 1 + count(node.children), 0);
  for (const document of documents) {
    const toc = await readJson('/documents/' + document.id + '/toc.json');
    total += count(toc.tree);
    // Many lines make the host's line encoder hot; parsing a few is enough for the guest side.
    const lines = await readLines(\`/documents/\${document.id}/items.jsonl\`);
    for (let index = 0; index < lines.length; index += 50) {
      const item = JSON.parse(lines[index]);
      if (item.label === 'paragraph' && item.text.length > 10 && item.chunk_ids.length > 0) { total++; }
    }
    total += (await readFile('/documents/' + document.id + '/content.txt')).length;
  }
  const hits = await search('warm up', 3);
  return [total, hits.length].join(' ');
})()`;

const DOCUMENT_IDS = ['warm-a', 'warm-b', 'warm-c'];
/**
 * Size of the warm-up (measured on the analysis bench, loaded machine): none: start-up 68 ms CPU, first run
 * 409 ms; 1 round of 300-line files: 116 / 384; 1 of 1,500: 163 / 360; 2 of 1,500: 196 / 337. Start-up CPU is
 * spent while the model writes its first code, so a moderate size; 0 rounds turns the warm-up off.
 */
const WARM_UP_ROUNDS = 1;
const WARM_UP_ITEMS_LINES = 600;

function section(index: number, depth: number): unknown {
  return { self_ref: `#/texts/${index}`, level: depth, title: `Section ${index}`, page_numbers: [], item_range: [index, index + 4], chunk_ids: [`chunk-${index}`], children: depth < 3 ? [section(index + 1, depth + 1)] : [] };
}

/** The synthetic answers of the warm-up's host calls (JSON text, or a file's text for `readFile`). */
function answer(method: string, args: readonly unknown[]): string {
  const path = typeof args[0] === 'string' ? args[0] : '';
  if (method === 'list_documents') {
    return JSON.stringify(DOCUMENT_IDS.map((id) => ({ id, title: id, uri: `file:///${id}.md`, relative_path: `${id}.md`, format: 'markdown', created_at: '' })));
  }
  if (method === 'readFile' && path.endsWith('/toc.json')) {
    return JSON.stringify({ doc_id: path, title: 'Warm up', tree: Array.from({ length: 40 }, (_, index) => section(index * 10, 1)) }, null, 2);
  }
  if (method === 'readFile' && path.endsWith('/items.jsonl')) {
    return Array.from({ length: WARM_UP_ITEMS_LINES }, (_, index) => JSON.stringify({ self_ref: `#/texts/${index}`, label: index % 5 === 0 ? 'section_header' : 'paragraph', text: index % 7 === 0 ? `Paragraph ${index} — warm-up text.` : `Paragraph ${index}, warm-up text.`, page_numbers: [], heading_level: 0, chunk_ids: [`chunk-${index}`] })).join('\n');
  }
  if (method === 'readFile') {
    return 'Warm-up content, with a non-Latin-1 character: \u2014.';
  }
  return '[]';
}

/**
 * Runs the warm-up in `session`, whose host calls go to `answerWith` while it runs (the worker points its host
 * bridge there for the duration). Failures are ignored: the worker works without it, only slower at first.
 */
export async function warmUpSession(session: GuestSession, answerWith: (answerer: ((method: string, args: readonly unknown[]) => string) | undefined) => void, rounds = WARM_UP_ROUNDS): Promise<void> {
  answerWith(answer);
  try {
    for (let round = 0; round < rounds; round++) {
      await session.execute(WARM_UP_CODE, Date.now() + 10_000, 10);
    }
  } catch {
    // Not needed for correctness.
  } finally {
    answerWith(undefined);
  }
}
