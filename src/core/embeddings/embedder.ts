/** Turns texts into vectors. `none` (no embedder) means full-text search only. */
export interface Embedder {
  /** Identity stored in the index settings, e.g. `openai:nomic-embed-text` or `local:use-lite`. */
  readonly id: string;
  readonly dimensions: number;
  /**
   * One vector per text, in order, unit length (callers use dot-product distance).
   * `kind` lets asymmetric models prefix queries differently from documents.
   */
  embed(texts: readonly string[], options: { kind: 'query' | 'document'; abortSignal?: AbortSignal }): Promise<Float32Array[]>;
}
