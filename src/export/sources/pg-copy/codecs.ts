/**
 * How each PostgreSQL type's binary COPY field is read, by type OID: as a typed value,
 * as text (`textValues`), and as CSV bytes (`csvLines`). A decoded value, and a CSV
 * field, is identical to what the cursor path gives for the same column (tested per
 * type against it). A query with a column of no codec here is read through the cursor.
 */
import { utf8Slice } from "../../../shared/buffer-text.js";
import { StowageError } from "../../../shared/errors.js";
import { writeCsvText } from "../../../encoders/csv.js";
import {
  DATE_TEXT_MAX,
  formatDate,
  formatTimestamp,
  textOf,
  TIMESTAMP_TEXT_MAX,
  writeDate,
  writeInt,
  writeTimestamp,
} from "../../../encoders/values.js";
import type { QueryOptions } from "../source.js";
import { ascii, dateDays, int16, int32, int8Typed, timestampMicros } from "./fields.js";
import { numericRoom, numericText, writeNumeric } from "./numeric.js";
import { cachedText } from "./text-cache.js";

/** Decodes one non-NULL field of `len` bytes at `p`. */
export type Decoder = (buf: Buffer, p: number, len: number) => unknown;

const timestampText =
  (utc: boolean): Decoder =>
  (b, p) =>
    formatTimestamp(timestampMicros(b, p), utc);

const utf8: Decoder = (b, p, len) => utf8Slice(b, p, p + len);

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
export type CsvWriter = (b: Buffer, p: number, len: number, out: Buffer, at: number) => number;
/** Room the CSV field of a non-NULL field takes at most. */
export type CsvRoom = (b: Buffer, p: number, len: number) => number;

/** How one type is read: typed values, text values (`textValues`), and CSV bytes (`csvLines`). */
export interface Codec {
  typed: Decoder;
  text: Decoder;
  csv: CsvWriter;
  room: CsvRoom;
}

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
