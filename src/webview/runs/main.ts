import { pictureKey, picturesOf, type HostToWebviewMessage, type RenderedCounts, type RunChunkView, type RunThumbnail, type RunView, type WebviewToHostMessage } from '../../shared/runsProtocol';
import DOMPurify from 'dompurify';
import { answerHtml } from './answerMarkdown';
import { tokenize } from './highlight';

/**
 * The runs panel: renders the host's state with DOM calls (no innerHTML), and sends back ids. The answer's
 * Markdown becomes a DOM fragment sanitised by DOMPurify; its links are made inert and its `[n]` markers of
 * citations become links that open the cited chunk.
 */
declare function acquireVsCodeApi(): { postMessage(message: unknown): void; getState(): unknown; setState(state: unknown): void };

const vscodeApi = acquireVsCodeApi();
let runs: RunView[] = [];
let selectedRunId: string | undefined;
/** Thumbnails the host sent, by `pictureKey`; kept for the life of this webview. */
const thumbnails = new Map<string, RunThumbnail>();

function post(message: WebviewToHostMessage): void {
  vscodeApi.postMessage(message);
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, options: { className?: string; text?: string } = {}, ...children: Node[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (options.className) {
    node.className = options.className;
  }
  if (options.text !== undefined) {
    node.textContent = options.text;
  }
  node.append(...children);
  return node;
}

function highlightedCode(code: string): HTMLElement {
  const pre = element('pre', { className: 'code' });
  const codeElement = element('code', { className: 'language-js highlighted' });
  for (const token of tokenize(code)) {
    codeElement.append(token.kind === 'plain' ? document.createTextNode(token.text) : element('span', { className: `token-${token.kind}`, text: token.text }));
  }
  pre.append(codeElement);
  return pre;
}

function chunkLink(run: RunView, chunk: RunChunkView, label: string): HTMLElement {
  const link = element('a', { className: 'chunk-link', text: label });
  link.href = '#';
  link.dataset.chunkId = chunk.chunkId;
  link.title = `Open ${chunk.relativePath} ${chunk.locationLabel}`.trim();
  link.addEventListener('click', (event) => {
    event.preventDefault();
    post({ type: 'openChunk', runId: run.id, chunkId: chunk.chunkId });
  });
  return link;
}

function chunkDescription(chunk: RunChunkView): HTMLElement {
  const trail = chunk.headings.length > 0 ? ` › ${chunk.headings.join(' › ')}` : '';
  return element('div', { className: 'chunk' },
    element('div', { className: 'chunk-title', text: `${chunk.relativePath}${trail}` }),
    element('div', { className: 'chunk-preview', text: chunk.preview }));
}

/** The pictures of some chunks as clickable thumbnails (a link where the host sent no image data); each opens the picture. */
function thumbnailStrip(run: RunView, chunks: readonly RunChunkView[], counts: RenderedCounts): HTMLElement | undefined {
  const pictures = picturesOf(chunks);
  if (pictures.length === 0) {
    return undefined;
  }
  const strip = element('div', { className: 'thumbnails' });
  for (const picture of pictures) {
    const thumbnail = thumbnails.get(pictureKey(picture.documentId, picture.selfRef));
    const link = element('a', { className: 'thumbnail' });
    link.href = '#';
    link.title = `Open picture ${picture.selfRef} of ${picture.relativePath}${thumbnail ? ` (${thumbnail.width}×${thumbnail.height})` : ''}`;
    link.dataset.pictureRef = picture.selfRef;
    if (thumbnail?.dataUri) {
      const image = element('img');
      image.src = thumbnail.dataUri;
      image.alt = link.title;
      link.append(image);
      counts.thumbnails++;
    } else {
      link.textContent = `picture ${picture.selfRef.replace('#/pictures/', '')}`;
    }
    link.addEventListener('click', (event) => {
      event.preventDefault();
      post({ type: 'openPicture', runId: run.id, documentId: picture.documentId, selfRef: picture.selfRef });
    });
    strip.append(link);
  }
  return strip;
}

const ANSWER_BLOCKS = 'p, h1, h2, h3, h4, h5, h6, ul, ol, blockquote, pre, table';

function renderedAnswer(run: RunView, counts: RenderedCounts): HTMLElement {
  const container = element('div', { className: 'answer markdown' });
  const fragment = DOMPurify.sanitize(answerHtml(run.answer), { RETURN_DOM_FRAGMENT: true, FORBID_TAGS: ['img', 'style', 'form', 'input', 'button'] });
  for (const link of Array.from(fragment.querySelectorAll('a'))) {
    // Answers come from a model: a link may not navigate the webview; its target stays visible as a tooltip.
    link.title = link.getAttribute('href') ?? '';
    link.removeAttribute('href');
  }
  linkCitationMarkers(run, fragment);
  counts.answerBlocks = fragment.querySelectorAll(ANSWER_BLOCKS).length;
  counts.highlightedBlocks += fragment.querySelectorAll('code.highlighted').length;
  container.append(fragment);
  return container;
}

/** Turns `[n]` in the answer's text (outside code) into links to citation n. */
function linkCitationMarkers(run: RunView, root: DocumentFragment): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const textNodes: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!(node.parentElement?.closest('code, pre'))) {
      textNodes.push(node as Text);
    }
  }
  for (const textNode of textNodes) {
    const parts = (textNode.textContent ?? '').split(/(\[\d+\])/);
    if (parts.length === 1) {
      continue;
    }
    textNode.replaceWith(...parts.map((part) => {
      const citation = /^\[(\d+)\]$/.test(part) ? run.citations.find((candidate) => `[${candidate.index}]` === part) : undefined;
      return citation ? chunkLink(run, citation, part) : document.createTextNode(part);
    }));
  }
}

function renderRun(run: RunView): { node: HTMLElement; counts: RenderedCounts } {
  const counts: RenderedCounts = { executions: 0, searches: 0, hits: 0, citations: 0, highlightedBlocks: 0, answerBlocks: 0, thumbnails: 0 };
  const section = element('section', { className: `run run-${run.status}` });
  section.dataset.runId = run.id;
  section.append(element('h2', { className: 'question', text: run.question }));
  const meta = [`route: ${run.route}`, run.model ? `model: ${run.model}` : '', `status: ${run.status}`, run.durationMs !== undefined ? `${(run.durationMs / 1000).toFixed(1)} s` : '']
    .filter(Boolean).join(' · ');
  section.append(element('div', { className: 'meta', text: meta }));
  if (run.error) {
    section.append(element('div', { className: 'error', text: run.error }));
  }
  if (run.answer) {
    section.append(element('h3', { text: 'Answer' }), renderedAnswer(run, counts));
  }
  const steps = element('ol', { className: 'steps' });
  for (const step of run.steps) {
    if (step.kind === 'search') {
      counts.searches++;
      const hits = element('ol', { className: 'hits' });
      for (const hit of step.hits) {
        counts.hits++;
        hits.append(element('li', { className: 'hit' }, chunkLink(run, hit, `#${hit.rank} ${hit.locationLabel || 'open'}`),
          element('span', { className: 'score', text: ` score ${hit.score.toFixed(3)}` }), chunkDescription(hit)));
      }
      const item = element('li', { className: 'step step-search' },
        element('div', { className: 'step-title', text: `Search (${step.source}): ${step.query}${step.refused ? ' — refused (budget spent)' : ''}` }));
      const strip = thumbnailStrip(run, step.hits, counts);
      if (strip) {
        item.append(strip);
      }
      item.append(step.hits.length > 0 ? hits : element('div', { className: 'empty', text: 'No hits.' }));
      steps.append(item);
    } else {
      counts.executions++;
      counts.highlightedBlocks++;
      const item = element('li', { className: `step step-execution ${step.success ? 'success' : 'failure'}` },
        element('div', { className: 'step-title', text: `execute_code — ${step.success ? 'succeeded' : 'failed'} in ${step.durationMs} ms` }),
        highlightedCode(step.code));
      if (step.stdout) {
        item.append(element('div', { className: 'stream-label', text: 'stdout' }), element('pre', { className: 'stdout', text: step.stdout }));
      }
      if (step.stderr) {
        item.append(element('div', { className: 'stream-label', text: 'stderr' }), element('pre', { className: 'stderr', text: step.stderr }));
      }
      steps.append(item);
    }
  }
  if (run.steps.length > 0) {
    section.append(element('h3', { text: 'Steps' }), steps);
  }
  const citations = element('ol', { className: 'citations' });
  for (const citation of run.citations) {
    counts.citations++;
    citations.append(element('li', { className: 'citation' }, chunkLink(run, citation, `[${citation.index}] ${citation.locationLabel || 'open'}`), chunkDescription(citation)));
  }
  section.append(element('h3', { text: `Citations (${run.citations.length})` }), run.citations.length > 0 ? citations : element('div', { className: 'empty', text: 'No citations.' }));
  const citedPictures = thumbnailStrip(run, run.citations, counts);
  if (citedPictures) {
    section.append(element('h3', { text: 'Cited pictures' }), citedPictures);
  }
  return { node: section, counts };
}

function render(): void {
  const root = document.getElementById('root');
  if (!root) {
    return;
  }
  root.replaceChildren();
  if (runs.length === 0) {
    root.append(element('p', { className: 'empty', text: 'No runs yet. Ask @haiku a question in the chat.' }));
    return;
  }
  const selected = runs.find((run) => run.id === selectedRunId) ?? runs[runs.length - 1];
  const list = element('nav', { className: 'run-list' });
  for (const run of [...runs].reverse()) {
    const button = element('button', { className: run.id === selected.id ? 'run-item selected' : 'run-item', text: run.question || '(empty question)' });
    button.title = `${run.route} · ${run.status}`;
    button.addEventListener('click', () => {
      selectedRunId = run.id;
      post({ type: 'selectRun', runId: run.id });
      render();
    });
    list.append(button);
  }
  const { node, counts } = renderRun(selected);
  root.append(list, node);
  post({ type: 'rendered', runId: selected.id, counts });
}

window.addEventListener('message', (event: MessageEvent<HostToWebviewMessage>) => {
  const message = event.data;
  if (message.type === 'state') {
    runs = message.runs;
    selectedRunId = message.selectedRunId ?? selectedRunId;
    render();
  } else if (message.type === 'select') {
    selectedRunId = message.runId;
    render();
  } else if (message.type === 'thumbnails') {
    for (const [key, thumbnail] of Object.entries(message.thumbnails)) {
      thumbnails.set(key, thumbnail);
    }
    if (message.runId === (selectedRunId ?? runs[runs.length - 1]?.id)) {
      render();
    }
  }
});

post({ type: 'ready' });
