/**
 * MySQL/MariaDB source: `mysql2` streaming rows (the socket is paused whenever a
 * batch is full, so at most two batches are in memory), session in UTC, values
 * read as exact text where the driver would round (DECIMAL, dates; BIGINT beyond 2^53).
 */
import { idleTimer, throwIfAborted } from "../../shared/abort.js";
import { connectionHint } from "./connect-hint.js";
import { StowageError } from "../../shared/errors.js";
import {
  dateTextToIso,
  parseDateText,
  parseTimestampMicros,
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

interface MyField {
  name: string;
  columnType: number;
  columnLength: number;
  characterSet: number;
  flags: number;
  decimals: number;
  extendedFormat?: string;
}

type Convert = (v: unknown, column: string) => unknown;
const UNSIGNED = 32;
const BINARY_CHARSET = 63;

const toBool: Convert = (v, column) => {
  const n = Buffer.isBuffer(v) ? v[0] : Number(v);
  if (n === 0 || n === 1) return n === 1;
  throw new StowageError(
    "source",
    `column "${column}" is TINYINT(1) (exported as boolean) but holds ${String(v)}`,
    {
      hint: "cast it in the query to keep the number, e.g. `CAST(col AS SIGNED) AS col`",
    },
  );
};
const zeroToNull =
  (parse: (t: string) => unknown): Convert =>
  (v) =>
    String(v).startsWith("0000-00-00") ? null : parse(String(v));
const bitToInt: Convert = (v) => {
  let n = 0n;
  for (const b of v as Buffer) n = (n << 8n) | BigInt(b);
  return n;
};

/**
 * A BIGINT as the driver hands it (`supportBigNumbers` without `bigNumberStrings`): a
 * number when it is a safe integer (parsed from the digits, exact), else its exact digit
 * text, made a bigint here. No bigint (nor string) is made for the common value.
 */
const bigintValue: Convert = (v) => (typeof v === "number" ? v : BigInt(v as string));

/**
 * Text formats (`textValues`): the converter of a column whose database text is its
 * export text — signed BIGINT stays the driver's digit string, dates and timestamps are
 * rewritten as text (no bigint round trip); other columns keep `mysqlColumn`'s. A signed
 * BIGINT is a number or (beyond 2^53) its digit text: both render as the same digits.
 */
export function mysqlTextConverter(
  col: ColumnSpec,
  typed: Convert | undefined,
): Convert | undefined {
  if (col.sourceType === "BIGINT") return undefined;
  if (col.kind === "date") return zeroToNull(dateTextToIso);
  if (col.sourceType === "DATETIME") return zeroToNull((t) => timestampTextToIso(t, false));
  if (col.sourceType === "TIMESTAMP") return zeroToNull((t) => timestampTextToIso(t, true));
  return typed;
}

/** Maps a column definition to [column, converter]. */
export function mysqlColumn(f: MyField): [ColumnSpec, Convert | undefined] {
  const unsigned = (f.flags & UNSIGNED) !== 0;
  const col = (
    kind: ColumnKind,
    sourceType: string,
    extra: Partial<ColumnSpec> = {},
  ): ColumnSpec => ({ name: f.name, kind, sourceType, ...extra });
  if (f.extendedFormat === "json" || f.columnType === 0xf5) return [col("json", "JSON"), undefined];
  switch (f.columnType) {
    case 0x01:
      if (f.columnLength === 1) return [col("bool", "TINYINT(1)"), toBool];
      return [col("int32", unsigned ? "TINYINT UNSIGNED" : "TINYINT"), undefined];
    case 0x02:
    case 0x09:
    case 0x0d:
      return [
        col(
          "int32",
          { 2: "SMALLINT", 9: "MEDIUMINT", 13: "YEAR" }[f.columnType]! +
            (unsigned ? " UNSIGNED" : ""),
        ),
        undefined,
      ];
    case 0x03:
      return unsigned
        ? [col("int64", "INT UNSIGNED"), (v) => BigInt(v as number)]
        : [col("int32", "INT"), undefined];
    case 0x08:
      // BIGINT UNSIGNED can exceed the signed 64-bit range: exported as DECIMAL(20,0).
      if (unsigned)
        return [col("decimal", "BIGINT UNSIGNED", { precision: 20, scale: 0 }), (v) => String(v)];
      return [col("int64", "BIGINT"), bigintValue];
    case 0x04:
    case 0x05:
      return [col("float64", f.columnType === 4 ? "FLOAT" : "DOUBLE"), undefined];
    case 0x00:
    case 0xf6: {
      const scale = f.decimals;
      const precision = f.columnLength - (scale > 0 ? 1 : 0) - (unsigned ? 0 : 1);
      return [col("decimal", `DECIMAL(${precision},${scale})`, { precision, scale }), undefined];
    }
    case 0x0a:
    case 0x0e:
      return [col("date", "DATE"), zeroToNull(parseDateText)];
    case 0x0c:
      return [col("timestamp", "DATETIME"), zeroToNull(parseTimestampMicros)];
    case 0x07:
      return [col("timestamptz", "TIMESTAMP"), zeroToNull(parseTimestampMicros)];
    case 0x10:
      return f.columnLength === 1
        ? [col("bool", "BIT(1)"), toBool]
        : [col("int64", `BIT(${f.columnLength})`), bitToInt];
    case 0xff:
      return [col("json", "GEOMETRY"), (v) => JSON.stringify(v)];
    default: {
      const binary = f.characterSet === BINARY_CHARSET;
      const name = {
        0x0b: "TIME",
        0x0f: "VARCHAR",
        0xf7: "ENUM",
        0xf8: "SET",
        0xf9: "TINYBLOB",
        0xfa: "MEDIUMBLOB",
        0xfb: "LONGBLOB",
        0xfc: "BLOB",
        0xfd: "VARCHAR",
        0xfe: "CHAR",
      }[f.columnType];
      const text = binary
        ? (name ?? "BINARY").replace("VARCHAR", "VARBINARY").replace("CHAR", "BINARY")
        : (name ?? "TEXT").replace("BLOB", "TEXT");
      return [col(binary && f.columnType !== 0x0b ? "bytes" : "string", text), undefined];
    }
  }
}

/** Turns a driver error into a StowageError; never includes the URL. */
export function mysqlError(err: unknown, doing: string): StowageError {
  if (err instanceof StowageError) return err;
  const e = err as { message?: string; code?: string; fatal?: boolean };
  const lost =
    e.code === "PROTOCOL_CONNECTION_LOST" ||
    e.code === "ECONNRESET" ||
    e.code === "ER_CONNECTION_KILLED" ||
    e.code === "EPIPE";
  const what = lost ? "the MySQL connection was lost" : "MySQL failed";
  return new StowageError(
    "source",
    `${what} while ${doing}: ${e.message ?? String(err)}${e.code ? ` (${e.code})` : ""}`,
    {
      cause: err,
      hint:
        connectionHint(err, "MySQL/MariaDB") ??
        (lost
          ? "the server ended the session; re-run the export (nothing was committed)"
          : "check the query, the table name and the user's privileges"),
    },
  );
}

/**
 * Opens a MySQL/MariaDB connection.
 * @example const src = await openMysql("mysql://root@127.0.0.1:3306/test");
 */
export async function openMysql(url: string, connectTimeoutMs = 10_000): Promise<Source> {
  const { default: mysql } = await import("mysql2");
  const conn = mysql.createConnection({
    uri: url,
    connectTimeout: connectTimeoutMs,
    // BIGINT: a number when it is a safe integer, else the exact digit text (`bigintValue`);
    // a query for a text format asks for the digit text always (`streamQuery`).
    supportBigNumbers: true,
    bigNumberStrings: false,
    dateStrings: true,
    jsonStrings: true,
    decimalNumbers: false,
    timezone: "Z",
  });
  let lost: unknown;
  conn.on("error", (err) => (lost = err));
  const exec = (sql: string) =>
    new Promise<void>((res, rej) => conn.query(sql, (err) => (err ? rej(err) : res())));
  try {
    await new Promise<void>((res, rej) => conn.connect((err) => (err ? rej(err) : res())));
    // TIMESTAMP values in UTC; a paused stream (slow upload) must not trip the server's write timeout.
    await exec("SET time_zone = '+00:00', SESSION net_write_timeout = 3600");
  } catch (err) {
    conn.destroy();
    throw mysqlError(err, "connecting");
  }
  return {
    type: "mysql",
    quoteIdent: (n) => "`" + n.replace(/`/g, "``") + "`",
    placeholder: (_i, kind) =>
      kind === "int64"
        ? "CAST(? AS SIGNED)"
        : kind === "decimal"
          ? "CAST(? AS DECIMAL(65,30))"
          : "?",
    query: (sql, params, options) => streamQuery(conn, sql, params, options, () => lost),
    async close() {
      // `end` on a connection the server already dropped never calls back: bound the goodbye.
      const socket = (conn as unknown as { stream?: { destroyed?: boolean } }).stream;
      if (lost === undefined && !socket?.destroyed) {
        await new Promise<void>((r) => {
          const cancel = idleTimer(5000, r); // a goodbye must not hold the process open
          conn.end(() => (cancel(), r()));
        });
      }
      conn.destroy();
    },
  };
}

type Conn = import("mysql2").Connection;

function streamQuery(
  conn: Conn,
  sql: string,
  params: QueryParam[],
  options: QueryOptions,
  lost: () => unknown,
): Promise<RowStream> {
  const values = params.map((p) => (typeof p === "bigint" ? p.toString() : p));
  let buf: Row[] = [];
  let ended = false;
  let failure: StowageError | undefined;
  let wake: (() => void) | undefined;
  let converters: (Convert | undefined)[] = [];
  let names: string[] = [];
  const signal = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  options.signal?.addEventListener("abort", signal, { once: true });
  return new Promise<RowStream>((resolve, reject) => {
    // Text formats: BIGINT as the server's digit text, handed on as it is (rendering a
    // number back to text costs more than the parse saves); typed: a number when safe.
    const q = conn.query({
      sql,
      values,
      rowsAsArray: true,
      bigNumberStrings: options.textValues === true,
    });
    q.on("fields", (fields: MyField[]) => {
      const mapped = fields.map(mysqlColumn);
      const typed = options.typedColumns ?? [];
      converters = mapped.map(([col, conv]) =>
        options.textValues && !typed.includes(col.name) ? mysqlTextConverter(col, conv) : conv,
      );
      names = mapped.map((m) => m[0].name);
      resolve(makeStream(mapped.map((m) => m[0])));
    });
    q.on("result", (row: Row) => {
      for (let i = 0; i < converters.length; i++) {
        const c = converters[i];
        if (c && row[i] !== null) row[i] = c(row[i], names[i]!);
      }
      buf.push(row);
      if (buf.length >= options.batchSize) {
        conn.pause();
        signal();
      }
    });
    const onError = (err: unknown) => {
      failure ??= mysqlError(lost() ?? err, names.length ? "reading rows" : "running the query");
      reject(failure);
      signal();
    };
    // A dropped connection is reported on the connection, not the query, when the query has no callback.
    const onConnError = (err: unknown) => onError(err);
    conn.on("error", onConnError);
    q.on("error", onError);
    q.on("end", () => {
      ended = true;
      conn.off("error", onConnError);
      signal();
    });
  });

  function makeStream(columns: ColumnSpec[]): RowStream {
    let closed = false;
    return {
      columns,
      async close() {
        if (closed) return;
        closed = true;
        if (!ended) conn.destroy(); // the only way to stop a running text-protocol result
      },
      async *[Symbol.asyncIterator]() {
        try {
          for (;;) {
            const full = () =>
              buf.length >= options.batchSize ||
              ended ||
              failure !== undefined ||
              options.signal?.aborted === true;
            while (!full()) await new Promise<void>((r) => (wake = r));
            if (failure) throw failure;
            throwIfAborted(options.signal);
            const batch = buf;
            buf = [];
            if (!ended) conn.resume();
            if (batch.length > 0) yield batch;
            else if (ended) return;
          }
        } finally {
          await this.close();
        }
      },
    };
  }
}
