/**
 * Exact conversions between database text and the portable value
 * representation of `ColumnKind` (dates as day numbers, timestamps as bigint
 * microseconds, decimals as text), and back to ISO-8601 text for CSV/NDJSON.
 * Integer arithmetic only: no Date objects, so microseconds and years outside
 * 1970±285k survive.
 */
import { latin1Slice } from "../shared/buffer-text.js";
import { StowageError } from "../shared/errors.js";

const MICROS_PER_DAY = 86_400_000_000n;

/** Days since 1970-01-01 of a proleptic Gregorian date (astronomical years: 1 BC = 0). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The civil date of a day number: [year, month, day]. */
export function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

const DATE_RE = /^(\d{4,})-(\d{2})-(\d{2})( BC)?$/;
const TS_RE =
  /^(\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?|Z)?( BC)?$/;

function notRepresentable(text: string, what: string): StowageError {
  return new StowageError(
    "source",
    `the ${what} value "${text}" cannot be represented in an export`,
    {
      hint: "filter or cast it in the query, e.g. `CASE WHEN col = 'infinity' THEN NULL ELSE col END`",
    },
  );
}

/** Parses `YYYY-MM-DD` (optionally ` BC`) into a day number. */
export function parseDateText(text: string): number {
  const m = DATE_RE.exec(text);
  if (!m) throw notRepresentable(text, "date");
  const year = m[4] ? 1 - Number(m[1]) : Number(m[1]);
  return daysFromCivil(year, Number(m[2]), Number(m[3]));
}

/**
 * An integer (a bigint, or its decimal text) as a number when it is a safe integer,
 * else as a bigint.
 * @example safeInteger("42") // 42
 */
export function safeInteger(v: bigint | string): number | bigint {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : BigInt(v);
}

/**
 * Parses `YYYY-MM-DD HH:MM:SS[.ffffff][±HH[:MM[:SS]]|Z][ BC]` into microseconds since
 * the epoch. With an offset the result is the UTC instant; without one, the wall clock.
 * @example parseTimestampText("2024-01-02 03:04:05.5+01") // 1704161045500000n
 */
export function parseTimestampText(text: string): bigint {
  const fast = parseTimestampFast(text);
  return fast !== undefined ? BigInt(fast) : parseTimestampGeneral(text);
}

/**
 * `parseTimestampText` as a number when it is a safe integer (the export value of a
 * timestamp: no bigint made for the common case), else as a bigint.
 * @example parseTimestampMicros("1970-01-01 00:00:01") // 1000000
 */
export function parseTimestampMicros(text: string): number | bigint {
  return parseTimestampFast(text) ?? safeInteger(parseTimestampGeneral(text));
}

/** Every shape `parseTimestampText` accepts (BC years, `T`, `Z`, offsets with seconds), by regex. */
function parseTimestampGeneral(text: string): bigint {
  const m = TS_RE.exec(text);
  if (!m) throw notRepresentable(text, "timestamp");
  const year = m[12] ? 1 - Number(m[1]) : Number(m[1]);
  const days = daysFromCivil(year, Number(m[2]), Number(m[3]));
  let seconds = Number(m[4]) * 3600 + Number(m[5]) * 60 + Number(m[6]);
  if (m[8]) {
    const off = Number(m[9]) * 3600 + Number(m[10] ?? 0) * 60 + Number(m[11] ?? 0);
    seconds -= m[8] === "-" ? -off : off;
  }
  const frac = m[7] ? Number((m[7] + "00000").slice(0, 6)) : 0;
  return BigInt(days) * MICROS_PER_DAY + BigInt(seconds * 1_000_000 + frac);
}

const d2 = (t: string, i: number) => (t.charCodeAt(i) - 48) * 10 + t.charCodeAt(i + 1) - 48;

/** The day number of the first of the last month parsed: a column's timestamps mostly share it. */
let lastMonth = NaN;
let lastMonthDays = 0;

/**
 * The common shape `YYYY-MM-DD HH:MM:SS[.f…][±HH[:MM]]` without regex, bigints or a
 * calendar computation per value (the hot path of timestamp columns read as text);
 * anything else returns undefined.
 */
function parseTimestampFast(t: string): number | undefined {
  const n = t.length;
  if (
    n < 19 ||
    t.charCodeAt(4) !== 45 ||
    t.charCodeAt(7) !== 45 ||
    t.charCodeAt(10) !== 32 ||
    t.charCodeAt(13) !== 58 ||
    t.charCodeAt(16) !== 58
  )
    return undefined;
  const century = twoDigits(t, 0);
  const yy = twoDigits(t, 2);
  const month = twoDigits(t, 5);
  const day = twoDigits(t, 8);
  const hh = twoDigits(t, 11);
  const mi = twoDigits(t, 14);
  const ss = twoDigits(t, 17);
  if ((century | yy | month | day | hh | mi | ss) < 0) return undefined;
  let seconds = hh * 3600 + mi * 60 + ss;
  let i = 19;
  let frac = 0;
  if (t.charCodeAt(i) === 46) {
    let digits = 0;
    for (i++; i < n; i++) {
      const c = t.charCodeAt(i) - 48;
      if (c < 0 || c > 9) break;
      if (digits < 6) {
        frac = frac * 10 + c;
        digits++;
      }
    }
    frac *= 10 ** (6 - digits);
  }
  if (i < n) {
    const sign = t.charCodeAt(i);
    if ((sign !== 43 && sign !== 45) || (n - i !== 3 && n - i !== 6)) return undefined;
    const offH = twoDigits(t, i + 1);
    const offM = n - i === 6 ? twoDigits(t, i + 4) : 0;
    if ((offH | offM) < 0 || (n - i === 6 && t.charCodeAt(i + 3) !== 58)) return undefined;
    const off = offH * 3600 + offM * 60;
    seconds -= sign === 45 ? -off : off;
  }
  const ym = (century * 100 + yy) * 100 + month;
  if (ym !== lastMonth) {
    lastMonthDays = daysFromCivil(century * 100 + yy, month, 1);
    lastMonth = ym;
  }
  const micros = (lastMonthDays + day - 1) * 86_400_000_000 + seconds * 1_000_000 + frac;
  return Number.isSafeInteger(micros) ? micros : undefined;
}

/** The two digits at `t[i]`, `t[i + 1]` as a number, or -1 when either is not a digit. */
function twoDigits(t: string, i: number): number {
  const a = t.charCodeAt(i) - 48;
  const b = t.charCodeAt(i + 1) - 48;
  return a >>> 0 > 9 || b >>> 0 > 9 ? -1 : a * 10 + b;
}

/** The last day formatted: a batch's timestamps mostly share their day. */
let lastDay = NaN;
let lastDayText = "";

/** Room `writeDate` needs at most (`-123456-01-01`). */
export const DATE_TEXT_MAX = 14;
/** Room `writeTimestamp` needs at most (a date, `T`, `HH:MM:SS.ffffff`, `Z`). */
export const TIMESTAMP_TEXT_MAX = DATE_TEXT_MAX + 17;

/**
 * Days `writeDate` wrote lately, and their text, in 64 slots by day number: a batch's
 * timestamps mostly share a few days (two columns of a row, a day apart, keep theirs).
 */
const DAY_SLOTS = 64;
const slotDay = new Float64Array(DAY_SLOTS).fill(NaN);
const slotLength = new Uint8Array(DAY_SLOTS);
const slotText = new Uint8Array(DAY_SLOTS * DATE_TEXT_MAX);

/** Writes the two decimal digits of 0 ≤ n < 100 at `at`. */
function put2(out: Buffer, at: number, n: number): void {
  const t = (n / 10) | 0;
  out[at] = 48 + t;
  out[at + 1] = 48 + n - t * 10;
}

/** Writes `n` (≥ 0) as exactly `width` decimal digits, zero-padded, at `at`; returns the offset after them. */
export function writeDigits(out: Buffer, at: number, n: number, width: number): number {
  for (let i = at + width - 1; i >= at; i--) {
    const q = Math.floor(n / 10);
    out[i] = 48 + n - q * 10;
    n = q;
  }
  return at + width;
}

/** Writes the decimal digits of a safe integer at `at`; returns the offset after them (≤ 17 bytes). */
export function writeInt(out: Buffer, at: number, n: number): number {
  if (n < 0) {
    out[at++] = 45;
    n = -n;
  }
  let len = 1;
  for (let p = 10; n >= p && len < 16; p *= 10) len++;
  let i = at + len;
  while (n >= 100) {
    const q = Math.floor(n / 100);
    i -= 2;
    put2(out, i, n - q * 100);
    n = q;
  }
  if (n >= 10) put2(out, i - 2, n);
  else out[i - 1] = 48 + n;
  return at + len;
}

/**
 * Writes the `YYYY-MM-DD` text of a day number at `at` (years before 1 or after 9999
 * as `±YYYYYY`, as ISO 8601 allows); returns the offset after it. The one owner of
 * the export text of dates: `formatDate` is this as a string.
 */
export function writeDate(out: Buffer, at: number, days: number): number {
  const slot = days & (DAY_SLOTS - 1);
  const base = slot * DATE_TEXT_MAX;
  if (slotDay[slot] === days) {
    const n = slotLength[slot]!;
    for (let k = 0; k < n; k++) out[at + k] = slotText[base + k]!;
    return at + n;
  }
  const [y, m, d] = civilFromDays(days);
  let i = at;
  if (y >= 0 && y <= 9999) {
    put2(out, i, (y / 100) | 0);
    put2(out, i + 2, y % 100);
    i += 4;
  } else {
    out[i++] = y < 0 ? 45 : 43;
    i = writeDigits(out, i, Math.abs(y), 6);
  }
  out[i] = 45;
  put2(out, i + 1, m);
  out[i + 3] = 45;
  put2(out, i + 4, d);
  const n = i + 6 - at;
  for (let k = 0; k < n; k++) slotText[base + k] = out[at + k]!;
  slotDay[slot] = days;
  slotLength[slot] = n;
  return i + 6;
}

/**
 * Writes the ISO-8601 text of microseconds since the epoch (a bigint, or a
 * safe-integer number) at `at`: `YYYY-MM-DDTHH:MM:SS`, then `.ffffff` when the
 * fraction is not zero, then `Z` when `utc`. Returns the offset after it. The one
 * owner of the export text of timestamps: `formatTimestamp` is this as a string.
 */
export function writeTimestamp(
  out: Buffer,
  at: number,
  micros: bigint | number,
  utc: boolean,
): number {
  let dayNumber: number;
  let r: number;
  const asNumber = Number(micros);
  if (Number.isSafeInteger(asNumber)) {
    dayNumber = Math.floor(asNumber / 86_400_000_000);
    r = asNumber - dayNumber * 86_400_000_000;
  } else {
    const big = BigInt(micros);
    let days = big / MICROS_PER_DAY;
    let rest = big % MICROS_PER_DAY;
    if (rest < 0n) {
      rest += MICROS_PER_DAY;
      days -= 1n;
    }
    dayNumber = Number(days);
    r = Number(rest);
  }
  let i = writeDate(out, at, dayNumber);
  const secs = Math.floor(r / 1_000_000);
  const frac = r - secs * 1_000_000;
  out[i] = 84; // T
  put2(out, i + 1, Math.floor(secs / 3600));
  out[i + 3] = 58;
  put2(out, i + 4, Math.floor(secs / 60) % 60);
  out[i + 6] = 58;
  put2(out, i + 7, secs % 60);
  i += 9;
  if (frac) {
    out[i] = 46;
    i = writeDigits(out, i + 1, frac, 6);
  }
  if (utc) out[i++] = 90; // Z
  return i;
}

/** Scratch space of `textOf` (single-threaded, never held across calls). */
let scratch = Buffer.allocUnsafe(256);

/**
 * The string form of a byte writer's ASCII text: `write` fills a scratch buffer of at
 * least `room` bytes from offset 0 and returns where it stopped.
 * @example textOf(DATE_TEXT_MAX, (out, at) => writeDate(out, at, 0)) // "1970-01-01"
 */
export function textOf(room: number, write: (out: Buffer, at: number) => number): string {
  if (scratch.length < room) scratch = Buffer.allocUnsafe(room);
  return latin1Slice(scratch, 0, write(scratch, 0));
}

/** `YYYY-MM-DD` of a day number (years before 1 or after 9999 use a sign, as ISO 8601 allows). */
export function formatDate(days: number): string {
  if (days === lastDay) return lastDayText;
  lastDayText = textOf(DATE_TEXT_MAX, (out, at) => writeDate(out, at, days));
  lastDay = days;
  return lastDayText;
}

/**
 * ISO-8601 text of microseconds since the epoch (a bigint, or a safe-integer number); `utc` appends `Z`.
 * @example formatTimestamp(1704161045500000n, true) // "2024-01-02T02:04:05.500000Z"
 */
export function formatTimestamp(micros: bigint | number, utc: boolean): string {
  return textOf(TIMESTAMP_TEXT_MAX, (out, at) => writeTimestamp(out, at, micros, utc));
}

/**
 * The unscaled integer of a decimal text at `scale` (for Parquet DECIMAL).
 * @example decimalToUnscaled("-12.5", 2) // -1250n
 */
export function decimalToUnscaled(text: string, scale: number): bigint {
  const v = unscaledDecimal(text, scale);
  return typeof v === "bigint" ? v : BigInt(v);
}

/**
 * `decimalToUnscaled` as a number when it is a safe integer (the common case, no
 * bigint made), else as a bigint.
 * @example unscaledDecimal("-12.5", 2) // -1250
 */
export function unscaledDecimal(text: string, scale: number): number | bigint {
  return plainDecimalUnscaled(text, scale) ?? generalUnscaled(text, scale);
}

function generalUnscaled(text: string, scale: number): bigint {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m || (m[2] === "" && !m[3])) throw notRepresentable(text, "decimal");
  let digits = (m[2] ?? "") + (m[3] ?? "");
  let exp = (m[4] ? Number(m[4]) : 0) - (m[3]?.length ?? 0) + scale;
  if (exp >= 0) digits += "0".repeat(exp);
  else {
    const cut = digits.slice(digits.length + exp);
    if (/[^0]/.test(cut)) {
      throw new StowageError(
        "source",
        `the decimal value "${text}" has more than ${scale} fraction digits`,
        {
          hint: "round it in the query, or declare the column with a larger scale",
        },
      );
    }
    digits = digits.slice(0, digits.length + exp) || "0";
    exp = 0;
  }
  const v = BigInt(digits || "0");
  return m[1] === "-" ? -v : v;
}

/**
 * The common shape `[-]digits[.digits]` with at most `scale` fraction digits and a
 * result below 2^53, without regex or string building; anything else is undefined.
 */
function plainDecimalUnscaled(t: string, scale: number): number | undefined {
  const n = t.length;
  let i = t.charCodeAt(0) === 45 ? 1 : 0;
  if (i === n) return undefined;
  let v = 0;
  let frac = -1;
  for (; i < n; i++) {
    const c = t.charCodeAt(i);
    if (c === 46 && frac < 0) frac = 0;
    else if (c >= 48 && c <= 57) {
      v = v * 10 + (c - 48);
      if (frac >= 0) frac++;
    } else return undefined;
  }
  if (frac === 0 || (frac < 0 && t.charCodeAt(n - 1) === 45)) return undefined;
  const digits = frac < 0 ? 0 : frac;
  if (digits > scale || scale - digits > 15) return undefined;
  v *= 10 ** (scale - digits);
  if (!Number.isSafeInteger(v)) return undefined;
  return t.charCodeAt(0) === 45 ? -v : v;
}

/** Compares two cursor values of the same kind (numbers, bigints, decimal text, strings). */
export function compareValues(a: unknown, b: unknown, decimal = false): number {
  if (decimal && typeof a === "string" && typeof b === "string") {
    const scale = Math.max(fractionDigits(a), fractionDigits(b));
    const x = decimalToUnscaled(a, scale);
    const y = decimalToUnscaled(b, scale);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

function fractionDigits(s: string): number {
  const i = s.indexOf(".");
  return i < 0 ? 0 : s.length - i - 1;
}

const DAYS_IN_MONTH = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether t[at…at+9] is a `YYYY-MM-DD` whose text `formatDate` would give back unchanged. */
function plainDateAt(t: string, at: number): boolean {
  for (const p of [0, 1, 2, 3, 5, 6, 8, 9]) {
    const c = t.charCodeAt(at + p);
    if (c < 48 || c > 57) return false;
  }
  if (t.charCodeAt(at + 4) !== 45 || t.charCodeAt(at + 7) !== 45) return false;
  const y = d2(t, at) * 100 + d2(t, at + 2);
  const m = d2(t, at + 5);
  const d = d2(t, at + 8);
  if (y < 1 || m < 1 || m > 12 || d < 1 || d > DAYS_IN_MONTH[m]!) return false;
  return m !== 2 || d < 29 || (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0));
}

/**
 * The export text of a date given as database text (`YYYY-MM-DD`): exactly
 * `formatDate(parseDateText(text))`, without the day-number round trip for the
 * common shape (text formats hand it on as it came).
 * @example dateTextToIso("2024-02-29") // "2024-02-29"
 */
export function dateTextToIso(text: string): string {
  if (text.length === 10 && plainDateAt(text, 0)) return text;
  return formatDate(parseDateText(text));
}

/**
 * The export text of a timestamp given as database text: exactly
 * `formatTimestamp(parseTimestampText(text), utc)`, rewritten in place for the
 * common shape `YYYY-MM-DD HH:MM:SS[.ffffff][+00[:00]]` (no offset, or UTC),
 * through the bigint round trip otherwise.
 * @example timestampTextToIso("2024-01-02 03:04:05.5+00", true) // "2024-01-02T03:04:05.500000Z"
 */
export function timestampTextToIso(text: string, utc: boolean): string {
  const n = text.length;
  if (
    n >= 19 &&
    plainDateAt(text, 0) &&
    text.charCodeAt(10) === 32 &&
    text.charCodeAt(13) === 58 &&
    text.charCodeAt(16) === 58
  ) {
    let ok = true;
    for (const p of [11, 12, 14, 15, 17, 18]) {
      const c = text.charCodeAt(p);
      if (c < 48 || c > 57) ok = false;
    }
    if (ok && d2(text, 11) < 24 && d2(text, 14) < 60 && d2(text, 17) < 60) {
      let i = 19;
      let frac = "";
      if (text.charCodeAt(i) === 46) {
        const start = ++i;
        let nonZero = false;
        for (; i < n; i++) {
          const c = text.charCodeAt(i);
          if (c < 48 || c > 57) break;
          if (c !== 48) nonZero = true;
        }
        const digits = i - start;
        if (digits === 0 || digits > 6) ok = false;
        else if (nonZero) frac = "." + text.slice(start, i).padEnd(6, "0");
      }
      const rest = text.slice(i);
      if (ok && (rest === "" || rest === "+00" || rest === "+00:00"))
        return `${text.slice(0, 10)}T${text.slice(11, 19)}${frac}${utc ? "Z" : ""}`;
    }
  }
  return formatTimestamp(parseTimestampText(text), utc);
}
