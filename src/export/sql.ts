/**
 * The one SQL builder of exports: every statement a run sends —
 * the base query, incremental `> cursor`, chunk bounds and ranges, keyset pages —
 * is assembled here from the export and a dialect. Pure: no I/O, no driver.
 * User queries are wrapped as a derived table (`AS stowage_q`), never edited but for
 * trailing semicolons (`nested`).
 */
import type { ResolvedExport } from "./config.js";
import type { ColumnKind, QueryParam, Source } from "./sources/source.js";

/** What the builder needs of a database: identifier quoting and placeholders. */
export type SqlDialect = Pick<Source, "quoteIdent" | "placeholder">;

/** A statement and its bound parameters. */
export interface Statement {
  sql: string;
  params: QueryParam[];
}

type Base = Pick<ResolvedExport, "query" | "table">;

/**
 * The export's own query: `query` as given, or `SELECT * FROM` the quoted `table`.
 * @example baseSql({ table: "public.orders" }, pg) // SELECT * FROM "public"."orders"
 */
export function baseSql(exp: Base, d: SqlDialect): string {
  if (exp.query !== undefined) return exp.query;
  return `SELECT * FROM ${exp
    .table!.split(".")
    .map((p) => d.quoteIdent(p))
    .join(".")}`;
}

/**
 * A statement as the body of a derived table or of `COPY (…)`: trailing semicolons
 * dropped, closed after a newline (which ends a trailing `--` comment).
 * @example nested("SELECT 1; -- one") // "(SELECT 1; -- one\n)"
 */
export function nested(sql: string): string {
  return `(${sql.replace(/[\s;]+$/, "")}\n)`;
}

const wrap = (exp: Base, d: SqlDialect) => `SELECT * FROM ${nested(baseSql(exp, d))} AS stowage_q`;

const INTEGER_TEXT = /^-?\d{1,19}$/;

/**
 * A value compared in a statement: an integer is written as a literal (digits only, so
 * nothing can be injected, and the statement keeps no parameters: PostgreSQL can then
 * stream it through binary COPY); anything else is parameter `i`.
 */
function operand(
  d: SqlDialect,
  i: number,
  kind: ColumnKind,
  value: QueryParam,
): { text: string; params: QueryParam[] } {
  const integer =
    (kind === "int32" || kind === "int64") &&
    (typeof value === "bigint" ||
      (typeof value === "number" && Number.isSafeInteger(value)) ||
      (typeof value === "string" && INTEGER_TEXT.test(value)));
  if (integer) return { text: String(value), params: [] };
  return { text: d.placeholder(i, kind), params: [value] };
}

/**
 * Incremental: rows after the stored cursor (`after` undefined: every row).
 * @example incrementalSql(exp, pg, "id", { kind: "int64", value: "41" }).sql // … WHERE "id" > 41
 */
export function incrementalSql(
  exp: Base,
  d: SqlDialect,
  column: string,
  after?: { kind: ColumnKind; value: QueryParam },
): Statement {
  if (!after) return { sql: baseSql(exp, d), params: [] };
  const v = operand(d, 1, after.kind, after.value);
  return { sql: `${wrap(exp, d)} WHERE ${d.quoteIdent(column)} > ${v.text}`, params: v.params };
}

/** Chunked: MIN and MAX of the chunk column. */
export function chunkBoundsSql(exp: Base, d: SqlDialect, column: string): Statement {
  const c = d.quoteIdent(column);
  return {
    sql: `SELECT MIN(${c}) AS lo, MAX(${c}) AS hi FROM ${nested(baseSql(exp, d))} AS stowage_q`,
    params: [],
  };
}

/** Chunked: one range `[lo, hi)` (integer literals), or the NULL chunk when `lo` is undefined. */
export function chunkSql(
  exp: Base,
  d: SqlDialect,
  column: string,
  range: { lo?: bigint; hi?: bigint },
): Statement {
  const c = d.quoteIdent(column);
  if (range.lo === undefined) return { sql: `${wrap(exp, d)} WHERE ${c} IS NULL`, params: [] };
  return {
    sql: `${wrap(exp, d)} WHERE ${c} >= ${range.lo} AND ${c} < ${range.hi!}`,
    params: [],
  };
}

/**
 * Keyset: the next page after `after` (undefined: the first page), in key order.
 * @example keysetSql(exp, mysql, "id", 1000, { kind: "int64", value: "5000" }).sql
 * // SELECT * FROM (…) AS stowage_q WHERE `id` > 5000 ORDER BY `id` LIMIT 1000
 */
export function keysetSql(
  exp: Base,
  d: SqlDialect,
  column: string,
  limit: number,
  after?: { kind: ColumnKind; value: QueryParam },
): Statement {
  const c = d.quoteIdent(column);
  const v = after ? operand(d, 1, after.kind, after.value) : undefined;
  const where = v ? ` WHERE ${c} > ${v.text}` : "";
  return {
    sql: `${wrap(exp, d)}${where} ORDER BY ${c} LIMIT ${Math.floor(limit)}`,
    params: v?.params ?? [],
  };
}

/** Keyset: does any row have a NULL key? (Such rows would fall outside every page.) */
export function keysetNullSql(exp: Base, d: SqlDialect, column: string): Statement {
  return { sql: `${wrap(exp, d)} WHERE ${d.quoteIdent(column)} IS NULL LIMIT 1`, params: [] };
}

/**
 * Keyset: how many rows have a key up to `upTo` (a resumed run checks its state against it).
 * @example keysetCountSql(exp, pg, "id", { kind: "int64", value: "5000" }).sql
 * // SELECT count(*) AS n FROM (…) AS stowage_q WHERE "id" <= 5000
 */
export function keysetCountSql(
  exp: Base,
  d: SqlDialect,
  column: string,
  upTo: { kind: ColumnKind; value: QueryParam },
): Statement {
  const v = operand(d, 1, upTo.kind, upTo.value);
  return {
    sql: `SELECT count(*) AS n FROM ${nested(baseSql(exp, d))} AS stowage_q WHERE ${d.quoteIdent(column)} <= ${v.text}`,
    params: v.params,
  };
}
