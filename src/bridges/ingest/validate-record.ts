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

const KNOWN = new Set([
  "timestamp",
  "level",
  "message",
  "data",
  "bindings",
  "error",
  "traceId",
  "spanId",
]);

/** @example validateRecord({ message: "hi" }, Date.now(), opts, { origin: "client" }) */
export function validateRecord(
  value: unknown,
  nowMs: number,
  o: ResolvedIngestOptions,
  marker: Record<string, unknown>,
): Validated {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return { reject: "malformed" };
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v)) if (!KNOWN.has(key)) return { reject: "malformed" };
  if (v.message !== undefined && typeof v.message !== "string") return { reject: "malformed" };
  if (v.level !== undefined && typeof v.level !== "string") return { reject: "malformed" };
  if (
    v.bindings !== undefined &&
    (v.bindings === null || typeof v.bindings !== "object" || Array.isArray(v.bindings))
  )
    return { reject: "malformed" };
  for (const id of ["traceId", "spanId"] as const)
    if (v[id] !== undefined && typeof v[id] !== "string") return { reject: "malformed" };
  if (countFields(v, o.maxFields) > o.maxFields) return { reject: "tooManyFields" };

  let ms = nowMs;
  if (v.timestamp !== undefined) {
    const t =
      typeof v.timestamp === "number"
        ? v.timestamp
        : typeof v.timestamp === "string"
          ? Date.parse(v.timestamp)
          : NaN;
    if (!Number.isFinite(t)) return { reject: "malformed" };
    ms = t;
  }
  const bindings: Record<string, unknown> = {
    ...(v.bindings as Record<string, unknown> | undefined),
  };
  let clamped = false;
  if (ms > nowMs + o.maxFutureSkewMs || ms < nowMs - o.maxPastSkewMs) {
    if (o.skew === "reject") return { reject: "skew" };
    bindings.clientTimestamp = v.timestamp;
    ms = nowMs;
    clamped = true;
  }
  // The marker goes last: a client cannot pose as another origin.
  Object.assign(bindings, marker);
  const record: IngestRecord = {
    timestamp: new Date(ms).toISOString(),
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

/** Counts keys (nested included), stopping once past `cap`. */
function countFields(value: unknown, cap: number): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && n <= cap) {
    const cur = stack.pop();
    if (cur === null || typeof cur !== "object") continue;
    for (const child of Object.values(cur as Record<string, unknown>)) {
      n++;
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
  return n;
}
