/**
 * Lines → records (SPEC §3.1, §5.3): JSON objects with a parseable `timestamp`
 * inside the query range, then the caller's filter. Bad lines are counted, never thrown.
 */
import type { LogRecordLike } from "./record-like.js";
import type { TimeRange } from "./time-range.js";

export interface ParsedLines {
  records: LogRecordLike[];
  /** Lines that are not JSON objects with a string `timestamp`. */
  bad: number;
  /** Records dropped because their time is outside `[from, to)` (objects straddling an edge). */
  outside: number;
}

/**
 * @example parseLines(['{"timestamp":"2026-01-01T00:00:00.000Z","level":"info","message":"hi"}'], range)
 */
export function parseLines(
  lines: readonly string[],
  range: TimeRange,
  filter?: (r: LogRecordLike) => boolean,
): ParsedLines {
  const out: ParsedLines = { records: [], bad: 0, outside: 0 };
  for (const line of lines) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      out.bad++;
      continue;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      out.bad++;
      continue;
    }
    const record = value as LogRecordLike;
    const ms = typeof record.timestamp === "string" ? Date.parse(record.timestamp) : NaN;
    if (!Number.isFinite(ms)) {
      out.bad++;
      continue;
    }
    if (ms < range.fromMs || ms >= range.toMs) {
      out.outside++;
      continue;
    }
    if (filter && !filter(record)) continue;
    out.records.push(record);
  }
  return out;
}
