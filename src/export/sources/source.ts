/**
 * The Source interface: a database query as a schema (columns with mapped
 * kinds) plus an async stream of row batches. Implemented per database in
 * `postgres.ts`, `mysql.ts`, `sqlite.ts`; every implementation hands out values
 * in the one representation of `ColumnKind` (`encoders/columns.ts`, re-exported here),
 * so encoders never see a driver.
 */

export {
  CsvLines,
  batchColumn,
  batchRows,
  type Batch,
  type ColumnKind,
  type ColumnSpec,
  type Row,
} from "../../encoders/columns.js";
import type { Batch, ColumnKind, ColumnSpec } from "../../encoders/columns.js";

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
