/**
 * Reused NDJSON buffers for open batches: each accepted line is
 * written straight into its batch's buffer (`Buffer#write`, UTF-8), so sealing costs no
 * `lines.join` and no `Buffer.from` copy; the buffer comes back after gzip.
 *
 * Invariants: a buffer is either in the pool or owned by exactly one batch (open,
 * or being compressed); the pool never holds more than `keep` buffers, so memory
 * stays bounded by in-flight batches plus `keep` × `capacity`. A new buffer starts
 * small and doubles as its batch grows, so many open hours (a backfill) or a large
 * maxBatchBytes never allocate `capacity` per batch up front; only the next batch of
 * an hour that just filled one (bytes or records) starts at twice that batch's size,
 * at most `capacity` (HourBatcher).
 */

/** First size of a fresh buffer. */
const INITIAL_BYTES = 64 * 1024;

export class BufferPool {
  private readonly free: Buffer[] = [];

  /**
   * @example const pool = new BufferPool(1 << 20, 4); const buf = pool.acquire(300);
   */
  constructor(
    /** Size of pooled buffers (the batch byte limit). */
    readonly capacity: number,
    /** Buffers kept for reuse at most. */
    private readonly keep: number,
  ) {}

  /** A buffer of at least `minBytes`: a pooled one when there is one, else a small fresh one. */
  acquire(minBytes: number): Buffer {
    if (minBytes <= this.capacity) {
      const pooled = this.free.pop();
      if (pooled) return pooled;
    }
    return Buffer.allocUnsafeSlow(Math.max(minBytes, Math.min(INITIAL_BYTES, this.capacity)));
  }

  /**
   * A larger buffer holding the first `used` bytes of `buf`, with room for `needed` bytes
   * in total: doubles up to `capacity` (past it only for a single oversized line).
   */
  grow(buf: Buffer, used: number, needed: number): Buffer {
    const size = Math.max(needed, Math.min(this.capacity, buf.length * 2));
    const next = Buffer.allocUnsafeSlow(size);
    buf.copy(next, 0, 0, used);
    return next;
  }

  /** Returns a buffer once nothing reads it any more (after gzip finished). */
  release(buf: Buffer): void {
    if (buf.length === this.capacity && this.free.length < this.keep) this.free.push(buf);
  }
}
