/**
 * The rows of a claim in one total order — timestamp, then source key, then line — with
 * bounded memory: the hour is cut into time slices whose estimated decoded size fits
 * `sliceBytes` (from each object's key range and size), each slice reads only the objects
 * whose range overlaps it, keeps the rows inside it, sorts them (stable) and hands them on.
 *
 * Invariants:
 * - every non-blank line of every claimed source becomes exactly one row or one reject: a
 *   row in the slice holding its timestamp, a reject (malformed, or a timestamp outside its
 *   object's key range) in the object's home slice, the one holding its `min-ms`;
 * - a slice that turns out to hold more than 2 × `sliceBytes` is split in two and read
 *   again; a 1 ms slice is not held at all (its rows are already in order as read);
 * - the order, and so every part's rows, depend only on the claim, not on the slicing.
 */
import { StowageError } from "../shared/errors.js";
import type { ManifestSource, SourceRef } from "./manifest.js";
import { buildRow, isoMs, parseLine, type AcceptedLine, type ParsedLine } from "./record-row.js";
import type { PromotedColumn } from "./schema.js";
import { readSourceLines, type SourceLines } from "./source-read.js";
import type { StoreCalls } from "./store-calls.js";

export interface ClaimedSource extends SourceRef {
  minMs: number;
  maxMs: number;
}

export interface RowSink {
  row(row: unknown[], ms: number): Promise<void>;
  reject(source: string, lineNo: number, reason: string, text: string): void;
}

/**
 * gzip NDJSON of log lines decodes to about this many times its size: 5.5–7.1 for varied
 * lines, 16 for the benchmark's repetitive ones. Overestimating costs only more slices.
 */
const DECODED_PER_BYTE = 16;
/** What a held row costs beyond its line's text: its array, its strings' headers, the sort entry. */
const ROW_OVERHEAD_BYTES = 256;

class SliceOverflow extends Error {}

/** Objects being downloaded at once while a slice is read (each ≤ 25 MiB decoded, usually ≤ 1 MiB). */
const READ_AHEAD = 4;

/** Slice bounds `[t0, t1)` over the hour so that each holds ≈ `budget` estimated bytes. */
export function planSlices(
  sources: readonly ClaimedSource[],
  hourMs: number,
  budget: number,
): [number, number][] {
  const end = hourMs + 3_600_000;
  const points = new Set<number>([hourMs, end]);
  for (const s of sources) {
    points.add(Math.max(hourMs, s.minMs));
    points.add(Math.min(end, s.maxMs + 1));
  }
  const cuts = [...points].sort((a, b) => a - b);
  const density = (a: number) =>
    sources.reduce(
      (d, s) =>
        s.minMs <= a && a <= s.maxMs
          ? d + (s.size * DECODED_PER_BYTE) / (s.maxMs - s.minMs + 1)
          : d,
      0,
    );
  const out: [number, number][] = [];
  let start = hourMs;
  let held = 0;
  for (let i = 0; i + 1 < cuts.length; i++) {
    let a = cuts[i]!;
    const b = cuts[i + 1]!;
    const d = density(a);
    while (d > 0 && held + d * (b - a) > budget) {
      const cut = Math.max(a + 1, a + Math.floor((budget - held) / d));
      if (cut >= b) break;
      out.push([start, cut]);
      start = cut;
      held = 0;
      a = cut;
    }
    held += d * (b - a);
  }
  out.push([start, end]);
  return out.filter(([a, b]) => b > a);
}

export interface SortedRowsOptions {
  calls: StoreCalls;
  hourMs: number;
  sources: readonly ClaimedSource[];
  promoted: readonly PromotedColumn[];
  sliceBytes: number;
  sink: RowSink;
}

/**
 * Streams the claim's rows into `sink` in order; returns the per-source accounting.
 * @example const stats = await sortedRows({ calls, hourMs, sources, promoted, sliceBytes, sink });
 */
export async function sortedRows(o: SortedRowsOptions): Promise<ManifestSource[]> {
  const stats: (ManifestSource | undefined)[] = o.sources.map(() => undefined);
  const rows = new Map<number, number>();
  const rejected = new Map<number, number>();
  const slices = planSlices(o.sources, o.hourMs, o.sliceBytes);
  const run = async (t0: number, t1: number): Promise<void> => {
    try {
      await readSlice(o, t0, t1, stats, rows, rejected);
    } catch (err) {
      if (!(err instanceof SliceOverflow)) throw err;
      const mid = t0 + Math.floor((t1 - t0) / 2);
      await run(t0, mid);
      await run(mid, t1);
    }
  };
  for (const [t0, t1] of slices) await run(t0, t1);
  return o.sources.map((s, i) => {
    const st = stats[i];
    if (!st) throw new StowageError("internal", `${s.key} was never read`);
    return { ...st, rows: rows.get(i) ?? 0, rejected: rejected.get(i) ?? 0 };
  });
}

async function readSlice(
  o: SortedRowsOptions,
  t0: number,
  t1: number,
  stats: (ManifestSource | undefined)[],
  rows: Map<number, number>,
  rejected: Map<number, number>,
): Promise<void> {
  const streaming = t1 - t0 === 1;
  const kept: { ms: number; row: unknown[] }[] = [];
  // What this slice found is merged only once it is complete: an overflow leaves no trace.
  const counts = new Map<number, number>();
  const found = new Map<number, ManifestSource>();
  const rejects: [string, number, string, string][] = [];
  const rejectCounts = new Map<number, number>();
  let held = 0;
  const overlapping: number[] = [];
  for (let i = 0; i < o.sources.length; i++)
    if (o.sources[i]!.minMs < t1 && o.sources[i]!.maxMs >= t0) overlapping.push(i);
  // Up to READ_AHEAD objects are downloaded and decoded while earlier ones are parsed.
  const pending = new Map<number, Promise<SourceLines>>();
  const fetch = (k: number) => {
    const i = overlapping[k];
    if (i !== undefined && !pending.has(i)) {
      const p = readSourceLines(o.calls, o.sources[i]!);
      p.catch(() => {}); // awaited in order below; a failure there ends the slice
      pending.set(i, p);
    }
  };
  for (let k = 0; k < READ_AHEAD; k++) fetch(k);
  for (let k = 0; k < overlapping.length; k++) {
    const i = overlapping[k]!;
    const s = o.sources[i]!;
    const homeAt = Math.max(s.minMs, o.hourMs);
    const home = homeAt >= t0 && homeAt < t1;
    fetch(k);
    const read = await pending.get(i)!;
    pending.delete(i);
    fetch(k + READ_AHEAD);
    const seen = stats[i];
    if (home) found.set(i, accountFor(s, read));
    else if (!seen || seen.status !== read.status || seen.lines !== read.lines.length)
      throw new StowageError(
        "integrity",
        `${s.key} read differently twice (${seen?.status}, ${seen?.lines} lines; then ${read.status}, ${read.lines.length})`,
      );
    const reject = (lineNo: number, reason: string, text: string) => {
      rejects.push([s.key, lineNo, reason, text]);
      rejectCounts.set(i, (rejectCounts.get(i) ?? 0) + 1);
    };
    for (const { text, lineNo } of read.lines) {
      // A line whose timestamp can be read without parsing it is handled — parsed, and
      // rejected if it is not JSON — only by the slice holding that time; any other line
      // is parsed by every slice reading its object and rejected only in its home slice.
      const fast = fastMs(text);
      const known = !Number.isNaN(fast);
      if (known) {
        if (fast < s.minMs || fast > s.maxMs) {
          if (home) reject(lineNo, "timestamp outside its object's key range", text);
          continue;
        }
        if (fast < t0 || fast >= t1) continue;
      }
      const p = parseLine(text, known ? fast : undefined);
      const reason =
        p.reject ??
        (known && twoTimestamps(text, p)
          ? "two timestamp fields"
          : p.ms < s.minMs || p.ms > s.maxMs
            ? "timestamp outside its object's key range"
            : undefined);
      if (reason !== undefined) {
        if (home || known) reject(lineNo, reason, text);
        continue;
      }
      const accepted = p as AcceptedLine;
      if (accepted.ms < t0 || accepted.ms >= t1) continue;
      const ms = accepted.ms;
      const row = buildRow(text, accepted, s.key, lineNo, o.promoted);
      counts.set(i, (counts.get(i) ?? 0) + 1);
      if (streaming) await o.sink.row(row, ms);
      else {
        kept.push({ ms, row });
        held += text.length + ROW_OVERHEAD_BYTES;
        if (held > 2 * o.sliceBytes) throw new SliceOverflow();
      }
    }
  }
  kept.sort((a, b) => a.ms - b.ms); // stable: ties stay in (source, line) order
  for (const k of kept) await o.sink.row(k.row, k.ms);
  for (const r of rejects) o.sink.reject(...r);
  for (const [i, st] of found) stats[i] = st;
  for (const [i, n] of counts) rows.set(i, (rows.get(i) ?? 0) + n);
  for (const [i, n] of rejectCounts) rejected.set(i, (rejected.get(i) ?? 0) + n);
}

const TS_HEAD = '{"timestamp":"';

/** Where the text of the timestamp `fastMs` read last ends. */
let fastEnd = 0;

/**
 * The ms of a line written as Stowage writes it — `{"timestamp":"<ISO>",…` — read from its
 * first field without parsing it; NaN for any other line (it is parsed to be placed).
 * A line with a second top-level `timestamp` (JSON.parse takes the last) is found when the
 * slice of this first one parses it (`twoTimestamps`), and rejected there.
 */
function fastMs(text: string): number {
  if (!text.startsWith(TS_HEAD)) return NaN;
  const end = text.indexOf('"', TS_HEAD.length);
  if (end < 0) return NaN;
  fastEnd = end;
  return isoMs(text.slice(TS_HEAD.length, end));
}

/** The line's last `timestamp` (the one JSON.parse keeps) is not the first one `fastMs` read. */
function twoTimestamps(text: string, p: ParsedLine): boolean {
  if (p.reject !== undefined || p.timestampAt === TS_HEAD.length - 1) return false;
  return p.timestamp !== text.slice(TS_HEAD.length, fastEnd);
}

function accountFor(s: ClaimedSource, read: SourceLines): ManifestSource {
  return {
    key: s.key,
    etag: s.etag,
    size: s.size,
    status: read.status,
    ...(read.detail ? { detail: read.detail } : {}),
    ...(read.checksumSha256 ? { checksumSha256: read.checksumSha256 } : {}),
    lines: read.lines.length,
    rows: 0,
    rejected: 0,
  };
}
