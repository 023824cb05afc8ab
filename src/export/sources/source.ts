/**
 * The Source interface: a database query as a schema (columns with mapped
 * kinds) plus an async stream of row batches. Implemented per database in
 * `postgres.ts`, `mysql.ts`, `sqlite.ts`; every implementation hands out values
 * in the one representation of `ColumnKind` below, so formats never see a driver.
 */

/**
 * The portable column kinds and their in-memory value representation:
 * - `int32`: number · `int64`: bigint · `float64`: number
 * - `decimal`: string (exact decimal text, e.g. "-12.50")
 * - `bool`: boolean · `string`: string · `bytes`: Uint8Array
 * - `json`: string (the JSON text as stored; never re-parsed, so big numbers survive)
 * - `timestamp` (no zone, wall clock) / `timestamptz` (an instant, UTC):
 *   bigint microseconds since 1970-01-01T00:00:00
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

export interface QueryOptions {
  /** Rows fetched per round trip and handed out per batch. */
  batchSize: number;
  signal?: AbortSignal | undefined;
  /** Integers, dates and timestamps as export text (see `ColumnKind`): for text formats. */
  textValues?: boolean | undefined;
  /** Columns that stay typed with `textValues` (a cursor or keyset key the run compares). */
  typedColumns?: readonly string[] | undefined;
}

/** A running query: its columns are known before the first batch is read. */
export interface RowStream extends AsyncIterable<Row[]> {
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
