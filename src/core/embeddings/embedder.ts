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

/**
 * The embedder's vector dimension; when the settings did not give one, asks the server once.
 * The store needs it before it can create the vector column.
 */
export async function embedderDimensions(embedder: Embedder, options: { abortSignal?: AbortSignal } = {}): Promise<number> {
  if (embedder.dimensions > 0) {
    return embedder.dimensions;
  }
  const [vector] = await embedder.embed(['dimension probe'], { kind: 'document', abortSignal: options.abortSignal });
  return vector.length;
}
