/**
 * Time ranges of a query (SPEC §5.2): parsing `from`/`to` (Date, epoch ms, ISO,
 * or relative like `2h` for the CLI), the 7-day ceiling, and the UTC hours to list.
 */
import { HOUR_MS, utcHourStart } from "../v1-format/object-key.js";
import { StowageError } from "../shared/errors.js";
import { MAX_RANGE_MS } from "./limits.js";

/** A validated half-open range `[fromMs, toMs)`. */
export interface TimeRange {
  fromMs: number;
  toMs: number;
}

const RELATIVE = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)$/i;
const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: HOUR_MS,
  d: 24 * HOUR_MS,
  w: 7 * 24 * HOUR_MS,
};

/**
 * A Date, epoch ms or ISO-8601 string → epoch ms. Throws StowageError("usage").
 * @example toEpochMs("2026-11-03T10:00:00Z", "from") // 1793700000000
 */
export function toEpochMs(value: Date | number | string, what: string): number {
  const ms =
    value instanceof Date ? value.getTime() : typeof value === "number" ? value : parseIso(value);
  if (!Number.isFinite(ms)) {
    throw new StowageError(
      "usage",
      `\`${what}\` is not a valid time: ${JSON.stringify(String(value)).slice(0, 60)}; use an ISO-8601 time such as 2026-11-03T10:00:00Z or epoch milliseconds`,
    );
  }
  return Math.trunc(ms);
}

function parseIso(text: string): number {
  const t = text.trim();
  if (/^\d{10,14}$/.test(t)) return Number(t);
  if (!/^\d{4}-\d{2}-\d{2}/.test(t)) return NaN;
  return Date.parse(t);
}

/**
 * CLI times: `now`, relative durations before `nowMs` (`90s`, `30m`, `2h`, `7d`, `1w`),
 * ISO-8601 or epoch ms.
 * @example parseTimeArg("2h", Date.UTC(2026, 0, 1, 12)) // Date.UTC(2026, 0, 1, 10)
 */
export function parseTimeArg(text: string, nowMs: number, what = "time"): number {
  const t = text.trim();
  if (t.toLowerCase() === "now") return nowMs;
  const rel = RELATIVE.exec(t.replace(/^-/, "").replace(/\s*ago$/i, ""));
  if (rel) return Math.round(nowMs - Number(rel[1]) * UNIT_MS[rel[2]!.toLowerCase()]!);
  const ms = parseIso(t);
  if (!Number.isFinite(ms)) {
    throw new StowageError(
      "usage",
      `${what} "${t.slice(0, 60)}" is not a time; use ISO-8601 (2026-11-03T10:00:00Z), epoch ms, "now", or a duration ago such as 30m, 2h, 7d`,
    );
  }
  return ms;
}

/**
 * Validates a query range: `from < to` and at most 7 days (§5.2).
 * @example resolveRange("2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z")
 */
export function resolveRange(from: Date | number | string, to: Date | number | string): TimeRange {
  const fromMs = toEpochMs(from, "from");
  const toMs = toEpochMs(to, "to");
  if (fromMs >= toMs) {
    throw new StowageError(
      "usage",
      `the range is empty: \`from\` (${iso(fromMs)}) must be before \`to\` (${iso(toMs)})`,
    );
  }
  if (toMs - fromMs > MAX_RANGE_MS) {
    const days = ((toMs - fromMs) / (24 * HOUR_MS)).toFixed(1);
    throw new StowageError(
      "usage",
      `the range ${iso(fromMs)} → ${iso(toMs)} spans ${days} days; a load covers at most 7 days. Narrow --from/--to, or query longer ranges with DuckDB or Athena over the hour folders (docs/scale-out.md)`,
    );
  }
  return { fromMs, toMs };
}

/** Start of every UTC hour that overlaps the range, newest first. */
export function hoursNewestFirst(range: TimeRange): number[] {
  const out: number[] = [];
  for (let h = utcHourStart(range.toMs - 1); h >= utcHourStart(range.fromMs); h -= HOUR_MS)
    out.push(h);
  return out;
}

function iso(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString();
}
