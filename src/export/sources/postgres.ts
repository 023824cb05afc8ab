/**
 * PostgreSQL source. A query without bound parameters whose columns all have a
 * binary decoder streams through `COPY (query) TO STDOUT (FORMAT binary)`
 * (`pg-copy/`: no per-row protocol parsing, no text round trip for numbers and
 * timestamps); any other query reads through a `pg-cursor` server-side cursor (rows
 * fetched `batchSize` at a time, never the whole result), text-format values parsed
 * into the portable kinds (int8 → bigint, numeric → exact text, timestamps → µs).
 * Both hand out the same values for the same column.
 */
import { idleTimer, throwIfAborted } from "../../shared/abort.js";
import { connectionHint } from "./connect-hint.js";
import { nested } from "../sql.js";
import { copyRows, copyTarget, hasDecoder, type CopyClient } from "./pg-copy/index.js";
import { StowageError } from "../../shared/errors.js";
import {
  dateTextToIso,
  parseDateText,
  parseTimestampMicros,
  safeInteger,
  timestampTextToIso,
} from "../../encoders/values.js";
import type {
  ColumnKind,
  ColumnSpec,
  QueryOptions,
  QueryParam,
  Row,
  RowStream,
  Source,
} from "./source.js";

type Parser = (text: string) => unknown;
const identity: Parser = (t) => t;
const parseBytea: Parser = (t) =>
  t.startsWith("\\x") ? Buffer.from(t.slice(2), "hex") : Buffer.from(t, "latin1");
const ts: Parser = parseTimestampMicros;

/** OID → [type name, kind, parser]. Any other type is exported as its text form. */
const TYPES: Record<number, [string, ColumnKind, Parser]> = {
  16: ["boolean", "bool", (t) => t === "t"],
  17: ["bytea", "bytes", parseBytea],
  20: ["bigint", "int64", safeInteger],
  21: ["smallint", "int32", Number],
  23: ["integer", "int32", Number],
  26: ["oid", "int64", safeInteger],
  700: ["real", "float64", Number],
  701: ["double precision", "float64", Number],
  1700: ["numeric", "decimal", identity],
  25: ["text", "string", identity],
  1043: ["character varying", "string", identity],
  1042: ["character", "string", identity],
  19: ["name", "string", identity],
  18: ['"char"', "string", identity],
  2950: ["uuid", "string", identity],
  1083: ["time without time zone", "string", identity],
  1266: ["time with time zone", "string", identity],
  1186: ["interval", "string", identity],
  114: ["json", "json", identity],
  3802: ["jsonb", "json", identity],
  1082: ["date", "date", parseDateText],
  1114: ["timestamp without time zone", "timestamp", ts],
  1184: ["timestamp with time zone", "timestamptz", ts],
};

interface PgField {
  name: string;
  dataTypeID: number;
  dataTypeModifier: number;
}

/** Maps a RowDescription field to a column (numeric typmod = ((p << 16) | s) + 4). */
export function pgColumn(f: PgField): ColumnSpec {
  const known = TYPES[f.dataTypeID];
  if (!known) return { name: f.name, kind: "string", sourceType: `oid ${f.dataTypeID}` };
  const [name, kind] = known;
  if (f.dataTypeID === 1700 && f.dataTypeModifier >= 4) {
    const precision = ((f.dataTypeModifier - 4) >> 16) & 0xffff;
    const scale = (f.dataTypeModifier - 4) & 0xffff;
    return { name: f.name, kind, sourceType: `numeric(${precision},${scale})`, precision, scale };
  }
  return { name: f.name, kind, sourceType: name };
}

const typeParsers = {
  getTypeParser: (oid: number) => TYPES[oid]?.[2] ?? identity,
};

/** Text formats: these types arrive as the server's text and are fixed up per column below. */
const TEXT_KEPT = new Set([20, 21, 23, 26, 1082, 1114, 1184]);
const textParsers = {
  getTypeParser: (oid: number) => (TEXT_KEPT.has(oid) ? identity : typeParsers.getTypeParser(oid)),
};
/** Export text of a kept type (integers are already their export text). */
const TO_EXPORT_TEXT: Record<number, Parser> = {
  1082: dateTextToIso,
  1114: (t) => timestampTextToIso(t, false),
  1184: (t) => timestampTextToIso(t, true),
};

/**
 * With `textValues`, the per-column fix-ups of a batch: typed columns get their usual
 * parser, dates and timestamps their export text; integers need nothing.
 */
function textFixups(fields: PgField[], typed: readonly string[]): [number, Parser][] {
  const out: [number, Parser][] = [];
  fields.forEach((f, i) => {
    if (!TEXT_KEPT.has(f.dataTypeID)) return;
    const fix = typed.includes(f.name) ? TYPES[f.dataTypeID]![2] : TO_EXPORT_TEXT[f.dataTypeID];
    if (fix) out.push([i, fix]);
  });
  return out;
}

/** Turns a driver error into a StowageError that says what happened, never the URL. */
export function pgError(err: unknown, doing: string): StowageError {
  if (err instanceof StowageError) return err;
  const e = err as { message?: string; code?: string; hint?: string };
  const lost =
    e.code === "57P01" ||
    e.code === "57P02" ||
    e.code === "ECONNRESET" ||
    e.code === "EPIPE" ||
    /terminat|Connection terminated/i.test(e.message ?? "");
  const what = lost ? "the PostgreSQL connection was lost" : "PostgreSQL failed";
  return new StowageError(
    "source",
    `${what} while ${doing}: ${e.message ?? String(err)}${e.code ? ` (${e.code})` : ""}`,
    {
      cause: err,
      hint:
        e.hint ??
        connectionHint(err, "PostgreSQL") ??
        (lost
          ? "the server ended the session; re-run the export (nothing was committed)"
          : doing === "connecting"
            ? "check that PostgreSQL is running and reachable at the URL's host and port (the bucket was not touched)"
            : "check the query, the table name and the role's privileges"),
    },
  );
}

/** Resolves when `p` settles or after `ms`, whichever is first (for goodbyes to a possibly dead server). */
function withTimeout(p: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const cancel = idleTimer(ms, resolve); // a goodbye must not hold the process open
    void p.finally(() => {
      cancel();
      resolve();
    });
  });
}

export interface PostgresOptions {
  /** Read parameterless queries through binary COPY when every column can be decoded (default true). */
  copy?: boolean;
  /** Take COPY rows off the socket rather than through the driver's events (default true). */
  tapSocket?: boolean;
}

/** The server refused the COPY statement itself (unsupported, or not its syntax). */
function copyRefused(err: unknown): boolean {
  const code = (err as { cause?: { code?: unknown } }).cause?.code;
  return code === "0A000" || code === "42601";
}

/**
 * Opens a PostgreSQL connection.
 * @example const src = await openPostgres("postgres://postgres@127.0.0.1/test");
 */
export async function openPostgres(
  url: string,
  connectTimeoutMs = 10_000,
  pgOptions: PostgresOptions = {},
): Promise<Source> {
  const { default: pg } = await import("pg");
  const { default: Cursor } = await import("pg-cursor");
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: connectTimeoutMs,
  });
  let lostError: unknown;
  client.on("error", (err) => (lostError = err));
  try {
    await client.connect();
    await client.query(
      "SET DateStyle = 'ISO, YMD'; SET TimeZone = 'UTC'; SET bytea_output = 'hex'; SET extra_float_digits = 3",
    );
  } catch (err) {
    await client.end().catch(() => undefined);
    throw pgError(err, "connecting");
  }
  let closed = false;
  let inTransaction = false;
  let copySupported = pgOptions.copy !== false;
  /** Enum types seen on this connection (OID → is an enum), looked up once each. */
  const enumTypes = new Map<number, boolean>();
  /** The enums among `fields`' types without a built-in decoder. */
  const labelTypes = async (fields: PgField[]): Promise<Set<number>> => {
    const unknown = [
      ...new Set(
        fields.map((f) => f.dataTypeID).filter((o) => !hasDecoder(o) && !enumTypes.has(o)),
      ),
    ];
    if (unknown.length) {
      const res = await client.query<{ oid: number }>(
        "SELECT oid::int AS oid FROM pg_type WHERE oid = ANY($1::oid[]) AND typtype = 'e'",
        [unknown],
      );
      for (const o of unknown) enumTypes.set(o, false);
      for (const r of res.rows) enumTypes.set(r.oid, true);
    }
    return new Set(fields.map((f) => f.dataTypeID).filter((o) => enumTypes.get(o) === true));
  };
  /** The query's columns (a `LIMIT 0` run), or undefined when it cannot be nested and the cursor should run it. */
  const describe = async (sql: string): Promise<PgField[] | undefined> => {
    try {
      const res = await client.query({
        text: `SELECT * FROM ${nested(sql)} AS stowage_q LIMIT 0`,
        rowMode: "array",
      });
      return res.fields as PgField[];
    } catch (err) {
      if (inTransaction || lostError !== undefined)
        throw pgError(lostError ?? err, "running the query");
      return undefined; // the cursor runs it as written and reports its own error
    }
  };
  return {
    type: "postgres",
    quoteIdent: (n) => client.escapeIdentifier(n),
    placeholder: (i) => `$${i}`,
    async exportSnapshot() {
      try {
        inTransaction = true;
        await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        return (await client.query<{ id: string }>("SELECT pg_export_snapshot() AS id")).rows[0]!
          .id;
      } catch (err) {
        throw pgError(err, "exporting a snapshot");
      }
    },
    async importSnapshot(id: string) {
      try {
        inTransaction = true;
        await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        await client.query(`SET TRANSACTION SNAPSHOT ${client.escapeLiteral(id)}`);
      } catch (err) {
        throw pgError(err, "importing a snapshot");
      }
    },
    async query(sql: string, params: QueryParam[], options: QueryOptions): Promise<RowStream> {
      if (copySupported && params.length === 0) {
        const fields = await describe(sql);
        const target =
          fields &&
          copyTarget(
            fields,
            options,
            await labelTypes(fields).catch((err: unknown) => {
              throw pgError(lostError ?? err, "running the query");
            }),
          );
        if (fields && target) {
          try {
            return await copyRows(
              client as unknown as CopyClient,
              sql,
              fields.map(pgColumn),
              target,
              options,
              (err, doing) => pgError(lostError ?? err, doing),
              pgOptions.tapSocket !== false,
            );
          } catch (err) {
            // A PostgreSQL-compatible server without `COPY (query) TO STDOUT (FORMAT binary)`
            // refuses the statement itself: read through the cursor from now on. Outside a
            // transaction only (a refused statement aborts one).
            if (inTransaction || !copyRefused(err)) throw err;
            copySupported = false;
          }
        }
      }
      const values = params.map((p) => (typeof p === "bigint" ? p.toString() : p));
      // A value the portable kinds cannot hold (an infinite date) makes its parser throw inside
      // the driver's socket handler: kept here and rejected from the read, never thrown there.
      let unparsable: unknown;
      const parsers = options.textValues ? textParsers : typeParsers;
      const guarded = {
        getTypeParser(oid: number): Parser {
          const parse = parsers.getTypeParser(oid);
          if (parse === identity) return parse;
          return (t) => {
            try {
              return parse(t);
            } catch (err) {
              unparsable ??= err;
              return null;
            }
          };
        },
      };
      const cursor = client.query(new Cursor(sql, values, { rowMode: "array", types: guarded }));
      let fixups: [number, Parser][] = [];
      const fix = (rows: Row[]): Row[] => {
        for (const [i, parse] of fixups)
          for (const row of rows) {
            const v = row[i];
            if (v !== null) row[i] = parse(v as string);
          }
        return rows;
      };
      const read = (n: number, doing = "reading rows") =>
        new Promise<{ rows: Row[]; fields: PgField[] }>((resolve, reject) => {
          cursor.read(n, (err, rows, result) => {
            if (err) return reject(pgError(lostError ?? err, doing));
            if (unparsable !== undefined) return reject(pgError(unparsable, doing));
            const fields = (result as unknown as { fields: PgField[] }).fields ?? [];
            try {
              if (options.textValues && fields.length && !fixups.length)
                fixups = textFixups(fields, options.typedColumns ?? []);
              resolve({ rows: fix(rows as Row[]), fields });
            } catch (e) {
              reject(e);
            }
          });
        });
      let done = false;
      const close = async () => {
        if (done) return;
        done = true;
        // A dead connection never answers the Close/Sync: do not wait for it.
        if (lostError !== undefined || (cursor as unknown as { state: string }).state === "error")
          return;
        await withTimeout(new Promise<void>((r) => cursor.close(() => r())), 5000);
      };
      const first = await read(options.batchSize, "running the query").catch(
        async (err: unknown) => {
          await close();
          throw err;
        },
      );
      return {
        columns: first.fields.map(pgColumn),
        close,
        async *[Symbol.asyncIterator]() {
          // Abort is checked between round trips (a batch takes milliseconds); closing the
          // cursor under a pending read would leave that read unanswered, so a prefetched
          // read is awaited first. The next batch is requested before this one is handed
          // out: the server and the socket work while the batch is encoded.
          let next: Promise<{ rows: Row[] }> | undefined;
          try {
            let batch = first.rows;
            while (batch.length > 0) {
              throwIfAborted(options.signal);
              next = batch.length < options.batchSize ? undefined : read(options.batchSize);
              next?.catch(() => undefined); // observed below; a consumer that stops early never awaits it
              yield batch;
              if (done || !next) break;
              batch = (await next).rows;
              next = undefined;
            }
            throwIfAborted(options.signal);
          } finally {
            if (next)
              await withTimeout(
                next.catch(() => undefined),
                5000,
              );
            await close();
          }
        },
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      await withTimeout(
        client.end().catch(() => undefined),
        5000,
      );
    },
  };
}
