/**
 * The record timestamp form `YYYY-MM-DDTHH:mm:ss.sssZ` (what `toISOString` writes), both
 * ways, without `Date.parse` or a new Date on the hot paths: the logger, ingestion and
 * compaction read and write millions of these, and those two calls cost more than the
 * rest of their work on a timestamp together.
 */

/**
 * Epoch ms → the record timestamp format (UTC, milliseconds).
 * @example formatTimestamp(0) // "1970-01-01T00:00:00.000Z"
 */
export function formatTimestamp(ms: number): string {
  // Busy loggers format the same millisecond many times: reuse the last string.
  if (ms === lastMs) return lastIso;
  // Within the last second formatted, only the milliseconds change: `toISOString` (V8
  // formats it through printf, ~7k instructions) once a second, then a 3-digit suffix.
  const second = Math.floor(ms / 1000);
  if (second === lastSecond && Number.isInteger(ms)) {
    const milli = ms - second * 1000;
    lastIso = secondPrefix + (milli < 10 ? "00" : milli < 100 ? "0" : "") + milli + "Z";
  } else {
    lastIso = new Date(ms).toISOString();
    // `YYYY-MM-DDTHH:mm:ss.`: years 0000–9999 only (others are written ±YYYYYY).
    const reusable = lastIso.length === 24 && Number.isInteger(ms);
    secondPrefix = reusable ? lastIso.slice(0, 20) : "";
    lastSecond = reusable ? second : NaN;
  }
  lastMs = ms;
  return lastIso;
}
let lastMs = NaN;
let lastIso = "";
let lastSecond = NaN;
let secondPrefix = "";

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Epoch ms of a timestamp in the canonical form `YYYY-MM-DDTHH:mm:ss.sssZ` (what
 * `toISOString` writes), year 1970–9999, every field in range — the form whose
 * `new Date(Date.parse(s)).toISOString()` is `s` itself; -1 for anything else (then
 * `Date.parse` decides, as before). Arithmetic only: `Date.parse` and `toISOString`
 * cost more than the rest of the validation together.
 * @example canonicalIsoMs("1970-01-02T00:00:00.000Z") // 86400000
 */
export function canonicalIsoMs(s: string): number {
  if (
    s.length !== 24 ||
    s.charCodeAt(4) !== 45 || // -
    s.charCodeAt(7) !== 45 ||
    s.charCodeAt(10) !== 84 || // T
    s.charCodeAt(13) !== 58 || // :
    s.charCodeAt(16) !== 58 ||
    s.charCodeAt(19) !== 46 || // .
    s.charCodeAt(23) !== 90 // Z
  )
    return -1;
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 2);
  const d = digits(s, 8, 2);
  const h = digits(s, 11, 2);
  const mi = digits(s, 14, 2);
  const sec = digits(s, 17, 2);
  const msec = digits(s, 20, 3);
  // digits() is -1 for a non-digit: every field is checked below its range too.
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59) return -1;
  if (sec < 0 || sec > 59 || msec < 0) return -1;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > DAYS_IN_MONTH[mo - 1]! + (mo === 2 && leap ? 1 : 0)) return -1;
  return daysFromCivil(y, mo, d) * 86_400_000 + h * 3_600_000 + mi * 60_000 + sec * 1000 + msec;
}

/**
 * `canonicalIsoMs` of the 24 bytes at `at` (a stamp inside a line's bytes), without
 * decoding them when their `YYYY-MM-DDTHH` is the hour of the last canonical stamp read
 * here — nearly every stamp of a batch of log lines: that prefix was validated whole once,
 * so only `:mm:ss.sssZ` is checked, as `canonicalIsoMs` checks it. -1 for anything else.
 * @example canonicalStampMs(Buffer.from("1970-01-02T00:00:00.000Z"), 0) // 86400000
 */
export function canonicalStampMs(buf: Uint8Array, at: number): number {
  if (stampHourMs >= 0 && sameHour(buf, at)) {
    const mi = byteDigits(buf, at + 14, 2);
    const sec = byteDigits(buf, at + 17, 2);
    const msec = byteDigits(buf, at + 20, 3);
    const marks =
      buf[at + 13] === 58 && buf[at + 16] === 58 && buf[at + 19] === 46 && buf[at + 23] === 90;
    if (marks && mi >= 0 && mi <= 59 && sec >= 0 && sec <= 59 && msec >= 0)
      return stampHourMs + mi * 60_000 + sec * 1000 + msec;
  }
  const ms = canonicalIsoMs(Buffer.from(buf.buffer, buf.byteOffset + at, 24).toString("latin1"));
  if (ms >= 0) {
    stampHour.set(buf.subarray(at, at + 13));
    stampHourMs = ms - (ms % 3_600_000);
  }
  return ms;
}
/** `YYYY-MM-DDTHH` of the last canonical stamp `canonicalStampMs` read, and its hour's ms. */
const stampHour = new Uint8Array(13);
let stampHourMs = -1;

function sameHour(buf: Uint8Array, at: number): boolean {
  for (let k = 12; k >= 0; k--) if (buf[at + k] !== stampHour[k]) return false;
  return true;
}

/** `digits` over bytes. */
function byteDigits(buf: Uint8Array, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = buf[i]! - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** The decimal number of `n` digits at `at`, or -1 when one of them is not a digit. */
function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (y ≥ 0; H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}
