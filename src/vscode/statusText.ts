/** The index status as the status bar shows it (pure; the item itself lives in statusBar.ts). */
export interface IndexStatusView {
  state: 'waiting-for-trust' | 'idle' | 'starting' | 'indexing' | 'ready' | 'paused' | 'error';
  documents: number;
  chunks: number;
  progress?: { done: number; total: number };
  message?: string;
}

/** What the status-bar item says for a status (pure; exported for tests). */
export function statusBarText(status: IndexStatusView): { text: string; tooltip: string } {
  const counts = `${status.documents} documents, ${status.chunks} chunks`;
  switch (status.state) {
    case 'waiting-for-trust':
      return { text: '$(shield) Haiku', tooltip: 'Haiku waits for workspace trust before indexing.' };
    case 'idle':
      return { text: '$(book) Haiku', tooltip: 'Haiku has nothing to index yet (no indexable files, or automatic indexing is off). Click to see the log.' };
    case 'starting':
      return { text: '$(loading~spin) Haiku', tooltip: 'Haiku is opening its index.' };
    case 'indexing': {
      const progress = status.progress && status.progress.total > 0 ? ` ${status.progress.done}/${status.progress.total}` : '';
      return { text: `$(sync~spin) Haiku${progress}`, tooltip: `Indexing… (${counts}). Click to pause.` };
    }
    case 'paused':
      return { text: '$(debug-pause) Haiku', tooltip: `Indexing paused (${counts}). Click to resume.` };
    case 'error':
      return { text: '$(error) Haiku', tooltip: `Indexing failed: ${status.message ?? 'unknown error'}. Click to see the log.` };
    case 'ready':
      return { text: `$(book) ${status.documents}`, tooltip: `Haiku index ready: ${counts}.` };
  }
}

