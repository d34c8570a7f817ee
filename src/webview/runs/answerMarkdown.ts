import MarkdownIt from 'markdown-it';
import { tokenize } from './highlight';

/**
 * The answer's Markdown as HTML (markdown-it; pure, unit-tested). Raw HTML in the answer stays text (`html: false`)
 * and the webview still sanitises the result with DOMPurify before it reaches the DOM. JavaScript code blocks get
 * the same token classes as the sandbox code.
 */
const markdown = new MarkdownIt({
  html: false,
  linkify: false,
  typographer: false,
  highlight: (code, language) => (/^(js|javascript|ts|typescript)$/i.test(language) ? `<pre class="code"><code class="language-js highlighted">${highlightedHtml(code)}</code></pre>` : ''),
});

export function answerHtml(answer: string): string {
  return markdown.render(answer);
}

function highlightedHtml(code: string): string {
  return tokenize(code).map((token) => (token.kind === 'plain' ? escapeHtml(token.text) : `<span class="token-${token.kind}">${escapeHtml(token.text)}</span>`)).join('');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
