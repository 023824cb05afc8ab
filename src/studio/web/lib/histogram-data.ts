/** Histogram buckets: records per time step, stacked by level, on a "nice" step for the range. */
import { LEVELS, type Row } from "./rows.js";

const STEPS = [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400].map(
  (s) => s * 1000,
);

/** The smallest nice step that keeps the bar count at or under `maxBars`. */
export function pickStep(spanMs: number, maxBars = 90): number {
  return STEPS.find((s) => spanMs / s <= maxBars) ?? STEPS[STEPS.length - 1]!;
}

export interface HistogramData {
  step: number;
  /** Bucket start times (seconds, for uPlot). */
  xs: number[];
  /** Per level (LEVELS order): counts per bucket. */
  counts: number[][];
}

/**
 * @example bucketise(rows, from, to).counts[LEVELS.indexOf("error")]
 */
export function bucketise(rows: Row[], from: number, to: number): HistogramData {
  const step = pickStep(to - from);
  const start = Math.floor(from / step) * step;
  const n = Math.max(1, Math.ceil((to - start) / step));
  const xs = Array.from({ length: n }, (_, i) => (start + i * step) / 1000);
  const counts = LEVELS.map(() => new Array<number>(n).fill(0));
  const idx: Record<string, number> = Object.fromEntries(LEVELS.map((l, i) => [l, i]));
  for (const r of rows) {
    const b = Math.floor((r.ts - start) / step);
    if (b < 0 || b >= n) continue;
    counts[idx[r.level] ?? 2]![b]!++;
  }
  return { step, xs, counts };
}
