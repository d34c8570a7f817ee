import type { Table as ArrowTable, Vector } from 'apache-arrow';
import { columnValues, plainDocumentState } from './arrowRows';
import type { DocumentState } from './schema';

/** States made from single cells before the rest are made at once, column by column. */
const STATES_MADE_ONE_BY_ONE_MAX = 256;

/**
 * Every document's state, read in one query but made into objects only when asked for. A search checks the
 * generation of a few hits' documents, and a one-shot `haiku search` spent ~45 ms of its ~0.5 s turning 5,183
 * states into objects (and collecting them) to read ten. Ids are decoded at once; a state is built on `get`, and all
 * of them, in the table's order, as soon as the map is iterated or changed.
 */
export class DocumentStateMap extends Map<string, DocumentState> {
  private readonly columns: ReadonlyMap<string, Vector>;
  /** Row of each document id (the last row of an id, as filling a Map row by row kept). */
  private readonly rowOf = new Map<string, number>();
  /** The id column, decoded once (for `rowOf`, and for `fill`). */
  private readonly ids: unknown[];
  private readonly rowCount: number;
  private filled = false;
  private madeOneByOne = 0;
  /** The generation column, decoded on the first `generationOf` (liveness checks need nothing else). */
  private generations: unknown[] | undefined;

  constructor(table: ArrowTable) {
    super();
    this.columns = new Map(table.schema.fields.map((field) => [field.name, table.getChild(field.name)!]));
    this.rowCount = table.numRows;
    this.ids = this.rowCount === 0 ? [] : columnValues(this.columns.get('id')!);
    this.ids.forEach((id, row) => this.rowOf.set(String(id), row));
  }

  override get(id: string): DocumentState | undefined {
    const made = super.get(id);
    if (made !== undefined || this.filled) {
      return made;
    }
    const row = this.rowOf.get(id);
    if (row === undefined) {
      return undefined;
    }
    if (++this.madeOneByOne > STATES_MADE_ONE_BY_ONE_MAX) {
      // Many lookups (the liveness of every hit of a common word): whole columns decode faster than cell by cell.
      this.fill();
      return super.get(id);
    }
    const state = this.stateAt(row);
    super.set(id, state);
    return state;
  }

  /**
   * A document's current generation, without making its state: a search checks the liveness of every hit of a
   * common word (3,640 for "cells" on SciFact), and making all 5,183 states for that took 75–107 ms.
   */
  generationOf(id: string): string | undefined {
    if (this.filled) {
      return super.get(id)?.generation;
    }
    const row = this.rowOf.get(id);
    if (row === undefined) {
      return undefined;
    }
    this.generations ??= columnValues(this.columns.get('generation')!);
    return String(this.generations[row]);
  }

  /** The row of `id` in the table the map was made from. */
  rowIndexOf(id: string): number | undefined {
    return this.rowOf.get(id);
  }

  override has(id: string): boolean {
    return this.filled ? super.has(id) : this.rowOf.has(id);
  }

  override get size(): number {
    return this.filled ? super.size : this.rowOf.size;
  }

  override keys(): MapIterator<string> {
    this.fill();
    return super.keys();
  }

  override values(): MapIterator<DocumentState> {
    this.fill();
    return super.values();
  }

  override entries(): MapIterator<[string, DocumentState]> {
    this.fill();
    return super.entries();
  }

  override [Symbol.iterator](): MapIterator<[string, DocumentState]> {
    return this.entries();
  }

  override forEach(callback: (value: DocumentState, key: string, map: Map<string, DocumentState>) => void, thisArg?: unknown): void {
    this.fill();
    super.forEach((value, key) => callback.call(thisArg, value, key, this));
  }

  // A write this process made (StoreWriter) changes the map: every state is made first, so the order and the
  // contents stay those of a map filled at once and then changed.
  override set(id: string, state: DocumentState): this {
    this.fill();
    return super.set(id, state);
  }

  override delete(id: string): boolean {
    this.fill();
    return super.delete(id);
  }

  override clear(): void {
    this.fill();
    super.clear();
  }

  /** Builds every state not built yet, in the table's row order (the order the map had when filled at once). */
  private fill(): void {
    if (this.filled) {
      return;
    }
    const made = new Map(super.entries());
    super.clear();
    const decoded = new Map([...this.columns].map(([name, vector]) => [name, name === 'id' ? this.ids : columnValues(vector)]));
    for (let row = 0; row < this.rowCount; row++) {
      const id = String(this.ids[row]);
      if (super.has(id)) {
        continue;
      }
      // An id stored twice takes the place of its first row and the state of its last, as Map.set row by row did.
      const last = this.rowOf.get(id)!;
      super.set(id, made.get(id) ?? this.stateFrom((name) => decoded.get(name)![last]));
    }
    this.filled = true;
    this.generations = undefined;
  }

  private stateAt(row: number): DocumentState {
    return this.stateFrom((_, vector) => vector.get(row));
  }

  /** A state from each column's value for one row (from decoded columns, or a single cell). */
  private stateFrom(valueOf: (name: string, vector: Vector) => unknown): DocumentState {
    return plainDocumentState(Object.fromEntries([...this.columns].map(([name, vector]) => [name, valueOf(name, vector)])) as unknown as DocumentState);
  }
}

/** The current generation of a document in `states` (a plain map in tests and writers, a `DocumentStateMap` read). */
export function currentGeneration(states: ReadonlyMap<string, DocumentState>, documentId: string): string | undefined {
  return states instanceof DocumentStateMap ? states.generationOf(documentId) : states.get(documentId)?.generation;
}
