/**
 * The column model every file encoder takes (SPEC §7.2): portable column kinds, their
 * in-memory value representation, rows and batches (values, or CSV lines a source
 * rendered itself). Exports' database sources and compaction both hand rows in this
 * form, so an encoder never sees a driver or a log record.
 */
import { StowageError } from "../shared/errors.js";

/**
 * The portable column kinds and their in-memory value representation:
 * - `int32`: number · `int64`: a bigint, or a number when it is a safe integer
 *   (PostgreSQL hands those as numbers: no bigint made per value) · `float64`: number
 * - `decimal`: string (exact decimal text, e.g. "-12.50")
 * - `bool`: boolean · `string`: string · `bytes`: Uint8Array
 * - `json`: string (the JSON text as stored; never re-parsed, so big numbers survive)
 * - `timestamp` (no zone, wall clock) / `timestamptz` (an instant, UTC):
 *   microseconds since 1970-01-01T00:00:00, a bigint or (as for `int64`) a safe number
 * - `date`: number of days since 1970-01-01
 * NULL is `null` for every kind.
 *
 * With `QueryOptions.textValues` (CSV/NDJSON), `int32`/`int64` values may instead be
 * their decimal text, `date` its `formatDate` text and `timestamp`/`timestamptz` their
 * `formatTimestamp` text: the database's text handed on, never parsed and re-formatted.
 */
export type ColumnKind =
  | "int32"
  | "int64"
  | "float64"
  | "decimal"
  | "bool"
  | "string"
  | "bytes"
  | "json"
  | "timestamp"
  | "timestamptz"
  | "date";

export interface ColumnSpec {
  name: string;
  kind: ColumnKind;
  /** The database's own type name, for the manifest and messages (e.g. `numeric(12,2)`). */
  sourceType: string;
  /** Decimal precision/scale when the database declares them. */
  precision?: number;
  scale?: number;
  /**
   * `timestamp`/`timestamptz` only: `"millis"` when the values are milliseconds since the
   * epoch (compaction's log timestamps; Parquet `TIMESTAMP(MILLIS)`). Default microseconds.
   * Honoured by the Parquet encoder; the text formats always read microseconds.
   */
  unit?: "millis";
  /**
   * Parquet: `false` never tries a dictionary for the column — for values that are unique row
   * by row (ids, JSON payloads), where building one only to give it up costs time. Default:
   * tried for text, JSON and 32-bit integers, kept when it pays.
   */
  dictionary?: boolean;
}

/** One row: values in column order. */
export type Row = unknown[];

/**
 * Rows a source has already written as CSV lines (the rules of `csv.ts`,
 * CRLF after every row), handed out instead of `Row[]` when `QueryOptions.csvLines`
 * asks and the source can render every column itself (PostgreSQL's binary COPY):
 * no value is materialised, except those of `QueryOptions.typedColumns` (a cursor or
 * keyset key the run compares), kept typed beside the lines (`batchColumn`). A view of
 * rows [first, first + length) of `buf`; `ends[i]` is where row i ends in `buf` (row 0
 * starts at 0). `slice` is `Row[]`'s.
 */
export class CsvLines {
  constructor(
    private readonly buf: Buffer,
    private readonly ends: Int32Array,
    private readonly first: number,
    readonly length: number,
    /** Column index → the typed values of every row of `buf`. */
    private readonly typed: ReadonlyMap<number, readonly unknown[]> = new Map(),
  ) {}

  /** The typed values of column `col` (one of `typedColumns`), or undefined. */
  column(col: number): unknown[] | undefined {
    return this.typed.get(col)?.slice(this.first, this.first + this.length);
  }

  /** The lines' bytes (a view: the consumer copies what it keeps). */
  get bytes(): Buffer {
    const start = this.first === 0 ? 0 : this.ends[this.first - 1]!;
    return this.buf.subarray(start, this.length ? this.ends[this.first + this.length - 1]! : start);
  }

  slice(start = 0, end = this.length): CsvLines {
    const s = Math.max(0, Math.min(start, this.length));
    const e = Math.max(s, Math.min(end, this.length));
    return new CsvLines(this.buf, this.ends, this.first + s, e - s, this.typed);
  }
}

/** What a `RowStream` hands out: rows as values, or (when asked for) as CSV lines. */
export type Batch = Row[] | CsvLines;

/** The rows of a batch as values; a stage that needs values never asks for `CsvLines`. */
export function batchRows(batch: Batch): Row[] {
  if (batch instanceof CsvLines)
    throw new StowageError("internal", "CSV lines reached a stage that reads values");
  return batch;
}

/** The values of column `col` of a batch (of `CsvLines`, only a typed column's). */
export function batchColumn(batch: Batch, col: number): unknown[] {
  if (!(batch instanceof CsvLines)) return batch.map((row) => row[col]);
  const values = batch.column(col);
  if (!values)
    throw new StowageError("internal", `column ${col} of CSV lines was not kept as values`);
  return values;
}
