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

const digit = (t: string, i: number) => {
  const c = t.charCodeAt(i);
  return c >= 48 && c <= 57;
};

/** `YYYY-MM-DDTHH:MM:SS.mmmZ` (what `toISOString` writes), checked char by char. */
function canonicalShape(t: string): boolean {
  if (t.length !== 24) return false;
  for (let i = 0; i < 24; i++) {
    const c = t.charCodeAt(i);
    const want =
      i === 4 || i === 7
        ? 45
        : i === 10
          ? 84
          : i === 13 || i === 16
            ? 58
            : i === 19
              ? 46
              : i === 23
                ? 90
                : 0;
    if (want ? c !== want : !digit(t, i)) return false;
  }
  return true;
}

/** Epoch ms of an ISO-8601 timestamp with a zone, or NaN. */
export function isoMs(text: string): number {
  return canonicalShape(text) || ISO.test(text) ? Date.parse(text) : NaN;
}

/**
 * Parses a line far enough to place it: a JSON object with an ISO-8601 `timestamp`.
 * @example parseLine('{"timestamp":"2026-11-03T14:00:00.000Z","level":"info"}').ms // 1793714400000
 */
export function parseLine(line: string, knownMs?: number): ParsedLine {
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
  // `knownMs`: the caller read this very timestamp text already (sorted-rows.ts `fastMs`).
  const ms = knownMs ?? isoMs(v.timestamp);
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

/** The canonical `toISOString()` text of the last hour seen, up to the hour ("2026-11-03T14"). */
let canonHour = NaN;
let canonText = "";

/** `text` is exactly `new Date(ms).toISOString()`, without building that string per row. */
function canonical(text: string, ms: number): boolean {
  if (text.length !== 24 || text.charCodeAt(23) !== 90 /* Z */ || text.charCodeAt(19) !== 46)
    return false;
  const hour = ms - (ms % 3_600_000);
  if (hour !== canonHour) {
    canonHour = hour;
    canonText = new Date(hour).toISOString().slice(0, 13);
  }
  // The shape matched ISO (mm, ss < 60, else Date.parse is NaN): the hour decides the rest.
  return text.startsWith(canonText);
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
  const row: unknown[] = [
    ms,
    text(v.level),
    text(v.message),
    text(v.service),
    text(v.caller),
    text(v.traceId),
    text(v.spanId),
    null,
    null,
    null,
    null,
    sourceKey,
    lineNo,
  ];
  let unknown = false;
  for (const k in v)
    if (!KNOWN.has(k)) {
      unknown = true;
      break;
    }
  const exactTime = canonical(v.timestamp as string, ms);
  const needSpans = unknown || v.data != null || v.bindings != null || v.error != null;
  let data: Member | undefined;
  let extra: Member[] | undefined;
  if (needSpans) {
    for (const m of objectMembers(line) ?? []) {
      const raw = () => {
        const t = line.slice(m.start, m.end);
        return t === "null" ? null : t;
      };
      // A key given twice: the last one wins, as in JSON.parse.
      if (m.key === "data") {
        data = m;
        row[ROW.data] = raw();
      } else if (m.key === "bindings") row[ROW.bindings] = raw();
      else if (m.key === "error") row[ROW.error] = raw();
      else if (unknown && !KNOWN.has(m.key)) (extra ??= []).push(m);
    }
  }
  if (extra || !exactTime) {
    const parts = new Map<string, string>();
    if (!exactTime) parts.set("timestamp", JSON.stringify(v.timestamp));
    for (const m of extra ?? []) parts.set(m.key, line.slice(m.start, m.end));
    row[ROW.extra] = `{${[...parts].map(([k, t]) => `${JSON.stringify(k)}:${t}`).join(",")}}`;
  }
  for (let i = 0; i < promoted.length; i++) {
    const c = promoted[i]!;
    row.push(
      promote(c, valueAt(v.data, c.path), () => {
        const span = data ? pathSpan(line, c.path, data.start, data.end) : null;
        return span ? line.slice(span.start, span.end) : null;
      }),
    );
  }
  return row;
}
