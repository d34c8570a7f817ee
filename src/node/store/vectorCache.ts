/**
 * Resident copy of every live chunk vector, scanned exactly with a dot-product loop.
 * LanceDB's brute-force scan re-reads and decodes the column per query and was 3–5× slower than this loop
 * (shared notes §1, benchmarks), and below ~100k chunks no ANN index pays for its build time.
 * Rows of replaced or removed documents are marked dead and dropped when they outnumber the live ones.
 */
export class VectorCache {
  readonly dimensions: number;
  private vectors: Float32Array;
  private capacity: number;
  private count = 0;
  private deadCount = 0;
  private chunkIds: string[] = [];
  private documentSlots: Int32Array;
  private alive: Uint8Array;
  private readonly documentSlotById = new Map<string, number>();
  private documentIdBySlot: string[] = [];
  private readonly rowsByDocument = new Map<string, number[]>();

  constructor(dimensions: number, initialCapacity = 1024) {
    this.dimensions = dimensions;
    this.capacity = Math.max(16, initialCapacity);
    this.vectors = new Float32Array(this.capacity * dimensions);
    this.documentSlots = new Int32Array(this.capacity);
    this.alive = new Uint8Array(this.capacity);
  }

  get size(): number {
    return this.count - this.deadCount;
  }

  get byteLength(): number {
    return this.count * this.dimensions * 4;
  }

  /** Replaces a document's vectors (dead rows for the old ones, new rows appended). */
  setDocument(documentId: string, chunkIds: readonly string[], vectors: ReadonlyArray<ArrayLike<number>>): void {
    this.removeDocument(documentId);
    if (chunkIds.length === 0) {
      return;
    }
    this.ensureCapacity(this.count + chunkIds.length);
    let slot = this.documentSlotById.get(documentId);
    if (slot === undefined) {
      slot = this.documentIdBySlot.length;
      this.documentIdBySlot.push(documentId);
      this.documentSlotById.set(documentId, slot);
    }
    const rows: number[] = [];
    for (let index = 0; index < chunkIds.length; index++) {
      const row = this.count++;
      this.vectors.set(vectors[index], row * this.dimensions);
      this.chunkIds[row] = chunkIds[index];
      this.documentSlots[row] = slot;
      this.alive[row] = 1;
      rows.push(row);
    }
    this.rowsByDocument.set(documentId, rows);
  }

  removeDocument(documentId: string): void {
    const rows = this.rowsByDocument.get(documentId);
    if (!rows) {
      return;
    }
    for (const row of rows) {
      this.alive[row] = 0;
    }
    this.deadCount += rows.length;
    this.rowsByDocument.delete(documentId);
    if (this.deadCount > 1024 && this.deadCount > this.count / 2) {
      this.compact();
    }
  }

  /**
   * The `limit` rows with the highest dot product, best first.
   * `allowedDocumentIds` (from a filter) restricts the scan to those documents.
   */
  search(query: Float32Array, limit: number, allowedDocumentIds?: ReadonlySet<string>): Array<{ chunkId: string; score: number }> {
    if (limit <= 0 || this.size === 0) {
      return [];
    }
    let allowedSlots: Uint8Array | undefined;
    if (allowedDocumentIds) {
      allowedSlots = new Uint8Array(this.documentIdBySlot.length);
      for (const documentId of allowedDocumentIds) {
        const slot = this.documentSlotById.get(documentId);
        if (slot !== undefined) {
          allowedSlots[slot] = 1;
        }
      }
    }
    const dimensions = this.dimensions;
    const vectors = this.vectors;
    const alive = this.alive;
    const slots = this.documentSlots;
    // A bounded min-heap of (score, row): the root is the weakest of the best so far.
    const heapScores = new Float64Array(limit);
    const heapRows = new Int32Array(limit);
    let heapSize = 0;
    const count = this.count;
    const unrolledEnd = dimensions - (dimensions % 4);
    for (let row = 0; row < count; row++) {
      if (alive[row] === 0 || (allowedSlots !== undefined && allowedSlots[slots[row]] === 0)) {
        continue;
      }
      // Four accumulators: independent additions pipeline better than one running sum.
      const base = row * dimensions;
      let sum0 = 0;
      let sum1 = 0;
      let sum2 = 0;
      let sum3 = 0;
      let index = 0;
      for (let offset = base; index < unrolledEnd; index += 4, offset += 4) {
        sum0 += vectors[offset] * query[index];
        sum1 += vectors[offset + 1] * query[index + 1];
        sum2 += vectors[offset + 2] * query[index + 2];
        sum3 += vectors[offset + 3] * query[index + 3];
      }
      for (; index < dimensions; index++) {
        sum0 += vectors[base + index] * query[index];
      }
      const score = sum0 + sum1 + sum2 + sum3;
      if (heapSize < limit) {
        siftUp(heapScores, heapRows, heapSize++, score, row);
      } else if (score > heapScores[0]) {
        siftDown(heapScores, heapRows, heapSize, score, row);
      }
    }
    const results: Array<{ chunkId: string; score: number }> = [];
    for (let index = 0; index < heapSize; index++) {
      results.push({ chunkId: this.chunkIds[heapRows[index]], score: heapScores[index] });
    }
    return results.sort((left, right) => right.score - left.score);
  }

  private ensureCapacity(needed: number): void {
    if (needed <= this.capacity) {
      return;
    }
    let capacity = this.capacity;
    while (capacity < needed) {
      capacity *= 2;
    }
    const vectors = new Float32Array(capacity * this.dimensions);
    vectors.set(this.vectors.subarray(0, this.count * this.dimensions));
    const slots = new Int32Array(capacity);
    slots.set(this.documentSlots.subarray(0, this.count));
    const alive = new Uint8Array(capacity);
    alive.set(this.alive.subarray(0, this.count));
    this.vectors = vectors;
    this.documentSlots = slots;
    this.alive = alive;
    this.capacity = capacity;
  }

  private compact(): void {
    let target = 0;
    const remap = new Map<number, number>();
    for (let row = 0; row < this.count; row++) {
      if (this.alive[row] === 0) {
        continue;
      }
      if (target !== row) {
        this.vectors.copyWithin(target * this.dimensions, row * this.dimensions, (row + 1) * this.dimensions);
        this.chunkIds[target] = this.chunkIds[row];
        this.documentSlots[target] = this.documentSlots[row];
        this.alive[target] = 1;
      }
      remap.set(row, target);
      target++;
    }
    this.alive.fill(0, target, this.count);
    this.chunkIds.length = target;
    this.count = target;
    this.deadCount = 0;
    for (const [documentId, rows] of this.rowsByDocument) {
      this.rowsByDocument.set(documentId, rows.map((row) => remap.get(row) ?? row));
    }
  }
}

function siftUp(scores: Float64Array, rows: Int32Array, position: number, score: number, row: number): void {
  let index = position;
  while (index > 0) {
    const parent = (index - 1) >> 1;
    if (scores[parent] <= score) {
      break;
    }
    scores[index] = scores[parent];
    rows[index] = rows[parent];
    index = parent;
  }
  scores[index] = score;
  rows[index] = row;
}

/** Replaces the root with (score, row) and restores the heap. */
function siftDown(scores: Float64Array, rows: Int32Array, size: number, score: number, row: number): void {
  let index = 0;
  for (;;) {
    const left = 2 * index + 1;
    if (left >= size) {
      break;
    }
    const right = left + 1;
    const smaller = right < size && scores[right] < scores[left] ? right : left;
    if (scores[smaller] >= score) {
      break;
    }
    scores[index] = scores[smaller];
    rows[index] = rows[smaller];
    index = smaller;
  }
  scores[index] = score;
  rows[index] = row;
}
