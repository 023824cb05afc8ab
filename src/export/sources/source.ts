/**
 * The Source interface: a database query as a schema (columns with mapped
 * kinds) plus an async stream of row batches. Implemented per database in
 * `postgres.ts`, `mysql.ts`, `sqlite.ts`; every implementation hands out values
 * in the one representation of `ColumnKind` below, so formats never see a driver.
 */
import { StowageError } from "../../shared/errors.js";

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
}

/** One row: values in column order. */
export type Row = unknown[];

/**
 * Rows a source has already written as CSV lines (the rules of `formats/csv.ts`,
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

export interface QueryOptions {
  /** Rows fetched per round trip and handed out per batch. */
  batchSize: number;
  signal?: AbortSignal | undefined;
  /** Integers, dates and timestamps as export text (see `ColumnKind`): for text formats. */
  textValues?: boolean | undefined;
  /** Columns that stay typed with `textValues` (a cursor or keyset key the run compares). */
  typedColumns?: readonly string[] | undefined;
  /**
   * The consumer writes CSV and reads no value: the source may hand out `CsvLines`
   * batches instead of `Row[]` (PostgreSQL's COPY path does when it can render every column).
   */
  csvLines?: boolean | undefined;
}

/** A running query: its columns are known before the first batch is read. */
export interface RowStream extends AsyncIterable<Batch> {
  readonly columns: ColumnSpec[];
  /** Stops reading early and releases the server-side cursor. Idempotent. */
  close(): Promise<void>;
}

/** Bound parameter values of a query: strings, numbers, bigints or null. */
export type QueryParam = string | number | bigint | null;

/**
 * A database connection that runs queries as streams.
 * @example
 * const src = await openSource({ type: "postgres", url });
 * const rows = await src.query("SELECT * FROM orders", [], { batchSize: 10_000 });
 * for await (const batch of rows) console.log(batch.length);
 * await src.close();
 */
export interface Source {
  readonly type: SourceType;
  /** Quotes an identifier for this dialect (`"x"` or `` `x` ``). */
  quoteIdent(name: string): string;
  /** The positional placeholder for parameter `i` (1-based): `$1` or `?`. */
  placeholder(i: number, kind?: ColumnKind): string;
  query(sql: string, params: QueryParam[], options: QueryOptions): Promise<RowStream>;
  /**
   * Databases that can share one snapshot between connections (PostgreSQL): opens a
   * read-only repeatable-read transaction and returns its exported snapshot id…
   */
  exportSnapshot?(): Promise<string>;
  /** …which other connections adopt, so parallel workers see the same data. */
  importSnapshot?(id: string): Promise<void>;
  close(): Promise<void>;
}

export type SourceType = "postgres" | "mysql" | "sqlite";

export interface SourceOptions {
  type: SourceType;
  /** Connection URL (postgres://…, mysql://…) or, for SQLite, a file path or `sqlite:` URL. */
  url: string;
  /** Connect timeout for network databases. */
  connectTimeoutMs?: number;
}
