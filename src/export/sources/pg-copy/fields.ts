/**
 * Reads of PostgreSQL's fixed-width binary send forms (big-endian integers, int8,
 * timestamps as microseconds and dates as days since 2000-01-01), shared by the codecs
 * and the COPY parser, and the one small writer they share (`ascii`).
 */
import { parseDateText, parseTimestampText } from "../../../encoders/values.js";

export const int32 = (b: Buffer, p: number) =>
  (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
export const int16 = (b: Buffer, p: number) => (((b[p]! << 8) | b[p + 1]!) << 16) >> 16;
export const uint16 = (b: Buffer, p: number) => (b[p]! << 8) | b[p + 1]!;

/** Writes latin1 text `s` at `at`; returns the offset after it. */
export const ascii = (s: string, out: Buffer, at: number) => at + out.write(s, at, "latin1");

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

/** An int8 field: a number when it is a safe integer, else a bigint. */
export const int8Typed = (b: Buffer, p: number): number | bigint =>
  safeInt64(b, p) ?? b.readBigInt64BE(p);

/** Microseconds since 1970 of a timestamp field; ±infinity fail as their text does. */
export function timestampMicros(b: Buffer, p: number): number | bigint {
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

/** Days since 1970 of a date field; ±infinity fail as their text does. */
export function dateDays(b: Buffer, p: number): number {
  const v = int32(b, p);
  if (v === 0x7fffffff) return parseDateText("infinity");
  if (v === -0x80000000) return parseDateText("-infinity");
  return v + PG_EPOCH_DAYS;
}
