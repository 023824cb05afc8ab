/**
 * Lines held off the JS heap: their bytes packed into one growing Buffer, their bounds, line
 * numbers and two caller-defined values (`tag`, `ms`) in typed arrays. Compaction holds a
 * whole source object, and a slice's lines until they are sorted; as strings and row arrays
 * that was millions of young objects surviving into the old generation (a quarter of the CPU
 * was the garbage collector's). Here a line becomes a string only while it is turned into a
 * row, and that string dies young.
 *
 * Invariants: after `seal()`, line `k < count` is `bytes[starts[k], ends[k])`, exactly the
 * bytes given to `push` (never decoded or altered). Copies are deferred and merged: lines
 * pushed from one Buffer a few bytes apart (the next line of a decoded chunk, the next held
 * line of an object) are copied with the bytes between them in one call at the next `seal()`,
 * `push` from another Buffer, or growth — a copy call per line cost more than the bytes. So a
 * Buffer handed to `push` must stay unchanged until the arena is sealed.
 */
/** Lines this many bytes apart or closer in one Buffer are copied together. */
const MERGE_GAP = 64;

export class LineArena {
  bytes: Buffer;
  /** Bytes in use. */
  used = 0;
  count = 0;
  starts: Int32Array;
  ends: Int32Array;
  lineNos: Int32Array;
  tags: Int32Array;
  ms: Float64Array;
  /** Bytes of `from[fromStart, fromEnd)` not yet copied, destined for `bytes[used - (fromEnd - fromStart), used)`. */
  private from: Buffer | undefined;
  private fromStart = 0;
  private fromEnd = 0;

  /** `bytesHint`: the bytes expected (the first allocation; it grows by doubling). */
  constructor(bytesHint = 64 * 1024, linesHint = 1024) {
    this.bytes = Buffer.allocUnsafeSlow(Math.max(0, bytesHint));
    const n = Math.max(1, linesHint);
    this.starts = new Int32Array(n);
    this.ends = new Int32Array(n);
    this.lineNos = new Int32Array(n);
    this.tags = new Int32Array(n);
    this.ms = new Float64Array(n);
  }

  /**
   * Copies `src[start, end)` in as line `count`; returns its index.
   * @example arena.push(chunk, 0, 12, 1)
   */
  push(src: Buffer, start: number, end: number, lineNo: number, tag = 0, ms = 0): number {
    const len = end - start;
    let gap = start - this.fromEnd;
    if (src !== this.from || gap < 0 || gap > MERGE_GAP) {
      this.seal();
      gap = 0;
    }
    if (this.used + gap + len > this.bytes.length) {
      this.growBytes(this.used + gap + len); // seals
      gap = 0;
    }
    if (this.from === undefined) {
      this.from = src;
      this.fromStart = this.fromEnd = start;
    }
    this.used += gap; // the bytes between come along (they are never read)
    if (this.count === this.starts.length) this.growLines();
    this.fromEnd = end;
    const k = this.count++;
    this.starts[k] = this.used;
    this.used += len;
    this.ends[k] = this.used;
    this.lineNos[k] = lineNo;
    this.tags[k] = tag;
    this.ms[k] = ms;
    return k;
  }

  /** Copies what `push` deferred: `bytes` holds every line. */
  seal(): void {
    const from = this.from;
    if (from === undefined) return;
    const n = this.fromEnd - this.fromStart;
    if (n > 0) from.copy(this.bytes, this.used - n, this.fromStart, this.fromEnd);
    this.from = undefined;
    this.fromStart = this.fromEnd = 0;
  }

  /** Line `k` decoded as UTF-8 (invalid sequences become U+FFFD, as `Buffer#toString` does). */
  text(k: number): string {
    if (this.from !== undefined) this.seal();
    return this.bytes.toString("utf8", this.starts[k], this.ends[k]);
  }

  /** Forgets every line; keeps the memory for the next ones. */
  clear(): void {
    this.from = undefined;
    this.fromStart = this.fromEnd = 0;
    this.used = 0;
    this.count = 0;
  }

  private growBytes(need: number): void {
    this.seal();
    const next = Buffer.allocUnsafeSlow(Math.max(need, this.bytes.length * 2, 64 * 1024));
    this.bytes.copy(next, 0, 0, this.used);
    this.bytes = next;
  }

  private growLines(): void {
    const n = this.starts.length * 2;
    const grow = <T extends Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.starts = grow(this.starts, (m) => new Int32Array(m));
    this.ends = grow(this.ends, (m) => new Int32Array(m));
    this.lineNos = grow(this.lineNos, (m) => new Int32Array(m));
    this.tags = grow(this.tags, (m) => new Int32Array(m));
    this.ms = grow(this.ms, (m) => new Float64Array(m));
  }
}

/**
 * Arenas handed back for the next object: a fresh Buffer's pages are faulted in and zeroed by
 * the kernel as they are first written, which cost more than the copies themselves.
 * Keeps at most `keep` arenas of at most `maxBytes` each.
 */
export class ArenaPool {
  private readonly spare: LineArena[] = [];

  constructor(
    private readonly keep: number,
    private readonly maxBytes: number,
  ) {}

  /** An empty arena (a spare one when there is one). */
  take(bytesHint: number): LineArena {
    return this.spare.pop() ?? new LineArena(bytesHint);
  }

  /** `arena` is no longer read by anyone. */
  give(arena: LineArena): void {
    if (this.spare.length >= this.keep || arena.bytes.length > this.maxBytes) return;
    arena.clear();
    this.spare.push(arena);
  }
}
