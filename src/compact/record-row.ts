/**
 * One v1 line → one row of the compacted schema (`schema.ts`), or the reason it is rejected.
 * Nothing of an accepted line is lost: JSON fields and unknown top-level fields are copied as
 * their original text (`json-spans.ts`), a timestamp whose text is not the canonical
 * `toISOString()` form keeps that text in `extra`, and a promoted value that does not fit its
 * declared type is null in its column (it stays in `data`, which is always the whole object).
 */
import { objectMembers, pathSpan, type Member } from "./json-spans.js";
import { ROW, type PromotedColumn } from "./schema.js";

export type ParsedLine =
  { ms: number; value: Record<string, unknown>; reject?: undefined } | { reject: string };

const KNOWN = new Set([
  "timestamp",
  "level",
  "message",
  "service",
  "caller",
  "traceId",
  "spanId",
  "data",
  "bindings",
  "error",
]);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/** Epoch ms of an ISO-8601 timestamp with a zone, or NaN. */
export function isoMs(text: string): number {
  return ISO.test(text) ? Date.parse(text) : NaN;
}

/**
 * Parses a line far enough to place it: a JSON object with an ISO-8601 `timestamp`.
 * @example parseLine('{"timestamp":"2026-11-03T14:00:00.000Z","level":"info"}').ms // 1793714400000
 */
export function parseLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { reject: "not JSON" };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return { reject: "not a JSON object" };
  const v = value as Record<string, unknown>;
  if (typeof v.timestamp !== "string") return { reject: "no string timestamp" };
  const ms = isoMs(v.timestamp);
  if (!Number.isFinite(ms)) return { reject: "timestamp is not ISO-8601 with a zone" };
  return { ms, value: v };
}

const text = (v: unknown): string | null =>
  v === undefined || v === null ? null : typeof v === "string" ? v : JSON.stringify(v);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A promoted value of `type`, or null when it does not fit. */
function promote(c: PromotedColumn, v: unknown, raw: () => string | null): unknown {
  switch (c.type) {
    case "string":
      return typeof v === "string" ? v : null;
    case "double":
      return typeof v === "number" ? v : null;
    case "bool":
      return typeof v === "boolean" ? v : null;
    case "timestamp": {
      const ms = typeof v === "string" ? isoMs(v) : NaN;
      return Number.isFinite(ms) ? ms : null;
    }
    case "int64": {
      if (typeof v !== "number" || !Number.isInteger(v)) return null;
      if (Number.isSafeInteger(v)) return v;
      const t = raw(); // beyond 2^53 JSON.parse rounded it: take the digits as written
      if (t === null || !/^-?\d+$/.test(t)) return null;
      const b = BigInt(t);
      return b >= INT64_MIN && b <= INT64_MAX ? b : null;
    }
  }
}

function valueAt(data: unknown, path: readonly string[]): unknown {
  let v = data;
  for (const k of path) {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
    v = Object.hasOwn(v, k) ? (v as Record<string, unknown>)[k] : undefined;
  }
  return v;
}

/**
 * The row of a parsed line (`parseLine`), in `compactSchema` order.
 * @example buildRow(line, parsed.value, parsed.ms, key, 1, [])
 */
export function buildRow(
  line: string,
  v: Record<string, unknown>,
  ms: number,
  sourceKey: string,
  lineNo: number,
  promoted: readonly PromotedColumn[],
): unknown[] {
  const row: unknown[] = new Array(13 + promoted.length).fill(null);
  row[ROW.timestamp] = ms;
  row[ROW.level] = text(v.level);
  row[ROW.message] = text(v.message);
  row[ROW.service] = text(v.service);
  row[ROW.caller] = text(v.caller);
  row[ROW.traceId] = text(v.traceId);
  row[ROW.spanId] = text(v.spanId);
  row[ROW.sourceKey] = sourceKey;
  row[ROW.sourceLine] = lineNo;
  let unknown = false;
  for (const k in v) if (!KNOWN.has(k)) unknown = true;
  const exactTime = new Date(ms).toISOString() === v.timestamp;
  const needSpans = unknown || v.data != null || v.bindings != null || v.error != null;
  const members: Member[] = needSpans ? (objectMembers(line) ?? []) : [];
  const last = new Map<string, Member>();
  for (const m of members) last.set(m.key, m);
  const raw = (k: string): string | null => {
    const m = last.get(k);
    if (!m) return null;
    const t = line.slice(m.start, m.end);
    return t === "null" ? null : t;
  };
  row[ROW.data] = raw("data");
  row[ROW.bindings] = raw("bindings");
  row[ROW.error] = raw("error");
  if (unknown || !exactTime) {
    const parts: string[] = [];
    if (!exactTime) parts.push(`"timestamp":${JSON.stringify(v.timestamp)}`);
    for (const [k, m] of last)
      if (!KNOWN.has(k)) parts.push(`${JSON.stringify(k)}:${line.slice(m.start, m.end)}`);
    row[ROW.extra] = `{${parts.join(",")}}`;
  }
  for (let i = 0; i < promoted.length; i++) {
    const c = promoted[i]!;
    row[13 + i] = promote(c, valueAt(v.data, c.path), () => {
      const d = last.get("data");
      const span = d ? pathSpan(line, c.path, d.start, d.end) : null;
      return span ? line.slice(span.start, span.end) : null;
    });
  }
  return row;
}
