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
import { canonicalStampMs } from "../shared/iso-time.js";
import { ArenaPool, LineArena } from "./line-arena.js";
import { readSourceLines, type SourceLines } from "./source-read.js";
import type { StoreCalls } from "./store-calls.js";

export interface ClaimedSource extends SourceRef {
  minMs: number;
  maxMs: number;
}

export interface RowSink {
  /** A promise only when the row made it wait (an encoder batch, a part's end): awaited then. */
  row(row: unknown[], ms: number): Promise<void> | undefined;
  reject(source: string, lineNo: number, reason: string, text: string): void;
}

/**
 * gzip NDJSON of log lines decodes to about this many times its size: 5.5–7.1 for varied
 * lines, 16 for the benchmark's repetitive ones. Overestimating costs only more slices.
 */
const DECODED_PER_BYTE = 16;
/**
 * What a held line costs beyond its bytes: its bounds, number, tag and ms in the arena's
 * typed arrays (24 B) and its sort entry (8 B), rounded up. Rows are built only as they leave.
 */
const ROW_OVERHEAD_BYTES = 40;

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
  /** Memory kept from one call to the next (one per run: its hours are compacted one at a time). */
  memory?: SliceMemory | undefined;
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
  const mem = o.memory ?? sliceMemory(o.sliceBytes);
  const carried: Carried = { lines: new Map(), bytes: 0 };
  const run = async (t0: number, t1: number): Promise<void> => {
    try {
      await readSlice(o, mem, carried, t0, t1, stats, rows, rejected);
    } catch (err) {
      if (!(err instanceof SliceOverflow)) throw err;
      const mid = t0 + Math.floor((t1 - t0) / 2);
      await run(t0, mid);
      await run(mid, t1);
    }
  };
  try {
    for (const [t0, t1] of slices) await run(t0, t1);
  } finally {
    for (const read of carried.lines.values()) mem.pool.give(read.lines);
  }
  return o.sources.map((s, i) => {
    const st = stats[i];
    if (!st) throw new StowageError("internal", `${s.key} was never read`);
    return { ...st, rows: rows.get(i) ?? 0, rejected: rejected.get(i) ?? 0 };
  });
}

/** Memory reused from slice to slice and object to object (see `ArenaPool`); not shared by concurrent calls. */
export interface SliceMemory {
  /** The slice's lines, as bytes (tag: source index × 2 + 1 when `fastMs` read the timestamp). */
  held: LineArena;
  /** Arenas for the objects' lines. */
  pool: ArenaPool;
  /** The slice's sort keys and order (`sortedOrder`), grown as needed. */
  keys: Float64Array;
  order: Int32Array;
}

/** @example sortedRows({ …, memory: sliceMemory(sliceBytes) }) */
export function sliceMemory(sliceBytes: number): SliceMemory {
  return {
    held: new LineArena(Math.min(2 * sliceBytes, 16 * 1024 * 1024)),
    pool: new ArenaPool(READ_AHEAD + 1, SPARE_ARENA_MAX_BYTES),
    keys: new Float64Array(0),
    order: new Int32Array(0),
  };
}

/** An object's arena larger than this is not kept for the next one (most are ≤ 2 MiB). */
const SPARE_ARENA_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Objects read by a slice that go on into the next one (most slices end inside an object),
 * kept decoded for it instead of being downloaded and decoded again — at most
 * 2 × `sliceBytes` of them (what a slice may hold; 8 MiB by default); any other is read again.
 */
interface Carried {
  lines: Map<number, SourceLines>;
  bytes: number;
}

async function readSlice(
  o: SortedRowsOptions,
  mem: SliceMemory,
  carried: Carried,
  t0: number,
  t1: number,
  stats: (ManifestSource | undefined)[],
  rows: Map<number, number>,
  rejected: Map<number, number>,
): Promise<void> {
  const streaming = t1 - t0 === 1;
  const held = mem.held;
  held.clear();
  // What this slice found is merged only once it is complete: an overflow leaves no trace.
  const counts = new Int32Array(o.sources.length); // rows per source
  const found = new Map<number, ManifestSource>();
  const rejects: { i: number; lineNo: number; reason: string; text: string }[] = [];
  const rejectCounts = new Map<number, number>();
  const reject = (i: number, lineNo: number, reason: string, text: string) => {
    rejects.push({ i, lineNo, reason, text });
    rejectCounts.set(i, (rejectCounts.get(i) ?? 0) + 1);
  };
  /** Turns held lines into rows, in the order given (each line is parsed here, once more). */
  const emit = async (order: ArrayLike<number>): Promise<void> => {
    held.seal();
    for (let n = 0; n < order.length; n++) {
      const k = order[n]!;
      const text = held.text(k);
      const i = held.tags[k]! >> 1;
      const known = (held.tags[k]! & 1) === 1;
      const ms = held.ms[k]!;
      const lineNo = held.lineNos[k]!;
      const p = parseLine(text, known ? ms : undefined);
      // A line placed by `fastMs` is checked here; any other was checked when it was placed.
      const reason =
        p.reject ?? (known && twoTimestamps(text, p) ? "two timestamp fields" : undefined);
      if (reason !== undefined) {
        reject(i, lineNo, reason, text);
        continue;
      }
      const row = buildRow(text, p as AcceptedLine, o.sources[i]!.key, lineNo, o.promoted);
      counts[i]!++;
      const wait = o.sink.row(row, ms);
      if (wait !== undefined) await wait;
    }
  };
  let heldBytes = 0;
  const overlapping: number[] = [];
  for (let i = 0; i < o.sources.length; i++)
    if (o.sources[i]!.minMs < t1 && o.sources[i]!.maxMs >= t0) overlapping.push(i);
  // Up to READ_AHEAD objects are downloaded and decoded while earlier ones are parsed.
  const pending = new Map<number, Promise<SourceLines>>();
  const fetch = (k: number) => {
    const i = overlapping[k];
    if (i !== undefined && !pending.has(i)) {
      const kept = carried.lines.get(i);
      const p = kept ? Promise.resolve(kept) : readSourceLines(o.calls, o.sources[i]!, mem.pool);
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
    const lines = read.lines;
    if (home) found.set(i, accountFor(s, read));
    else if (!seen || seen.status !== read.status || seen.lines !== lines.count)
      throw new StowageError(
        "integrity",
        `${s.key} read differently twice (${seen?.status}, ${seen?.lines} lines; then ${read.status}, ${lines.count})`,
      );
    for (let j = 0; j < lines.count; j++) {
      const a = lines.starts[j]!;
      const b = lines.ends[j]!;
      const lineNo = lines.lineNos[j]!;
      // A line whose timestamp can be read without parsing it is handled — parsed, and
      // rejected if it is not JSON — only by the slice holding that time; any other line
      // is parsed by every slice reading its object and rejected only in its home slice.
      let ms = fastMs(lines.bytes, a, b);
      const known = !Number.isNaN(ms);
      if (known) {
        if (ms < s.minMs || ms > s.maxMs) {
          if (home) reject(i, lineNo, "timestamp outside its object's key range", lines.text(j));
          continue;
        }
      } else {
        const text = lines.text(j);
        const p = parseLine(text);
        const reason =
          p.reject ??
          (p.ms < s.minMs || p.ms > s.maxMs
            ? "timestamp outside its object's key range"
            : undefined);
        if (reason !== undefined) {
          if (home) reject(i, lineNo, reason, text);
          continue;
        }
        ms = (p as AcceptedLine).ms;
      }
      if (ms < t0 || ms >= t1) continue;
      held.push(lines.bytes, a, b, lineNo, i * 2 + (known ? 1 : 0), ms);
      if (!streaming) {
        heldBytes += b - a + ROW_OVERHEAD_BYTES;
        if (heldBytes > 2 * o.sliceBytes) throw new SliceOverflow();
      }
    }
    if (streaming) {
      // A 1 ms slice is in order as read: its rows go out object by object, never all held.
      await emit(identity(mem, held.count));
      held.clear();
    }
    held.seal(); // `held` has copied what it took from this object's lines: they may be reused
    // An object that goes on past this slice is kept for the next one, if there is room.
    const size = lines.bytes.length;
    const kept = carried.lines.has(i);
    if (s.maxMs >= t1 && (kept || carried.bytes + size <= 2 * o.sliceBytes)) {
      if (!kept) carried.bytes += size;
      carried.lines.set(i, read);
    } else {
      if (kept) carried.bytes -= size;
      carried.lines.delete(i); // before the arena is reused: a later read of it downloads again
      mem.pool.give(lines);
    }
  }
  if (!streaming) {
    await emit(sortedOrder(mem, held.ms, held.count, t0));
  }
  rejects.sort((x, y) => x.i - y.i || x.lineNo - y.lineNo); // as read: (source, line)
  for (const r of rejects) o.sink.reject(o.sources[r.i]!.key, r.lineNo, r.reason, r.text);
  for (const [i, st] of found) stats[i] = st;
  for (let i = 0; i < counts.length; i++)
    if (counts[i]! > 0) rows.set(i, (rows.get(i) ?? 0) + counts[i]!);
  for (const [i, n] of rejectCounts) rejected.set(i, (rejected.get(i) ?? 0) + n);
}

/** [0, 1, …, n - 1], in `mem.order`. */
function identity(mem: SliceMemory, n: number): Int32Array {
  if (mem.order.length < n) mem.order = new Int32Array(Math.max(n, 2 * mem.order.length));
  const out = mem.order.subarray(0, n);
  for (let k = 0; k < n; k++) out[k] = k;
  return out;
}

/**
 * Line indexes `0 … n - 1` ordered by `ms` (whole milliseconds ≥ `t0`), ties in index order
 * (the order the lines were held in: source, then line) — stable. Sorted as one number
 * per line, `(ms - t0) × n + index`, exact below 2^53 (an hour is 3.6M ms, so up to
 * 2.5 billion lines), by the typed array's own numeric sort: no comparator calls, and no
 * per-slice array left for the garbage collector (a slice's order lived through its whole
 * emit and was promoted, ~120 KiB a slice). Any other `ms` takes the comparator sort.
 */
function sortedOrder(mem: SliceMemory, ms: Float64Array, n: number, t0: number): Int32Array {
  if (mem.keys.length < n) mem.keys = new Float64Array(Math.max(n, 2 * mem.keys.length));
  const keys = mem.keys.subarray(0, n);
  const order = identity(mem, n);
  for (let k = 0; k < n; k++) {
    const off = ms[k]! - t0;
    if (!Number.isInteger(off) || off < 0 || off > HOUR_SPAN_MS) {
      const byMs = Array.from(order).sort((x, y) => ms[x]! - ms[y]! || x - y);
      order.set(byMs);
      return order;
    }
    keys[k] = off * n + k;
  }
  keys.sort();
  for (let k = 0; k < n; k++) order[k] = keys[k]! % n;
  return order;
}

/** The widest span of one slice's milliseconds (a slice lies within its hour). */
const HOUR_SPAN_MS = 3_600_000;

/** `{"timestamp":"` as bytes. */
const TS_HEAD = '{"timestamp":"';
const TS_HEAD_BYTES = Buffer.from(TS_HEAD, "latin1");

/**
 * The ms of a line written as Stowage writes it — `{"timestamp":"<ISO>",…` — read from its
 * first field's bytes without decoding or parsing the line; NaN for any other line (it is
 * parsed to be placed). A non-ASCII byte in the stamp gives NaN (no ISO-8601 text has one).
 * A line with a second top-level `timestamp` (JSON.parse takes the last) is found when the
 * slice of this first one parses it (`twoTimestamps`), and rejected there.
 */
export function fastMs(buf: Buffer, start: number, end: number): number {
  const at = start + TS_HEAD_BYTES.length;
  if (end < at) return NaN;
  for (let k = 0; k < TS_HEAD_BYTES.length; k++)
    if (buf[start + k] !== TS_HEAD_BYTES[k]) return NaN;
  const close = buf.indexOf(34, at);
  if (close < 0 || close >= end) return NaN;
  if (close - at === 24) {
    const ms = canonicalStampMs(buf, at); // the usual stamp, nearly always of the last one's hour
    if (ms >= 0) return ms;
  }
  for (let k = at; k < close; k++) if (buf[k]! >= 0x80) return NaN;
  return isoMs(buf.toString("latin1", at, close));
}

/** The line's last `timestamp` (the one JSON.parse keeps) is not the first one `fastMs` read. */
function twoTimestamps(text: string, p: ParsedLine): boolean {
  if (p.reject !== undefined || p.timestampAt === TS_HEAD.length - 1) return false;
  return p.timestamp !== text.slice(TS_HEAD.length, text.indexOf('"', TS_HEAD.length));
}

function accountFor(s: ClaimedSource, read: SourceLines): ManifestSource {
  return {
    key: s.key,
    etag: s.etag,
    size: s.size,
    status: read.status,
    ...(read.detail ? { detail: read.detail } : {}),
    ...(read.checksumSha256 ? { checksumSha256: read.checksumSha256 } : {}),
    lines: read.lines.count,
    rows: 0,
    rejected: 0,
  };
}
