/**
 * PostgreSQL rows through `COPY (query) TO STDOUT (FORMAT binary)`: the server
 * sends each row as length-prefixed binary fields, decoded here straight into the
 * portable values of `ColumnKind` — integers, floats, dates and timestamps never
 * pass through text — or, for a CSV run, written straight into CSV lines
 * (`CsvBatcher`, no value made). The CopyData messages (one per row) are read off
 * the socket by `tapCopyData` rather than through the driver's per-message events.
 * Used for queries without bound parameters (COPY cannot take them) whose every
 * column has a codec below (`copyTarget` returns undefined otherwise, and the source
 * reads through its cursor). A decoded value, and a CSV field, is identical to what
 * the cursor path gives for the same column (tested per type against it).
 */
import { connect } from "node:net";
import { idleTimer, throwIfAborted } from "../../shared/abort.js";
import { utf8Slice } from "../../shared/buffer-text.js";
import { StowageError } from "../../shared/errors.js";
import { writeCsvText } from "../../encoders/csv.js";
import { nested } from "../sql.js";
import {
  DATE_TEXT_MAX,
  formatDate,
  formatTimestamp,
  parseDateText,
  parseTimestampText,
  textOf,
  TIMESTAMP_TEXT_MAX,
  writeDate,
  writeDigits,
  writeInt,
  writeTimestamp,
} from "../../encoders/values.js";
import {
  CsvLines,
  type Batch,
  type ColumnSpec,
  type QueryOptions,
  type Row,
  type RowStream,
} from "./source.js";

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
  const n = hi * 4294967296 + (int32(b, p + 4) >>> 0);
  return Number.isSafeInteger(n) ? n : undefined; // -2^53 is exact but not safe
}

const int8Typed = (b: Buffer, p: number): number | bigint => safeInt64(b, p) ?? b.readBigInt64BE(p);

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

/** Values a column's text cache holds, and the longest value it holds (bytes). */
const TEXT_CACHE_SLOTS = 16;
const TEXT_CACHE_BYTES = 32;
/** Lookups between the text cache's checks of its hit rate. */
const TEXT_CACHE_ROUND = 1024;

/**
 * A text column's decoder (one per column per query) that keeps its first few short
 * values: columns such as a status, a currency or a country code repeat a handful of
 * strings, and comparing a few bytes costs far less than making each string again (the
 * same string objects also make the Parquet dictionary's lookups cheap). When more than
 * half of a round of lookups miss, it stops looking and decodes every value.
 */
function cachedText(): Decoder {
  const bytes = Buffer.alloc(TEXT_CACHE_SLOTS * TEXT_CACHE_BYTES);
  const lengths = new Int32Array(TEXT_CACHE_SLOTS);
  const strings: string[] = [];
  let lookups = 0;
  let misses = 0;
  let on = true;
  return (b, p, len) => {
    if (!on || len > TEXT_CACHE_BYTES) return utf8Slice(b, p, p + len);
    if (++lookups === TEXT_CACHE_ROUND) {
      on = 2 * misses <= lookups; // this lookup still runs
      lookups = misses = 0;
    }
    const used = strings.length;
    for (let k = 0; k < used; k++) {
      if (lengths[k] !== len) continue;
      const at = k * TEXT_CACHE_BYTES;
      let j = 0;
      while (j < len && bytes[at + j] === b[p + j]) j++;
      if (j === len) return strings[k]!;
    }
    misses++;
    const text = utf8Slice(b, p, p + len);
    if (used < TEXT_CACHE_SLOTS) {
      b.copy(bytes, used * TEXT_CACHE_BYTES, p, p + len);
      lengths[used] = len;
      strings.push(text);
    }
    return text;
  };
}

/** Room `writeNumeric` needs at most for the field at `p`. */
function numericRoom(b: Buffer, p: number): number {
  return 4 * Math.max(int16(b, p + 2) + 1, 1) + Math.max(int16(b, p + 6), 0) + 12;
}

/**
 * Writes `numeric_send` (ndigits, weight, sign, dscale, base-10000 digits) as the text
 * `numeric_out` prints: NaN/±Infinity by name, otherwise exactly `dscale` fraction digits.
 */
function writeNumeric(b: Buffer, p: number, out: Buffer, at: number): number {
  const ndigits = int16(b, p);
  const weight = int16(b, p + 2);
  const sign = uint16(b, p + 4);
  const dscale = int16(b, p + 6);
  if (sign === 0xc000 || sign === 0xd000 || sign === 0xf000)
    return ascii(sign === 0xc000 ? "NaN" : sign === 0xd000 ? "Infinity" : "-Infinity", out, at);
  const d0 = p + 8; // base-10000 digit k is at d0 + 2k when 0 ≤ k < ndigits, else 0
  if (sign === 0x4000) out[at++] = 45;
  if (weight < 0) out[at++] = 48;
  else {
    at = writeInt(out, at, ndigits > 0 ? uint16(b, d0) : 0);
    for (let k = 1; k <= weight; k++)
      at = writeDigits(out, at, k < ndigits ? uint16(b, d0 + 2 * k) : 0, 4);
  }
  if (dscale > 0) {
    out[at++] = 46;
    for (let k = weight + 1, left = dscale; left > 0; k++, left -= 4) {
      const d = k >= 0 && k < ndigits ? uint16(b, d0 + 2 * k) : 0;
      // The last group may be cut: its leading `left` digits.
      at =
        left >= 4
          ? writeDigits(out, at, d, 4)
          : writeDigits(out, at, Math.floor(d / 10 ** (4 - left)), left);
    }
  }
  return at;
}

/** `PAD[n]`: n zeros, the left padding of a fraction group's digits. */
const PAD = ["", "0", "00", "000"];

/**
 * `writeNumeric`'s text as a string, made in JavaScript for numbers whose integer part
 * fits in three base-10000 digits (below 10^12): no buffer, no native call per value.
 * Larger integer parts and NaN/±Infinity take `writeNumeric`.
 */
const numericText: Decoder = (b, p) => {
  const ndigits = int16(b, p);
  const weight = int16(b, p + 2);
  const sign = uint16(b, p + 4);
  const dscale = int16(b, p + 6);
  if (weight > 2 || (sign !== 0 && sign !== 0x4000))
    return textOf(numericRoom(b, p), (o, at) => writeNumeric(b, p, o, at));
  const d0 = p + 8;
  let int = 0;
  for (let k = 0; k <= weight; k++) int = int * 10000 + (k < ndigits ? uint16(b, d0 + 2 * k) : 0);
  let text = sign === 0x4000 ? "-" + int : "" + int;
  if (dscale > 0) {
    text += ".";
    for (let k = weight + 1, left = dscale; left > 0; k++, left -= 4) {
      const d = k >= 0 && k < ndigits ? uint16(b, d0 + 2 * k) : 0;
      const width = left >= 4 ? 4 : left;
      const v = width === 4 ? d : Math.floor(d / 10 ** (4 - width));
      const digits = "" + v;
      text += PAD[width - digits.length]! + digits;
    }
  }
  return text;
};

const HEX = Buffer.from("0123456789abcdef", "latin1");

/** Writes a uuid field as `8-4-4-4-12` lowercase hex. */
function writeUuid(b: Buffer, p: number, out: Buffer, at: number): number {
  for (let k = 0; k < 16; k++) {
    if (k === 4 || k === 6 || k === 8 || k === 10) out[at++] = 45;
    out[at++] = HEX[b[p + k]! >> 4]!;
    out[at++] = HEX[b[p + k]! & 15]!;
  }
  return at;
}

const uuidText: Decoder = (b, p) => textOf(36, (o, at) => writeUuid(b, p, o, at));

/** Writes a non-NULL field as its CSV field (quoted when needed) at `at`; returns the offset after it. */
type CsvWriter = (b: Buffer, p: number, len: number, out: Buffer, at: number) => number;
/** Room the CSV field of a non-NULL field takes at most. */
type CsvRoom = (b: Buffer, p: number, len: number) => number;

/** How one type is read: typed values, text values (`textValues`), and CSV bytes (`csvLines`). */
interface Codec {
  typed: Decoder;
  text: Decoder;
  csv: CsvWriter;
  room: CsvRoom;
}

const ascii = (s: string, out: Buffer, at: number) => at + out.write(s, at, "latin1");
const fixed =
  (n: number): CsvRoom =>
  () =>
    n;
const textRoom: CsvRoom = (_b, _p, len) => 2 * len + 2;
/** A text field: its bytes are its UTF-8 text. */
const TEXT: Codec = {
  typed: utf8,
  text: utf8,
  csv: (b, p, len, out, at) => writeCsvText(out, at, b, p, p + len),
  room: textRoom,
};

function jsonbStart(b: Buffer, p: number): number {
  if (b[p] !== 1) throw new StowageError("source", `unsupported jsonb version ${b[p]}`);
  return p + 1;
}

/** Type OID → its codec. */
const CODECS: Record<number, Codec> = (() => {
  const same = (d: Decoder, csv: CsvWriter, room: CsvRoom): Codec => ({
    typed: d,
    text: d,
    csv,
    room,
  });
  const int = (read: (b: Buffer, p: number) => number): Codec => ({
    typed: read,
    text: (b, p) => String(read(b, p)),
    csv: (b, p, _len, out, at) => writeInt(out, at, read(b, p)),
    room: fixed(11),
  });
  const timestamp = (utc: boolean): Codec => ({
    typed: timestampMicros,
    text: timestampText(utc),
    csv: (b, p, _len, out, at) => writeTimestamp(out, at, timestampMicros(b, p), utc),
    room: fixed(TIMESTAMP_TEXT_MAX),
  });
  return {
    16: same(
      (b, p) => b[p] !== 0,
      (b, p, _len, out, at) => ascii(b[p] !== 0 ? "true" : "false", out, at),
      fixed(5),
    ),
    17: same(
      (b, p, len) => Buffer.from(b.subarray(p, p + len)),
      (b, p, len, out, at) =>
        len === 0 ? ascii('""', out, at) : ascii(b.toString("base64", p, p + len), out, at),
      (_b, _p, len) => 4 * Math.ceil(len / 3) + 2,
    ),
    20: {
      typed: int8Typed,
      text: (b, p) => String(int8Typed(b, p)),
      csv: (b, p, _len, out, at) => {
        const v = int8Typed(b, p);
        return typeof v === "number" ? writeInt(out, at, v) : ascii(v.toString(), out, at);
      },
      room: fixed(20),
    },
    21: int(int16),
    23: int(int32),
    26: int((b, p) => int32(b, p) >>> 0), // an int64 that is always a safe integer
    701: same(
      (b, p) => b.readDoubleBE(p),
      (b, p, _len, out, at) => ascii(String(b.readDoubleBE(p)), out, at),
      fixed(32),
    ),
    1700: same(numericText, (b, p, _len, out, at) => writeNumeric(b, p, out, at), numericRoom),
    25: TEXT,
    1043: TEXT,
    1042: TEXT,
    19: TEXT,
    114: TEXT,
    3802: same(
      (b, p, len) => utf8Slice(b, jsonbStart(b, p), p + len),
      (b, p, len, out, at) => writeCsvText(out, at, b, jsonbStart(b, p), p + len),
      textRoom,
    ),
    2950: same(uuidText, (b, p, _len, out, at) => writeUuid(b, p, out, at), fixed(36)),
    1082: {
      typed: (b, p) => dateDays(b, p),
      text: (b, p) => formatDate(dateDays(b, p)),
      csv: (b, p, _len, out, at) => writeDate(out, at, dateDays(b, p)),
      room: fixed(DATE_TEXT_MAX),
    },
    1114: timestamp(false),
    1184: timestamp(true),
  };
})();

/** Whether a built-in type OID has a binary decoder. */
export function hasDecoder(oid: number): boolean {
  return CODECS[oid] !== undefined;
}

type Field = { name: string; dataTypeID: number };

/** The codecs of a query's columns, or undefined when a column has none. */
function codecsOf(fields: readonly Field[], labelTypes: ReadonlySet<number>): Codec[] | undefined {
  const out: Codec[] = [];
  for (const f of fields) {
    const c = CODECS[f.dataTypeID] ?? (labelTypes.has(f.dataTypeID) ? TEXT : undefined);
    if (!c) return undefined;
    out.push(c);
  }
  return out;
}

/**
 * The binary decoders of a query's columns (by RowDescription type OID), or undefined
 * when a column has none (the cursor path then reads the query). Columns named in
 * `typed` keep typed values under `textValues`. `labelTypes` are types whose binary
 * form is their text (enums: `enum_send` sends the label), read as strings.
 */
export function copyDecoders(
  fields: readonly Field[],
  textValues: boolean,
  typed: readonly string[],
  labelTypes: ReadonlySet<number> = new Set(),
): Decoder[] | undefined {
  return codecsOf(fields, labelTypes)?.map((c, i) => {
    const d = textValues && !typed.includes(fields[i]!.name) ? c.text : c.typed;
    return d === utf8 ? cachedText() : d;
  });
}

/** How the COPY stream's rows become batches: values (`Row[]`) or CSV lines (with typed key columns). */
export type CopyRowsTarget = { decoders: Decoder[] } | { csv: Codec[]; typed: number[] };

/**
 * What `copyRows` hands out for a query's columns, or undefined when a column has no
 * codec: CSV lines under `csvLines` (typed columns kept as values beside them), else values.
 */
export function copyTarget(
  fields: readonly Field[],
  options: QueryOptions,
  labelTypes: ReadonlySet<number> = new Set(),
): CopyRowsTarget | undefined {
  const codecs = codecsOf(fields, labelTypes);
  if (!codecs) return undefined;
  const typed = options.typedColumns ?? [];
  if (options.csvLines) {
    const keys = fields.flatMap((f, i) => (typed.includes(f.name) ? [i] : []));
    return { csv: codecs, typed: keys };
  }
  return { decoders: copyDecoders(fields, options.textValues === true, typed, labelTypes)! };
}

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

function malformed(what: string): StowageError {
  return new StowageError("source", `PostgreSQL sent a malformed binary COPY stream (${what})`, {
    hint: "re-run the export; if it persists, report the server version and the query's column types",
  });
}

/** Receives each whole row: field i starts at `offs[2i]` and is `offs[2i + 1]` bytes long (-1: NULL). */
export interface CopyRowSink {
  row(buf: Buffer, offs: Int32Array): void;
}

/**
 * Parses the binary COPY stream: a header, then per row a field count and
 * length-prefixed fields (-1 = NULL), then a trailer (-1). Message boundaries need not
 * match rows; a partial row is kept (copied: the driver reuses its read buffer).
 */
export class BinaryCopyParser {
  private pending: Buffer | undefined;
  private headerDone = false;
  private readonly offs: Int32Array;
  /** The trailer was read: the server sent every row. */
  ended = false;

  constructor(
    private readonly fieldCount: number,
    private readonly sink: CopyRowSink,
  ) {
    this.offs = new Int32Array(2 * fieldCount);
  }

  push(chunk: Buffer): void {
    this.pushRange(chunk, 0, chunk.length);
  }

  /** `push` of `chunk[start, end)`, without making a view of it. */
  pushRange(chunk: Buffer, start: number, end: number): void {
    let buf = chunk;
    let pos = start;
    if (this.pending) {
      // Bounded by one row (PostgreSQL caps a field at 1 GB): the partial row plus this message.
      // eslint-disable-next-line no-restricted-syntax
      buf = Buffer.concat([this.pending, chunk.subarray(start, end)]);
      this.pending = undefined;
      pos = 0;
      end = buf.length;
    }
    if (!this.headerDone) {
      if (end - pos < 19) return void (this.pending = Buffer.from(buf.subarray(pos, end)));
      if (!buf.subarray(pos, pos + 11).equals(SIGNATURE)) throw malformed("no PGCOPY signature");
      const ext = int32(buf, pos + 15);
      if (end - pos < 19 + ext) return void (this.pending = Buffer.from(buf.subarray(pos, end)));
      pos += 19 + ext;
      this.headerDone = true;
    }
    const n = this.fieldCount;
    const offs = this.offs;
    while (pos + 2 <= end) {
      const count = int16(buf, pos);
      if (count === -1) {
        this.ended = true;
        return;
      }
      if (count !== n) throw malformed(`a row of ${count} fields, expected ${n}`);
      // A row cut by the message boundary waits for the next message, whole
      // (PostgreSQL sends one row per message in practice).
      let p = pos + 2;
      let whole = true;
      for (let i = 0; i < n; i++) {
        if (p + 4 > end) {
          whole = false;
          break;
        }
        const len = int32(buf, p);
        p += 4;
        if (len > 0 && p + len > end) {
          whole = false;
          break;
        }
        offs[2 * i] = p;
        offs[2 * i + 1] = len;
        if (len > 0) p += len;
      }
      if (!whole) break;
      pos = p;
      this.sink.row(buf, offs);
    }
    if (pos < end) this.pending = Buffer.from(buf.subarray(pos, end));
  }
}

/** Rows as values, in batches of `size`. */
export class ValueBatcher implements CopyRowSink {
  private batch: Row[] = [];

  constructor(
    private readonly decoders: Decoder[],
    private readonly size: number,
    private readonly onBatch: (batch: Row[]) => void,
  ) {}

  row(buf: Buffer, offs: Int32Array): void {
    const n = this.decoders.length;
    const row: unknown[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const len = offs[2 * i + 1]!;
      row[i] = len < 0 ? null : this.decoders[i]!(buf, offs[2 * i]!, len);
    }
    this.batch.push(row);
    if (this.batch.length >= this.size) this.flush();
  }

  flush(): void {
    if (this.batch.length) this.onBatch(this.batch);
    this.batch = [];
  }

  drop(): void {
    this.batch = [];
  }
}

/** Bytes of a CSV-lines batch buffer (a batch ends at `size` rows or when this is full). */
const CSV_BATCH_BYTES = 256 * 1024;

/**
 * Rows written as CSV lines (`CsvLines`), in batches of at most `size` rows: each
 * field's text goes from the COPY bytes straight into the batch's buffer, no value made.
 */
export class CsvBatcher implements CopyRowSink {
  private buf = Buffer.allocUnsafeSlow(CSV_BATCH_BYTES);
  private ends: Int32Array;
  private used = 0;
  private rows = 0;
  /** The typed values of `typed` columns, in the batch's row order. */
  private values: unknown[][];

  constructor(
    private readonly codecs: Codec[],
    private readonly size: number,
    private readonly onBatch: (batch: CsvLines) => void,
    /** Columns also kept as typed values (a cursor or keyset key): their indexes. */
    private readonly typed: readonly number[] = [],
  ) {
    this.ends = new Int32Array(size);
    this.values = typed.map(() => []);
  }

  row(src: Buffer, offs: Int32Array): void {
    const codecs = this.codecs;
    const n = codecs.length;
    let room = n + 2; // commas and CRLF
    for (let i = 0; i < n; i++) {
      const len = offs[2 * i + 1]!;
      if (len >= 0) room += codecs[i]!.room(src, offs[2 * i]!, len);
    }
    if (this.used + room > this.buf.length) {
      this.flush();
      if (room > this.buf.length) this.buf = Buffer.allocUnsafeSlow(room);
    }
    const out = this.buf;
    let at = this.used;
    for (let i = 0; i < n; i++) {
      if (i > 0) out[at++] = 44;
      const len = offs[2 * i + 1]!;
      if (len >= 0) at = codecs[i]!.csv(src, offs[2 * i]!, len, out, at);
    }
    out[at++] = 13;
    out[at++] = 10;
    for (let k = 0; k < this.typed.length; k++) {
      const i = this.typed[k]!;
      const len = offs[2 * i + 1]!;
      this.values[k]!.push(len < 0 ? null : codecs[i]!.typed(src, offs[2 * i]!, len));
    }
    this.ends[this.rows++] = at;
    this.used = at;
    if (this.rows >= this.size) this.flush();
  }

  flush(): void {
    if (this.rows) {
      const typed = new Map(this.typed.map((col, k) => [col, this.values[k]!] as const));
      this.onBatch(new CsvLines(this.buf, this.ends, 0, this.rows, typed));
      this.buf = Buffer.allocUnsafeSlow(CSV_BATCH_BYTES);
      this.ends = new Int32Array(this.size);
    }
    this.drop();
  }

  drop(): void {
    this.used = 0;
    this.rows = 0;
    this.values = this.typed.map(() => []);
  }
}

type DataListener = (chunk: Buffer) => void;

/** The 'data' events of a socket (a `net.Socket` or `tls.TLSSocket`). */
interface DataStream {
  listeners(event: "data"): unknown[];
  on(event: "data" | "close", listener: DataListener): unknown;
  removeListener(event: "data" | "close", listener: DataListener): unknown;
}

/**
 * Takes one COPY's CopyData messages off the driver's protocol parser. PostgreSQL sends
 * a message per row, and the driver makes a Buffer, a message object and an event of
 * each; here the payloads go to `onData` as ranges of the socket's chunks, unsliced.
 * Installed in place of the driver's one 'data' listener before the statement is sent,
 * the tap frames the protocol itself and hands every other message (CopyOutResponse,
 * notices, ErrorResponse, CopyDone…) on to the driver unchanged, in order. After CopyDone
 * or an ErrorResponse it puts the driver's listener back and hands it the rest of the
 * stream. Returns undefined (the driver's own path is used) unless the socket has
 * exactly one 'data' listener.
 */
export function tapCopyData(
  stream: DataStream,
  onData: (buf: Buffer, start: number, end: number) => void,
): { remove(): void } | undefined {
  const found = stream.listeners("data");
  if (found.length !== 1 || typeof found[0] !== "function") return undefined;
  const driver = found[0] as DataListener;
  let carry: Buffer | undefined; // an incomplete message header
  let remaining = 0; // bytes of the current message still to come
  let inData = false; // the current message is CopyData
  let last = false; // the current message is CopyDone or ErrorResponse
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    stream.removeListener("data", tap);
    stream.removeListener("close", remove);
    stream.on("data", driver);
  };
  const tap: DataListener = (chunk) => {
    let buf = chunk;
    if (carry) {
      // eslint-disable-next-line no-restricted-syntax
      buf = Buffer.concat([carry, chunk]); // at most 4 bytes carried
      carry = undefined;
    }
    const end = buf.length;
    let pos = 0;
    let forwardFrom = -1; // start of bytes for the driver, not yet handed on
    const forward = (to: number) => {
      if (forwardFrom >= 0 && to > forwardFrom) driver(buf.subarray(forwardFrom, to));
      forwardFrom = -1;
    };
    while (pos < end) {
      if (remaining > 0) {
        const take = Math.min(remaining, end - pos);
        if (inData) onData(buf, pos, pos + take);
        else if (forwardFrom < 0) forwardFrom = pos;
        pos += take;
        remaining -= take;
        if (remaining === 0 && last) {
          forward(pos);
          remove();
          if (pos < end) driver(buf.subarray(pos));
          return;
        }
        continue;
      }
      if (end - pos < 5) {
        forward(pos);
        carry = Buffer.from(buf.subarray(pos));
        return;
      }
      const code = buf[pos]!;
      const length = buf.readUInt32BE(pos + 1); // counts itself, not the type byte
      if (code === 0x64) {
        forward(pos);
        inData = true;
        last = false;
        pos += 5;
        remaining = length - 4;
      } else {
        if (forwardFrom < 0) forwardFrom = pos;
        inData = false;
        last = code === 0x63 || code === 0x45; // CopyDone, ErrorResponse
        remaining = length + 1;
      }
    }
    forward(end);
  };
  stream.removeListener("data", driver);
  stream.on("data", tap);
  stream.on("close", remove);
  return { remove };
}

/** The parts of a `pg` Client this module drives (its query queue and socket). */
export interface CopyClient {
  query(submittable: object): unknown;
  connection: { stream: DataStream & { pause(): void; resume(): void }; query(text: string): void };
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
  target: CopyRowsTarget,
  options: QueryOptions,
  wrapError: (err: unknown, doing: string) => StowageError,
  /** Read CopyData off the socket (`tapCopyData`); false: through the driver's events. */
  tapSocket = true,
): Promise<RowStream> {
  let doing = "running the query";
  const ready: Batch[] = [];
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
  const onBatch = (batch: Batch) => {
    ready.push(batch);
    if (ready.length >= 2 && !paused) {
      paused = true;
      client.connection.stream.pause();
    }
    notify();
  };
  const batcher =
    "csv" in target
      ? new CsvBatcher(target.csv, options.batchSize, onBatch, target.typed)
      : new ValueBatcher(target.decoders, options.batchSize, onBatch);
  const parser = new BinaryCopyParser(columns.length, batcher);
  const take = (buf: Buffer, start: number, end: number) => {
    if (discarding || failure) return;
    doing = "reading rows"; // an error once rows flow is a failure while reading, as with the cursor
    try {
      parser.pushRange(buf, start, end);
    } catch (err) {
      failure = err instanceof StowageError ? err : wrapError(err, doing);
      discarding = true;
      cancelled = sendCancel(client);
      notify();
    }
  };
  let tap: { remove(): void } | undefined;
  const submittable = {
    submit(connection: { query(text: string): void }) {
      // Rows straight from the socket (the driver's CopyData events, below, without the tap).
      if (tapSocket) tap = tapCopyData(client.connection.stream, take);
      connection.query(`COPY ${nested(sql)} TO STDOUT (FORMAT binary)`);
    },
    handleCopyData(msg: { chunk: Buffer }) {
      take(msg.chunk, 0, msg.chunk.length);
    },
    handleCommandComplete() {},
    handleEmptyQuery() {},
    handleRowDescription() {},
    handleDataRow() {},
    handlePortalSuspended() {},
    handleCopyInResponse() {},
    handleReadyForQuery() {
      tap?.remove();
      if (!discarding) batcher.flush();
      if (!parser.ended && !failure && !discarding)
        failure = wrapError(new Error("the COPY stream ended before its trailer"), doing);
      finished = true;
      notify();
    },
    handleError(err: unknown) {
      tap?.remove();
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
  const next = async (): Promise<Batch | undefined> => {
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
    batcher.drop();
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

  let first: Batch | undefined;
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
