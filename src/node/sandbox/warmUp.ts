import { SANDBOX_WARM_UP_DOCUMENTS, SANDBOX_WARM_UP_LINES } from '../../core/limits';
import { GuestSession, type GuestSessionOptions } from './guestSession';

/**
 * Guest code shaped like an analysis program: it lists documents, reads each one's `toc.json`, `items.jsonl` and
 * text, parses every line, searches, and prints. Whatever runs here first (the QuickJS bridge's JavaScript, the
 * binary value encoder, the wasm functions behind promises, strings and `JSON.parse`) is compiled and optimised
 * by V8 before the question's first `execute_code` needs it.
 */
const WARM_UP_PROGRAM = `
let items = 0;
for (const document of await list_documents()) {
  const toc = await readJson('/documents/' + document.id + '/toc.json');
  for (const line of await readLines('/documents/' + document.id + '/items.jsonl')) {
    const item = JSON.parse(line);
    if (item.label === 'paragraph' && item.text.length > toc.tree.length) { items++; }
  }
  items += (await readFile('/documents/' + document.id + '/text.md')).length > 0 ? 1 : 0;
}
const hits = await search('warm up', 3);
console.log(items, hits.length);`;

/** Synthetic answers for the warm-up's host calls; nothing of the user's index is read. */
function warmUpHost(): (method: string, args: unknown[]) => Promise<string> {
  const documents = Array.from({ length: SANDBOX_WARM_UP_DOCUMENTS }, (_, index) => ({ id: `d${index}`, uri: `file:///warm/${index}.md`, title: `Warm ${index}` }));
  const toc = JSON.stringify({ document_id: 'd', tree: [{ title: 'Section', level: 1, self_ref: '#/texts/0', children: [] }] });
  const items = Array.from({ length: SANDBOX_WARM_UP_LINES }, (_, index) => JSON.stringify({
    self_ref: `#/texts/${index}`, label: index % 10 === 0 ? 'section_header' : 'paragraph', text: `Paragraph ${index} of warm-up text, ${'lorem ipsum '.repeat(index % 7)}`, chunk_ids: [`c${index >> 3}`],
  })).join('\n');
  const text = '# Warm\n\n' + 'Some text to read. '.repeat(80);
  const hits = JSON.stringify([{ chunk_id: 'c0', document_id: 'd0', title: 'Warm 0', content: 'warm up', headings: [], score: 1, rank: 1 }]);
  return async (method, args) => {
    const path = String(args[0] ?? '');
    switch (method) {
      case 'list_documents':
        return JSON.stringify(documents);
      case 'search':
        return hits;
      case 'readFile':
        return path.endsWith('/toc.json') ? toc : path.endsWith('/items.jsonl') ? items : text;
      default:
        return '[]';
    }
  };
}

/**
 * Runs the warm-up program in a throwaway session (its own QuickJS runtime; the real session's globals and heap
 * are untouched). A fresh worker's first analysis program ran ~20 ms slower than the same program warm.
 * Best effort: a failure only means the first program runs cold.
 */
export async function warmUpGuestPaths(options: Omit<GuestSessionOptions, 'callHost'>): Promise<void> {
  let session: GuestSession | undefined;
  try {
    session = await GuestSession.create({ ...options, callHost: warmUpHost() });
    await session.execute(WARM_UP_PROGRAM, Date.now() + 5_000, 5);
  } catch {
    // Nothing to report: the real session works without it.
  } finally {
    session?.dispose();
  }
}
