import { RUNS_KEPT } from '../../core/limits';
import { runPictures, type RenderedCounts, type RunChunkView, type RunPictureView, type RunView } from '../../shared/runsProtocol';

/** Counts the webview reports after rendering a run: what it drew. */
export type RenderReport = RenderedCounts & { runId: string };

/** The runs of this window, newest last, capped at `RUNS_KEPT`. Plain data plus listeners; no `vscode` import. */
export class RunsStore {
  private readonly runs: RunView[] = [];
  private readonly listeners = new Set<(run: RunView) => void>();

  all(): RunView[] {
    return [...this.runs];
  }

  get(runId: string): RunView | undefined {
    return this.runs.find((run) => run.id === runId);
  }

  latest(): RunView | undefined {
    return this.runs[this.runs.length - 1];
  }

  /** Adds or replaces a run (by id) and notifies listeners. */
  put(run: RunView): void {
    const index = this.runs.findIndex((existing) => existing.id === run.id);
    if (index >= 0) {
      this.runs[index] = run;
    } else {
      this.runs.push(run);
      this.runs.splice(0, Math.max(0, this.runs.length - RUNS_KEPT));
    }
    for (const listener of this.listeners) {
      listener(run);
    }
  }

  onDidChange(listener: (run: RunView) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** True when the run shows this chunk (as a hit or a citation): the webview may only open those. */
  showsChunk(runId: string, chunkId: string): boolean {
    return this.shownChunk(runId, chunkId) !== undefined;
  }

  /** The picture of this run (a thumbnail it shows) with this document and ref, or undefined: the webview may only open those. */
  shownPicture(runId: string, documentId: string, selfRef: string): RunPictureView | undefined {
    const run = this.get(runId);
    return run ? runPictures(run).find((picture) => picture.documentId === documentId && picture.selfRef === selfRef) : undefined;
  }

  /** The citation (else the search hit) of this run that shows `chunkId`, or undefined. */
  shownChunk(runId: string, chunkId: string): RunChunkView | undefined {
    const run = this.get(runId);
    if (!run) {
      return undefined;
    }
    return run.citations.find((citation) => citation.chunkId === chunkId)
      ?? run.steps.flatMap((step) => (step.kind === 'search' ? step.hits : [])).find((hit) => hit.chunkId === chunkId);
  }
}
