/**
 * One v1 line → one row of the compacted schema (`schema.ts`), or the reason it is rejected.
 * Nothing of an accepted line is lost: JSON fields and unknown top-level fields are copied as
 * their original text (`json-spans.ts`), a timestamp whose text is not the canonical
 * `toISOString()` form keeps that text in `extra`, and a promoted value that does not fit its
 * declared type is null in its column (it stays in `data`, which is always the whole object).
 */
import { parseTimestamp } from "../record/record.js";
import { pathSpan } from "./json-spans.js";
import { MAX_DEPTH, scanLine, stringValue, type ScannedMember } from "./line-scan.js";
import { ROW, type PromotedColumn } from "./schema.js";

export interface AcceptedLine {
  ms: number;
  /** The (last) `timestamp` member's string, and where its value starts in the line. */
  timestamp: string;
  timestampAt: number;
  /** The line's members (`members[0 … count)`), valid until the next `parseLine`. */
  members: readonly ScannedMember[];
  count: number;
  reject?: undefined;
}

export type ParsedLine = AcceptedLine | { reject: string };

/**
 * Epoch ms of an ISO-8601 timestamp with a zone, or NaN: exactly the timestamps the write
 * path accepts (`record.ts` `parseTimestamp`, the one owner of that rule), so no line the
 * logger wrote is rejected here.
 */
export function isoMs(text: string): number {
  return parseTimestamp(text) ?? NaN;
}

/**
 * Checks a line is a JSON object (`line-scan.ts`: exactly what `JSON.parse` accepts) with an
 * ISO-8601 `timestamp`, and finds its members, without building its values.
 * @example parseLine('{"timestamp":"2026-11-03T14:00:00.000Z","level":"info"}').ms // 1793714400000
 */
export function parseLine(line: string, knownMs?: number): ParsedLine {
  const scan = scanLine(line);
  if (scan === null) return { reject: "not JSON" };
  if (scan.kind === "too-deep") return { reject: `nested deeper than ${MAX_DEPTH} levels` };
  if (scan.kind !== "object") return { reject: "not a JSON object" };
  let tsMember: ScannedMember | undefined;
  for (let k = 0; k < scan.count; k++)
    if (scan.members[k]!.key === "timestamp") tsMember = scan.members[k]; // the last one wins
  if (!tsMember || line.charCodeAt(tsMember.start) !== 34) return { reject: "no string timestamp" };
  const timestamp = stringValue(line, tsMember);
  // `knownMs`: the caller read this very timestamp text already (sorted-rows.ts `fastMs`).
  const ms = knownMs ?? isoMs(timestamp);
  if (!Number.isFinite(ms)) return { reject: "timestamp is not ISO-8601 with a zone" };
  return {
    ms,
    timestamp,
    timestampAt: tsMember.start,
    members: scan.members,
    count: scan.count,
  };
}

/**
 * A member's value as text: a string as itself, null/absent as null, any other value in
 * `JSON.stringify`'s form of its parsed value (as when lines were parsed whole).
 */
function text(line: string, m: ScannedMember | undefined): string | null {
  if (m === undefined) return null;
  const c = line.charCodeAt(m.start);
  if (c === 34) return stringValue(line, m);
  if (c === 110 /* n */) return null;
  return JSON.stringify(JSON.parse(line.slice(m.start, m.end)));
}

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
  // The text parsed to `ms` (mm, ss < 60, else it would not have): the hour decides the rest.
  return text.startsWith(canonText);
}

/**
 * The row of a parsed line (`parseLine`), in `compactSchema` order.
 * @example buildRow(line, parsed, key, 1, [])
 */
export function buildRow(
  line: string,
  p: AcceptedLine,
  sourceKey: string,
  lineNo: number,
  promoted: readonly PromotedColumn[],
): unknown[] {
  // The last member of each name wins, as in JSON.parse.
  let level, message, service, caller, traceId, spanId, data, bindings, error;
  let extra: ScannedMember[] | undefined;
  for (let k = 0; k < p.count; k++) {
    const m = p.members[k]!;
    switch (m.key) {
      case "timestamp":
        break;
      case "level":
        level = m;
        break;
      case "message":
        message = m;
        break;
      case "service":
        service = m;
        break;
      case "caller":
        caller = m;
        break;
      case "traceId":
        traceId = m;
        break;
      case "spanId":
        spanId = m;
        break;
      case "data":
        data = m;
        break;
      case "bindings":
        bindings = m;
        break;
      case "error":
        error = m;
        break;
      default:
        (extra ??= []).push(m);
    }
  }
  const raw = (m: ScannedMember | undefined): string | null => {
    if (m === undefined) return null;
    const t = line.slice(m.start, m.end);
    return t === "null" ? null : t;
  };
  const row: unknown[] = [
    p.ms,
    text(line, level),
    text(line, message),
    text(line, service),
    text(line, caller),
    text(line, traceId),
    text(line, spanId),
    raw(data),
    raw(bindings),
    raw(error),
    null,
    sourceKey,
    lineNo,
  ];
  const exactTime = canonical(p.timestamp, p.ms);
  if (extra || !exactTime) {
    const parts = new Map<string, string>();
    if (!exactTime) parts.set("timestamp", JSON.stringify(p.timestamp));
    for (const m of extra ?? []) parts.set(m.key, line.slice(m.start, m.end));
    row[ROW.extra] = `{${[...parts].map(([k, t]) => `${JSON.stringify(k)}:${t}`).join(",")}}`;
  }
  for (let i = 0; i < promoted.length; i++) {
    const c = promoted[i]!;
    const span =
      data && line.charCodeAt(data.start) === 123
        ? pathSpan(line, c.path, data.start, data.end)
        : null;
    const spanText = span ? line.slice(span.start, span.end) : null;
    row.push(
      promote(c, spanText === null ? undefined : JSON.parse(spanText), () =>
        spanText === "null" ? null : spanText,
      ),
    );
  }
  return row;
}
