/**
 * SQLite source: better-sqlite3 `iterate()` over a read-only connection with
 * `safeIntegers` (64-bit integers as bigint) and raw rows. Kinds come from the
 * declared column type (SQLite affinity rules); expression columns without one
 * take the kind of their first non-NULL value. The reading is synchronous, so the
 * stream gives the event loop a turn after every batch (uploads keep moving).
 */
import { nextTurn, throwIfAborted } from "../../shared/abort.js";
import { StowageError } from "../../shared/errors.js";
import type {
  ColumnKind,
  ColumnSpec,
  QueryOptions,
  QueryParam,
  Row,
  RowStream,
  Source,
} from "./source.js";

/** The kind of a declared SQLite type, following the affinity rules (§3.1 of the SQLite docs). */
export function sqliteKind(declared: string | null): ColumnKind | undefined {
  if (!declared) return undefined;
  const t = declared.toUpperCase();
  if (t.includes("BOOL")) return "bool";
  if (t.includes("INT")) return "int64";
  if (t.includes("JSON")) return "json";
  if (t.includes("CHAR") || t.includes("CLOB") || t.includes("TEXT")) return "string";
  if (t.includes("BLOB")) return "bytes";
  if (t.includes("REAL") || t.includes("FLOA") || t.includes("DOUB")) return "float64";
  if (t.includes("DEC") || t.includes("NUM")) return "decimal";
  return "string"; // DATE, DATETIME, … are stored as text or numbers: exported as their text form
}

function inferKind(v: unknown): ColumnKind {
  if (typeof v === "bigint") return "int64";
  if (typeof v === "number") return "float64";
  if (Buffer.isBuffer(v)) return "bytes";
  return "string";
}

function mismatch(column: string, kind: ColumnKind, v: unknown): StowageError {
  return new StowageError(
    "source",
    `column "${column}" is exported as ${kind} but a row holds ${typeof v === "object" ? "a blob" : JSON.stringify(String(v))}`,
    {
      hint: `SQLite columns can hold any type; cast it in the query, e.g. \`CAST(${column} AS TEXT) AS ${column}\``,
    },
  );
}

/** Coerces one SQLite value into the representation of `kind` (exact or an error, never a silent loss). */
export function coerceSqlite(kind: ColumnKind, v: unknown, column: string): unknown {
  if (v === null) return null;
  switch (kind) {
    case "int64":
      if (typeof v === "bigint") return v;
      if (typeof v === "number" && Number.isInteger(v)) return BigInt(v);
      throw mismatch(column, kind, v);
    case "bool":
      if (v === 0n || v === 1n) return v === 1n;
      throw mismatch(column, kind, v);
    case "float64":
      if (typeof v === "number") return v;
      if (typeof v === "bigint" && Number.isSafeInteger(Number(v))) return Number(v);
      throw mismatch(column, kind, v);
    case "bytes":
      if (Buffer.isBuffer(v)) return v;
      if (typeof v === "string") return Buffer.from(v, "utf8");
      throw mismatch(column, kind, v);
    case "json":
      // JSON is embedded as-is in NDJSON: text that does not parse would break the file.
      if (typeof v === "string") {
        try {
          JSON.parse(v);
          return v;
        } catch {
          throw new StowageError(
            "source",
            `column "${column}" is declared JSON but a row holds text that is not valid JSON`,
            {
              hint: `export it as text: \`CAST(${column} AS TEXT) AS ${column}\``,
            },
          );
        }
      }
      throw mismatch(column, kind, v);
    case "string":
    case "decimal":
      if (typeof v === "string") return v;
      if (typeof v === "bigint" || typeof v === "number") return String(v);
      throw mismatch(column, kind, v);
    default:
      return v;
  }
}

/**
 * `coerceSqlite` for one column, with the kind's expected type checked first: a
 * column's values mostly have its declared type already, so the common value costs one
 * `typeof` (no switch over the kind per value). `v` is never NULL.
 */
export function sqliteCoercer(kind: ColumnKind, column: string): (v: unknown) => unknown {
  const general = (v: unknown) => coerceSqlite(kind, v, column);
  switch (kind) {
    case "int64":
      return (v) => (typeof v === "bigint" ? v : general(v));
    case "float64":
      return (v) => (typeof v === "number" ? v : general(v));
    case "string":
    case "decimal":
      return (v) => (typeof v === "string" ? v : general(v));
    default:
      return general;
  }
}

/** `sqlite:///abs.db`, `sqlite:rel.db`, `file:x.db` or a plain path → a file path. */
export function sqlitePath(url: string): string {
  const m = /^(?:sqlite|file):(?:\/\/)?(.*)$/.exec(url);
  return m ? decodeURIComponent(m[1]!) : url;
}

/**
 * Opens an SQLite database file read-only.
 * @example const src = await openSqlite("sqlite:///var/data/app.db");
 */
export async function openSqlite(url: string): Promise<Source> {
  const { default: Database } = await import("better-sqlite3");
  const path = sqlitePath(url);
  let db: import("better-sqlite3").Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new StowageError(
      "source",
      `cannot open the SQLite database "${path}": ${(err as Error).message}`,
      {
        cause: err,
        hint: "check that the file exists and is readable",
      },
    );
  }
  return {
    type: "sqlite",
    quoteIdent: (n) => `"${n.replace(/"/g, '""')}"`,
    placeholder: () => "?",
    async query(sql: string, params: QueryParam[], options: QueryOptions): Promise<RowStream> {
      let it: IterableIterator<unknown>;
      let declared: { name: string; type: string | null }[];
      try {
        const stmt = db.prepare(sql).safeIntegers(true).raw(true);
        declared = stmt.columns();
        it = stmt.iterate(...params) as IterableIterator<unknown>;
      } catch (err) {
        throw new StowageError(
          "source",
          `SQLite failed while running the query: ${(err as Error).message}`,
          {
            cause: err,
            hint: "check the query and the table name",
          },
        );
      }
      const next = (): Row[] => {
        const rows: Row[] = [];
        try {
          for (let r = it.next(); !r.done; r = it.next()) {
            rows.push(r.value as Row);
            if (rows.length >= options.batchSize) break;
          }
        } catch (err) {
          throw new StowageError(
            "source",
            `SQLite failed while reading rows: ${(err as Error).message}`,
            { cause: err },
          );
        }
        return rows;
      };
      const first = next();
      const kinds = declared.map(
        (c, i) => sqliteKind(c.type) ?? inferKind(first.find((r) => r[i] !== null)?.[i] ?? ""),
      );
      const columns: ColumnSpec[] = declared.map((c, i) => ({
        name: c.name,
        kind: kinds[i]!,
        sourceType: c.type ?? "(expression)",
      }));
      const coercers = kinds.map((k, i) => sqliteCoercer(k, columns[i]!.name));
      const coerce = (rows: Row[]) => {
        const n = coercers.length;
        for (const row of rows)
          for (let i = 0; i < n; i++) {
            const v = row[i];
            if (v !== null) row[i] = coercers[i]!(v);
          }
        return rows;
      };
      let closed = false;
      const close = async () => {
        if (closed) return;
        closed = true;
        it.return?.();
      };
      return {
        columns,
        close,
        async *[Symbol.asyncIterator]() {
          try {
            for (let batch = first; batch.length > 0 && !closed; batch = next()) {
              throwIfAborted(options.signal);
              yield coerce(batch);
              if (batch.length < options.batchSize) break;
              // better-sqlite3 reads synchronously: without a turn of the event loop per
              // batch, uploads, timers and signals would wait for the upload queue to fill.
              await nextTurn();
            }
          } finally {
            await close();
          }
        },
      };
    },
    async close() {
      db.close();
    },
  };
}
