/**
 * Exact conversions between database text and the portable value
 * representation of `ColumnKind` (dates as day numbers, timestamps as bigint
 * microseconds, decimals as text), and back to ISO-8601 text for CSV/NDJSON.
 * Integer arithmetic only: no Date objects, so microseconds and years outside
 * 1970±285k survive.
 */
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
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

const DATE_RE = /^(\d{4,})-(\d{2})-(\d{2})( BC)?$/;
const TS_RE = /^(\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?|Z)?( BC)?$/;

function notRepresentable(text: string, what: string): StowageError {
  return new StowageError("source", `the ${what} value "${text}" cannot be represented in an export`, {
    hint: "filter or cast it in the query, e.g. `CASE WHEN col = 'infinity' THEN NULL ELSE col END`",
  });
}

/** Parses `YYYY-MM-DD` (optionally ` BC`) into a day number. */
export function parseDateText(text: string): number {
  const m = DATE_RE.exec(text);
  if (!m) throw notRepresentable(text, "date");
  const year = m[4] ? 1 - Number(m[1]) : Number(m[1]);
  return daysFromCivil(year, Number(m[2]), Number(m[3]));
}

/**
 * Parses `YYYY-MM-DD HH:MM:SS[.ffffff][±HH[:MM[:SS]]|Z][ BC]` into microseconds since
 * the epoch. With an offset the result is the UTC instant; without one, the wall clock.
 * @example parseTimestampText("2024-01-02 03:04:05.5+01") // 1704161045500000n
 */
export function parseTimestampText(text: string): bigint {
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

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/** `YYYY-MM-DD` of a day number (years before 1 or after 9999 use a sign, as ISO 8601 allows). */
export function formatDate(days: number): string {
  const [y, m, d] = civilFromDays(days);
  const year = y >= 0 && y <= 9999 ? pad(y, 4) : (y < 0 ? "-" : "+") + pad(Math.abs(y), 6);
  return `${year}-${pad(m, 2)}-${pad(d, 2)}`;
}

/**
 * ISO-8601 text of microseconds since the epoch; `utc` appends `Z`.
 * @example formatTimestamp(1704161045500000n, true) // "2024-01-02T02:04:05.500000Z"
 */
export function formatTimestamp(micros: bigint, utc: boolean): string {
  let days = micros / MICROS_PER_DAY;
  let rest = micros % MICROS_PER_DAY;
  if (rest < 0n) {
    rest += MICROS_PER_DAY;
    days -= 1n;
  }
  const r = Number(rest);
  const secs = Math.floor(r / 1_000_000);
  const frac = r % 1_000_000;
  const time = `${pad(Math.floor(secs / 3600), 2)}:${pad(Math.floor(secs / 60) % 60, 2)}:${pad(secs % 60, 2)}`;
  return `${formatDate(Number(days))}T${time}${frac ? "." + pad(frac, 6) : ""}${utc ? "Z" : ""}`;
}

/**
 * The unscaled integer of a decimal text at `scale` (for Parquet DECIMAL).
 * @example decimalToUnscaled("-12.5", 2) // -1250n
 */
export function decimalToUnscaled(text: string, scale: number): bigint {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m || (m[2] === "" && !m[3])) throw notRepresentable(text, "decimal");
  let digits = (m[2] ?? "") + (m[3] ?? "");
  let exp = (m[4] ? Number(m[4]) : 0) - (m[3]?.length ?? 0) + scale;
  if (exp >= 0) digits += "0".repeat(exp);
  else {
    const cut = digits.slice(digits.length + exp);
    if (/[^0]/.test(cut)) {
      throw new StowageError("source", `the decimal value "${text}" has more than ${scale} fraction digits`, {
        hint: "round it in the query, or declare the column with a larger scale",
      });
    }
    digits = digits.slice(0, digits.length + exp) || "0";
    exp = 0;
  }
  const v = BigInt(digits || "0");
  return m[1] === "-" ? -v : v;
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
