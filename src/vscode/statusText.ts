/** The index status as the status bar shows it (pure; the item itself lives in statusBar.ts). */
export interface IndexStatusView {
  state: 'waiting-for-trust' | 'idle' | 'starting' | 'indexing' | 'ready' | 'paused' | 'error';
  documents: number;
  chunks: number;
  progress?: { done: number; total: number };
  message?: string;
  /** Files the index could not index (a corrupt PDF, a file over the size limit). */
  notIndexed?: number;
}

/** Translates a message with `{0}`-style placeholders (`vscode.l10n.t` in the host). */
export type Translate = (message: string, ...args: Array<string | number>) => string;

/** Fills the placeholders without translating (tests, and the default). */
export const untranslated: Translate = (message, ...args) => message.replace(/\{(\d+)\}/g, (whole, index: string) => String(args[Number(index)] ?? whole));

/** What the status-bar item says for a status (pure; exported for tests). */
export function statusBarText(status: IndexStatusView, t: Translate = untranslated): { text: string; tooltip: string; warning?: true } {
  const counts = t('{0} documents, {1} chunks', status.documents, status.chunks);
  // Said in words: a bare number on the status bar does not say what it counts.
  const documents = status.documents === 1 ? t('1 document') : t('{0} documents', status.documents);
  const notIndexed = status.notIndexed ?? 0;
  switch (status.state) {
    case 'waiting-for-trust':
      return { text: '$(shield) Haiku', tooltip: t('Haiku waits for workspace trust before indexing.') };
    case 'idle':
      return { text: '$(book) Haiku', tooltip: t('Haiku has nothing to index yet (no indexable files, or automatic indexing is off). Click to see the log.') };
    case 'starting':
      return { text: '$(loading~spin) Haiku', tooltip: t('Haiku is opening its index.') };
    case 'indexing': {
      const progress = status.progress && status.progress.total > 0 ? ` ${status.progress.done}/${status.progress.total}` : '';
      return { text: `$(sync~spin) Haiku${progress}`, tooltip: t('Indexing… ({0}). Click to pause.', counts) };
    }
    case 'paused':
      return { text: '$(debug-pause) Haiku', tooltip: t('Indexing paused ({0}). Click to resume.', counts) };
    case 'error':
      return { text: '$(error) Haiku', tooltip: t('Indexing failed: {0}. Click to see the log.', status.message ?? t('unknown error')) };
    case 'ready':
      if (notIndexed > 0) {
        return {
          text: `$(warning) Haiku: ${documents} · ${notIndexed === 1 ? t('1 not indexed') : t('{0} not indexed', notIndexed)}`,
          tooltip: t('Haiku index ready: {0}. {1} file(s) could not be indexed: the Problems panel and the Sections view (Not indexed) say why. Click to open the Problems panel.', counts, notIndexed),
          warning: true,
        };
      }
      return { text: `$(book) Haiku: ${documents}`, tooltip: t('Haiku index ready: {0}.', counts) };
  }
}

