/**
 * One ingested value → a record for `Logger.write`, or the reason it is
 * refused: not an object, unknown or mistyped fields, too many fields, a time
 * out of the skew window (when skew is "reject"). Clamped times keep the
 * client's original in `bindings.clientTimestamp`.
 */
import type { ResolvedIngestOptions } from "./options.js";

export type RejectReason = "malformed" | "tooManyFields" | "skew";

export interface IngestRecord {
  timestamp: string;
  level?: string;
  message: string;
  data?: unknown;
  bindings: Record<string, unknown>;
  error?: unknown;
  traceId?: string;
  spanId?: string;
}

export type Validated = { record: IngestRecord; clamped: boolean } | { reject: RejectReason };

const MALFORMED: Validated = Object.freeze({ reject: "malformed" }) as Validated;

/** The fields a record may have (a switch: cheaper than a Set lookup on the hot path). */
function isKnown(key: string): boolean {
  switch (key) {
    case "timestamp":
    case "level":
    case "message":
    case "data":
    case "bindings":
    case "error":
    case "traceId":
    case "spanId":
      return true;
    default:
      return false;
  }
}

/** @example validateRecord({ message: "hi" }, Date.now(), opts, { origin: "client" }) */
export function validateRecord(
  value: unknown,
  nowMs: number,
  o: ResolvedIngestOptions,
  marker: Record<string, unknown>,
): Validated {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return MALFORMED;
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v)) if (!isKnown(key)) return MALFORMED;
  if (v.message !== undefined && typeof v.message !== "string") return MALFORMED;
  if (v.level !== undefined && typeof v.level !== "string") return MALFORMED;
  if (
    v.bindings !== undefined &&
    (v.bindings === null || typeof v.bindings !== "object" || Array.isArray(v.bindings))
  )
    return MALFORMED;
  if (v.traceId !== undefined && typeof v.traceId !== "string") return MALFORMED;
  if (v.spanId !== undefined && typeof v.spanId !== "string") return MALFORMED;
  if (countFields(v, o.maxFields) > o.maxFields) return { reject: "tooManyFields" };

  let ms = nowMs;
  // The record's time as written, when it is already the canonical form of `ms` (most are).
  let iso: string | undefined;
  if (v.timestamp !== undefined) {
    let t: number;
    if (typeof v.timestamp === "string") {
      t = canonicalIsoMs(v.timestamp);
      if (t >= 0) iso = v.timestamp;
      else t = Date.parse(v.timestamp);
    } else t = typeof v.timestamp === "number" ? v.timestamp : NaN;
    if (!Number.isFinite(t)) return MALFORMED;
    ms = t;
  }
  const bindings: Record<string, unknown> =
    v.bindings === undefined ? {} : { ...(v.bindings as Record<string, unknown>) };
  let clamped = false;
  if (ms > nowMs + o.maxFutureSkewMs || ms < nowMs - o.maxPastSkewMs) {
    if (o.skew === "reject") return { reject: "skew" };
    bindings.clientTimestamp = v.timestamp;
    ms = nowMs;
    iso = undefined;
    clamped = true;
  }
  // The marker goes last: a client cannot pose as another origin.
  Object.assign(bindings, marker);
  const record: IngestRecord = {
    timestamp: iso ?? isoOf(ms),
    message: (v.message as string | undefined) ?? "",
    bindings,
  };
  if (v.level !== undefined) record.level = v.level as string;
  if (v.data !== undefined) record.data = v.data;
  if (v.error !== undefined) record.error = v.error;
  if (v.traceId !== undefined) record.traceId = v.traceId as string;
  if (v.spanId !== undefined) record.spanId = v.spanId as string;
  return { record, clamped };
}

/** `new Date(ms).toISOString()`, reusing the last one (a body's records share the server's now). */
function isoOf(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
let lastMs = NaN;
let lastIso = "";

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

/** Counts keys and array elements (nested included), stopping once past `cap`; no recursion. */
function countFields(value: object, cap: number): number {
  let n = 0;
  const stack: object[] = [value];
  while (stack.length > 0 && n <= cap) {
    const cur = stack.pop()!;
    if (Array.isArray(cur)) {
      for (let i = 0; i < cur.length; i++) {
        n++;
        const child: unknown = cur[i];
        if (child !== null && typeof child === "object") stack.push(child);
      }
    } else
      for (const key in cur)
        if (Object.prototype.hasOwnProperty.call(cur, key)) {
          n++;
          const child = (cur as Record<string, unknown>)[key];
          if (child !== null && typeof child === "object") stack.push(child);
        }
  }
  return n;
}
