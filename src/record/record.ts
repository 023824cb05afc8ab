/**
 * The record model (§3.1): the `LogRecord` fields, timestamp formatting and
 * parsing, and `serializeError` (Error → plain, cycle-safe, recursive cause).
 */
import type { Level } from "./levels.js";
import { sanitizeValue } from "./safe-json.js";
import type { SanitizeOptions } from "./walk-context.js";
import { canonicalIsoMs, formatTimestamp } from "../shared/iso-time.js";

/**
 * One log record, one JSON line. Field order on output is the order below.
 * Before serialisation `data`, `bindings` and `error` may hold any value
 * (an `Error`, cycles, BigInt...); `serializeRecord` writes them as plain JSON.
 */
export interface LogRecord {
  /** ISO-8601 UTC with milliseconds (`2026-03-01T10:59:59.999Z`): the event time, used for partitioning. */
  timestamp: string;
  level: Level;
  message: string;
  /** From config. */
  service?: string;
  /** `relative/path.ts:LINE`, only when the logger has `caller: true`. */
  caller?: string;
  /** The call's structured payload. */
  data?: unknown;
  /** From `child(bindings)`. */
  bindings?: Record<string, unknown>;
  /** An Error (or anything thrown) before serialisation; a `SerializedError` after. */
  error?: unknown;
  traceId?: string;
  spanId?: string;
}

/** An error as written into a record. Own enumerable properties appear too. */
export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  code?: unknown;
  status?: unknown;
  cause?: unknown;
  /** AggregateError's members. */
  errors?: unknown[];
  [prop: string]: unknown;
}

export { RECORD_FIELDS } from "./fields.js";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export { formatTimestamp };

/**
 * Record timestamp → epoch ms, or null when it is not a valid ISO-8601 date.
 * Any ISO form `Date.parse` accepts with an explicit zone is read; the canonical
 * form (`YYYY-MM-DDTHH:mm:ss.sssZ`) takes a fast path.
 * @example parseTimestamp("2026-03-01T10:00:00.000Z") // 1772359200000
 */
export function parseTimestamp(iso: string): number | null {
  if (typeof iso !== "string") return null;
  const canonical = canonicalIsoMs(iso);
  if (canonical >= 0) return canonical;
  if (
    !ISO_MS.test(iso) &&
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(iso)
  ) {
    return null;
  }
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * Any thrown value → a plain, JSON-safe error object. Never throws.
 * Errors keep name, message, stack, code, status (also from `statusCode` or
 * `$metadata.httpStatusCode`), cause (recursively), AggregateError `errors`
 * and their own enumerable properties; cycles become "[Circular]".
 * Non-errors become `{name: "NonError", message: <text>}`.
 * @example serializeError(new Error("boom", { cause: err }))
 */
export function serializeError(err: unknown, opts: SanitizeOptions = {}): SerializedError {
  const value = sanitizeValue(err, opts);
  if (value !== null && typeof value === "object" && !Array.isArray(value) && isErrorLike(err)) {
    const v = value as Record<string, unknown>;
    if (err instanceof Error) return v as SerializedError;
    // an error-like plain object: make sure name and message lead
    return {
      name: typeof v.name === "string" ? v.name : "Error",
      message: String(v.message ?? ""),
      ...v,
    };
  }
  const message =
    typeof value === "string" ? value : value === undefined ? String(value) : safeJson(value);
  return { name: "NonError", message };
}

function isErrorLike(err: unknown): boolean {
  try {
    return (
      err instanceof Error ||
      (typeof err === "object" && err !== null && typeof (err as Error).message === "string")
    );
  } catch {
    return false;
  }
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? "[Unserializable]";
  } catch {
    return "[Unserializable]";
  }
}
