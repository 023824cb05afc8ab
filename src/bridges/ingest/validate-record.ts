/**
 * One ingested value → a record for `Logger.write`, or the reason it is
 * refused: not an object, unknown or mistyped fields, too many fields, a time
 * out of the skew window (when skew is "reject"). Clamped times keep the
 * client's original in `bindings.clientTimestamp`.
 */
import type { ResolvedIngestOptions } from "./options.js";
import { canonicalIsoMs, formatTimestamp } from "../../shared/iso-time.js";

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
    timestamp: iso ?? formatTimestamp(ms),
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
