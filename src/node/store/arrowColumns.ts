import { makeData, RecordBatch, Struct, Table, Type, type Data, type Field, type FixedSizeList, type Schema } from 'apache-arrow';

/**
 * Rows of a known schema as an Arrow table, built column by column: each string column is encoded in one native call
 * with its offsets from `Buffer.byteLength`. LanceDB's `makeArrowTable` walks every row's keys to infer paths and
 * transposes through Arrow's builders: 0.9 s of the main thread on a SciFact ingest, while the conversion workers
 * wanted the same two cores. Gives `undefined` for a type not handled here, or a value that does not fit its field
 * (a missing value in a non-nullable column, a vector of the wrong length): the caller then lets `makeArrowTable`
 * convert, and report, the rows. Uses the `apache-arrow` instance LanceDB shares (shared notes §1, bug 3).
 */
export function arrowTableOfRows(rows: ReadonlyArray<Record<string, unknown>>, schema: Schema): Table | undefined {
  const children: Data[] = [];
  for (const field of schema.fields) {
    const column = columnData(field, rows.map((row) => row[field.name]));
    if (!column) {
      return undefined;
    }
    children.push(column);
  }
  const rowsData = makeData({ type: new Struct(schema.fields), length: rows.length, nullCount: 0, children });
  return new Table([new RecordBatch(schema, rowsData)]);
}

function columnData(field: Field, values: readonly unknown[]): Data | undefined {
  const validity = validityOf(values);
  if (validity.nullCount > 0 && !field.nullable) {
    return undefined;
  }
  switch (field.type.typeId) {
    case Type.Utf8:
      return values.every((value) => isMissing(value) || typeof value === 'string') ? variableWidth(field, values as ReadonlyArray<string | null | undefined>, validity) : undefined;
    case Type.Binary:
      return values.every((value) => isMissing(value) || value instanceof Uint8Array) ? variableWidth(field, values as ReadonlyArray<Uint8Array | null | undefined>, validity) : undefined;
    case Type.Int:
    case Type.Float:
      return numbers(field, values, validity);
    case Type.FixedSizeList:
      return vectors(field as Field<FixedSizeList>, values, validity);
    default:
      return undefined;
  }
}

function isMissing(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

interface Validity {
  nullCount: number;
  /** Arrow's validity bitmap (bit set = value present); absent when every value is present. */
  bitmap?: Uint8Array;
}

function validityOf(values: readonly unknown[]): Validity {
  let nullCount = 0;
  let bitmap: Uint8Array | undefined;
  values.forEach((value, index) => {
    if (isMissing(value)) {
      if (!bitmap) {
        bitmap = new Uint8Array((values.length + 7) >> 3);
        for (let before = 0; before < index; before++) {
          bitmap[before >> 3] |= 1 << (before & 7);
        }
      }
      nullCount++;
    } else if (bitmap) {
      bitmap[index >> 3] |= 1 << (index & 7);
    }
  });
  return { nullCount, bitmap };
}

/** Strings (UTF-8) or bytes: one buffer of values and `length + 1` offsets into it. */
function variableWidth(field: Field, values: ReadonlyArray<string | Uint8Array | null | undefined>, validity: Validity): Data {
  const valueOffsets = new Int32Array(values.length + 1);
  let byteLength = 0;
  values.forEach((value, index) => {
    byteLength += isMissing(value) ? 0 : typeof value === 'string' ? Buffer.byteLength(value, 'utf8') : value.byteLength;
    valueOffsets[index + 1] = byteLength;
  });
  // Each value written in place: joining the strings first cost ~9 ns a byte (SciFact's ingest: ~280 ms). Zeroed,
  // so that no stale memory could ever reach the index should a length and its write disagree.
  const data = Buffer.alloc(byteLength);
  values.forEach((value, index) => {
    if (typeof value === 'string') {
      data.write(value, valueOffsets[index], valueOffsets[index + 1] - valueOffsets[index], 'utf8');
    } else if (value instanceof Uint8Array) {
      data.set(value, valueOffsets[index]);
    }
  });
  return makeData({ type: field.type, length: values.length, nullCount: validity.nullCount, nullBitmap: validity.bitmap, valueOffsets, data });
}

function numbers(field: Field, values: readonly unknown[], validity: Validity): Data | undefined {
  const ArrayType = field.type.ArrayType as { new (length: number): Int32Array | Float64Array | Float32Array } | undefined;
  // 64-bit integers take BigInts, narrower ones other views: only the layouts the tables use.
  if (!ArrayType || ![Int32Array, Float64Array, Float32Array].includes(ArrayType as never) || !values.every((value) => isMissing(value) || typeof value === 'number')) {
    return undefined;
  }
  const data = new ArrayType(values.length);
  values.forEach((value, index) => {
    data[index] = (value as number | null | undefined) ?? 0;
  });
  return makeData({ type: field.type, length: values.length, nullCount: validity.nullCount, nullBitmap: validity.bitmap, data } as Parameters<typeof makeData>[0]);
}

/** Embedding vectors: one `Float32Array` of `length × dimensions` under the list. */
function vectors(field: Field<FixedSizeList>, values: readonly unknown[], validity: Validity): Data | undefined {
  const { listSize, valueType } = field.type;
  const fits = (value: unknown) => isMissing(value) || ((value instanceof Float32Array || Array.isArray(value)) && value.length === listSize);
  if (valueType.ArrayType !== Float32Array || !values.every(fits)) {
    return undefined;
  }
  const flat = new Float32Array(values.length * listSize);
  values.forEach((value, index) => {
    if (value) {
      flat.set(value as ArrayLike<number>, index * listSize);
    }
  });
  const child = makeData({ type: valueType, length: flat.length, nullCount: 0, data: flat });
  return makeData({ type: field.type, length: values.length, nullCount: validity.nullCount, nullBitmap: validity.bitmap, child });
}
