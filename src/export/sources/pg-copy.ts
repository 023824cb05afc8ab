/**
 * PostgreSQL rows through `COPY (query) TO STDOUT (FORMAT binary)`: the server
 * sends each row as length-prefixed binary fields, decoded here straight into the
 * portable values of `ColumnKind` — integers, floats, dates and timestamps never
 * pass through text, and there is no per-row protocol parsing beyond one CopyData
 * message. Used for queries without bound parameters (COPY cannot take them) whose
 * every column has a decoder below (`copyDecoders` returns undefined otherwise, and
 * the source reads through its cursor). A decoded value is identical to what the
 * cursor path's text parsers give for the same column (tested per type against it).
 */
import { connect } from "node:net";
import { idleTimer, throwIfAborted } from "../../shared/abort.js";
import { utf8Slice } from "../../shared/buffer-text.js";
import { StowageError } from "../../shared/errors.js";
import { nested } from "../sql.js";
import { formatDate, formatTimestamp, parseDateText, parseTimestampText } from "../values.js";
import type { ColumnSpec, QueryOptions, Row, RowStream } from "./source.js";

/** Decodes one non-NULL field of `len` bytes at `p`. */
type Decoder = (buf: Buffer, p: number, len: number) => unknown;

const int32 = (b: Buffer, p: number) =>
  (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
const int16 = (b: Buffer, p: number) => (((b[p]! << 8) | b[p + 1]!) << 16) >> 16;
const uint16 = (b: Buffer, p: number) => (b[p]! << 8) | b[p + 1]!;

/** 2000-01-01 (PostgreSQL's epoch) in days and microseconds since 1970-01-01. */
const PG_EPOCH_DAYS = 10_957;
const PG_EPOCH_MICROS = 946_684_800_000_000;

/** An int8 as a number when it is a safe integer, else undefined (read it as a bigint). */
function safeInt64(b: Buffer, p: number): number | undefined {
  const hi = int32(b, p);
  if (hi < -0x200000 || hi >= 0x200000) return undefined;
  return hi * 4294967296 + (int32(b, p + 4) >>> 0);
}

const int8Typed: Decoder = (b, p) => {
  const n = safeInt64(b, p);
  return n === undefined ? b.readBigInt64BE(p) : BigInt(n);
};
const int8Text: Decoder = (b, p) => {
  const n = safeInt64(b, p);
  return n === undefined ? b.readBigInt64BE(p).toString() : String(n);
};

/** Microseconds since 1970 of a timestamp field; ±infinity fail as their text does. */
function timestampMicros(b: Buffer, p: number): number | bigint {
  const hi = int32(b, p);
  const lo = int32(b, p + 4) >>> 0;
  if (hi === 0x7fffffff && lo === 0xffffffff) return parseTimestampText("infinity");
  if (hi === -0x80000000 && lo === 0) return parseTimestampText("-infinity");
  if (hi >= -0x200000 && hi < 0x200000) {
    const n = hi * 4294967296 + lo + PG_EPOCH_MICROS;
    if (Number.isSafeInteger(n)) return n;
  }
  return b.readBigInt64BE(p) + BigInt(PG_EPOCH_MICROS);
}

const timestampTyped: Decoder = (b, p) => {
  const m = timestampMicros(b, p);
  return typeof m === "bigint" ? m : BigInt(m);
};
const timestampText =
  (utc: boolean): Decoder =>
  (b, p) =>
    formatTimestamp(timestampMicros(b, p), utc);

function dateDays(b: Buffer, p: number): number {
  const v = int32(b, p);
  if (v === 0x7fffffff) return parseDateText("infinity");
  if (v === -0x80000000) return parseDateText("-infinity");
  return v + PG_EPOCH_DAYS;
}

const utf8: Decoder = (b, p, len) => utf8Slice(b, p, p + len);

/** A base-10000 digit as its four decimal digits. */
const four = (d: number) =>
  d >= 1000
    ? String(d)
    : d >= 100
      ? "0" + String(d)
      : d >= 10
        ? "00" + String(d)
        : "000" + String(d);

/**
 * `numeric_send` (ndigits, weight, sign, dscale, base-10000 digits) as the text
 * `numeric_out` prints: NaN/±Infinity by name, otherwise exactly `dscale` fraction digits.
 */
const numericText: Decoder = (b, p) => {
  const ndigits = int16(b, p);
  const weight = int16(b, p + 2);
  const sign = uint16(b, p + 4);
  const dscale = int16(b, p + 6);
  if (sign === 0xc000) return "NaN";
  if (sign === 0xd000) return "Infinity";
  if (sign === 0xf000) return "-Infinity";
  const digit = (k: number) => (k >= 0 && k < ndigits ? uint16(b, p + 8 + 2 * k) : 0);
  let s = sign === 0x4000 ? "-" : "";
  if (weight < 0) s += "0";
  else for (let k = 0; k <= weight; k++) s += k === 0 ? String(digit(k)) : four(digit(k));
  if (dscale > 0) {
    let frac = "";
    for (let k = weight + 1; frac.length < dscale; k++) frac += four(digit(k));
    s += "." + (frac.length === dscale ? frac : frac.slice(0, dscale));
  }
  return s;
};

const uuidText: Decoder = (b, p) => {
  const h = b.toString("hex", p, p + 16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/** An enum label (its binary form is its text). */
const LABEL: [Decoder, Decoder] = [utf8, utf8];

/** OID → [typed decoder, text-values decoder]. */
const DECODERS: Record<number, [Decoder, Decoder]> = (() => {
  const same = (d: Decoder): [Decoder, Decoder] => [d, d];
  return {
    16: same((b, p) => b[p] !== 0),
    17: same((b, p, len) => Buffer.from(b.subarray(p, p + len))),
    20: [int8Typed, int8Text],
    21: [(b, p) => int16(b, p), (b, p) => String(int16(b, p))],
    23: [(b, p) => int32(b, p), (b, p) => String(int32(b, p))],
    26: [(b, p) => BigInt(int32(b, p) >>> 0), (b, p) => String(int32(b, p) >>> 0)],
    701: same((b, p) => b.readDoubleBE(p)),
    1700: same(numericText),
    25: same(utf8),
    1043: same(utf8),
    1042: same(utf8),
    19: same(utf8),
    114: same(utf8),
    3802: same((b, p, len) => {
      if (b[p] !== 1) throw new StowageError("source", `unsupported jsonb version ${b[p]}`);
      return utf8Slice(b, p + 1, p + len);
    }),
    2950: same(uuidText),
    1082: [(b, p) => dateDays(b, p), (b, p) => formatDate(dateDays(b, p))],
    1114: [timestampTyped, timestampText(false)],
    1184: [timestampTyped, timestampText(true)],
  };
})();

/** Whether a built-in type OID has a binary decoder. */
export function hasDecoder(oid: number): boolean {
  return DECODERS[oid] !== undefined;
}

/**
 * The binary decoders of a query's columns (by RowDescription type OID), or undefined
 * when a column has none (the cursor path then reads the query). Columns named in
 * `typed` keep typed values under `textValues`. `labelTypes` are types whose binary
 * form is their text (enums: `enum_send` sends the label), read as strings.
 */
export function copyDecoders(
  fields: readonly { name: string; dataTypeID: number }[],
  textValues: boolean,
  typed: readonly string[],
  labelTypes: ReadonlySet<number> = new Set(),
): Decoder[] | undefined {
  const out: Decoder[] = [];
  for (const f of fields) {
    const d = DECODERS[f.dataTypeID] ?? (labelTypes.has(f.dataTypeID) ? LABEL : undefined);
    if (!d) return undefined;
    out.push(textValues && !typed.includes(f.name) ? d[1] : d[0]);
  }
  return out;
}

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

function malformed(what: string): StowageError {
  return new StowageError("source", `PostgreSQL sent a malformed binary COPY stream (${what})`, {
    hint: "re-run the export; if it persists, report the server version and the query's column types",
  });
}

/**
 * Parses the binary COPY stream: a header, then per row a field count and
 * length-prefixed fields (-1 = NULL), then a trailer (-1). Message boundaries need not
 * match rows; a partial row is kept (copied: the driver reuses its read buffer).
 */
export class BinaryCopyParser {
  private pending: Buffer | undefined;
  private headerDone = false;
  /** The trailer was read: the server sent every row. */
  ended = false;

  constructor(
    private readonly decoders: Decoder[],
    private readonly onRow: (row: Row) => void,
  ) {}

  push(chunk: Buffer): void {
    let buf = chunk;
    if (this.pending) {
      // Bounded by one row (PostgreSQL caps a field at 1 GB): the partial row plus this message.
      // eslint-disable-next-line no-restricted-syntax
      buf = Buffer.concat([this.pending, chunk]);
      this.pending = undefined;
    }
    let pos = 0;
    if (!this.headerDone) {
      if (buf.length < 19) return void (this.pending = Buffer.from(buf));
      if (!buf.subarray(0, 11).equals(SIGNATURE)) throw malformed("no PGCOPY signature");
      const ext = int32(buf, 15);
      if (buf.length < 19 + ext) return void (this.pending = Buffer.from(buf));
      pos = 19 + ext;
      this.headerDone = true;
    }
    const n = this.decoders.length;
    const decoders = this.decoders;
    const end = buf.length;
    while (pos + 2 <= end) {
      const count = int16(buf, pos);
      if (count === -1) {
        this.ended = true;
        return;
      }
      if (count !== n) throw malformed(`a row of ${count} fields, expected ${n}`);
      // One pass: a row cut by the message boundary is dropped here and decoded again
      // whole from the next message (PostgreSQL sends one row per message in practice).
      const row: unknown[] = new Array(n);
      let p = pos + 2;
      let whole = true;
      for (let i = 0; i < n; i++) {
        if (p + 4 > end) {
          whole = false;
          break;
        }
        const len = int32(buf, p);
        p += 4;
        if (len < 0) row[i] = null;
        else if (p + len > end) {
          whole = false;
          break;
        } else {
          row[i] = decoders[i]!(buf, p, len);
          p += len;
        }
      }
      if (!whole) break;
      pos = p;
      this.onRow(row);
    }
    if (pos < buf.length) this.pending = Buffer.from(buf.subarray(pos));
  }
}

/** The parts of a `pg` Client this module drives (its query queue and socket). */
export interface CopyClient {
  query(submittable: object): unknown;
  connection: { stream: { pause(): void; resume(): void }; query(text: string): void };
  processID?: number | null;
  secretKey?: number | null;
  connectionParameters: { host?: string; port?: number };
}

/**
 * Asks the server to cancel the running statement (a CancelRequest on its own
 * connection). Resolves when the server has closed that connection, i.e. has signalled
 * the backend: a cancel that arrives once the statement is over is ignored by an idle
 * backend, so waiting for this keeps it from hitting the connection's next statement.
 */
function sendCancel(client: CopyClient): Promise<void> {
  const { processID, secretKey } = client;
  const { host = "localhost", port = 5432 } = client.connectionParameters;
  if (processID == null || secretKey == null) return Promise.resolve();
  const msg = Buffer.alloc(16);
  msg.writeInt32BE(16, 0);
  msg.writeInt32BE(80877102, 4);
  msg.writeInt32BE(processID, 8);
  msg.writeInt32BE(secretKey, 12);
  const sock = host.startsWith("/") ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host);
  sock.on("error", () => undefined); // best effort: the stream is discarded either way
  sock.setTimeout(5000, () => sock.destroy());
  sock.end(msg);
  return new Promise((resolve) => sock.on("close", () => resolve()));
}

/**
 * Runs `COPY (sql) TO STDOUT (FORMAT binary)` on `client` and hands out the rows in
 * batches of `batchSize`. At most two batches wait for the consumer: beyond that the
 * socket is paused, so a slow upload slows the server. `close()` before the end sends a
 * CancelRequest and discards what still arrives. Resolves once the first batch (or
 * the end, or an error) is in, as the cursor path does.
 */
export async function copyRows(
  client: CopyClient,
  sql: string,
  columns: ColumnSpec[],
  decoders: Decoder[],
  options: QueryOptions,
  wrapError: (err: unknown, doing: string) => StowageError,
): Promise<RowStream> {
  const size = options.batchSize;
  let doing = "running the query";
  let batch: Row[] = [];
  const ready: Row[][] = [];
  let finished = false; // ReadyForQuery seen: nothing more will arrive
  let failure: StowageError | undefined;
  let discarding = false;
  let cancelled: Promise<void> = Promise.resolve();
  let paused = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const parser = new BinaryCopyParser(decoders, (row) => {
    doing = "reading rows"; // an error after the first row is a failure while reading, as with the cursor
    batch.push(row);
    if (batch.length >= size) {
      ready.push(batch);
      batch = [];
      if (ready.length >= 2 && !paused) {
        paused = true;
        client.connection.stream.pause();
      }
      notify();
    }
  });
  const submittable = {
    submit(connection: { query(text: string): void }) {
      connection.query(`COPY ${nested(sql)} TO STDOUT (FORMAT binary)`);
    },
    handleCopyData(msg: { chunk: Buffer }) {
      if (discarding || failure) return;
      try {
        parser.push(msg.chunk);
      } catch (err) {
        failure = err instanceof StowageError ? err : wrapError(err, doing);
        discarding = true;
        cancelled = sendCancel(client);
        notify();
      }
    },
    handleCommandComplete() {},
    handleEmptyQuery() {},
    handleRowDescription() {},
    handleDataRow() {},
    handlePortalSuspended() {},
    handleCopyInResponse() {},
    handleReadyForQuery() {
      if (batch.length) ready.push(batch);
      batch = [];
      if (!parser.ended && !failure && !discarding)
        failure = wrapError(new Error("the COPY stream ended before its trailer"), doing);
      finished = true;
      notify();
    },
    handleError(err: unknown) {
      if (!discarding && !failure) failure = wrapError(err, doing);
      finished = true;
      notify();
    },
  };
  client.query(submittable);

  /** Lets the socket flow again (the statement's end must be read even when its rows are not wanted). */
  const flow = () => {
    if (paused) {
      paused = false;
      client.connection.stream.resume();
    }
  };
  /** The next batch, or undefined at the end; rows that arrived before an error come first. */
  const next = async (): Promise<Row[] | undefined> => {
    for (;;) {
      const b = ready.shift();
      if (b) {
        if (ready.length < 2) flow();
        return b;
      }
      if (failure) {
        flow();
        throw failure;
      }
      if (finished) return undefined;
      await new Promise<void>((r) => (wake = r));
    }
  };
  const close = async () => {
    ready.length = 0;
    batch = [];
    flow();
    if (finished) return void (await cancelled);
    if (!discarding) {
      discarding = true;
      cancelled = sendCancel(client);
    }
    await new Promise<void>((resolve) => {
      const stop = idleTimer(5000, resolve); // a dead server never answers: do not wait for it
      const poll = () => {
        if (!finished) return void (wake = poll);
        void cancelled.then(() => (stop(), resolve()));
      };
      poll();
    });
  };

  let first: Row[] | undefined;
  try {
    first = await next(); // the first batch, or the end: a statement error surfaces here, as with the cursor
  } catch (err) {
    await close();
    throw err;
  }
  return {
    columns,
    close,
    async *[Symbol.asyncIterator]() {
      try {
        let b = first;
        first = undefined;
        while (b) {
          throwIfAborted(options.signal);
          yield b;
          if (discarding) return;
          b = await next();
        }
        throwIfAborted(options.signal);
      } finally {
        await close();
      }
    },
  };
}
