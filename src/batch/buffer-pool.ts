/**
 * Reused NDJSON buffers for open batches (issue 10 §5): each accepted line is
 * written straight into its batch's buffer (`utf8Write`), so sealing costs no
 * `lines.join` and no `Buffer.from` copy; the buffer comes back after gzip.
 *
 * Invariants: a buffer is either in the pool or owned by exactly one batch (open,
 * or being compressed); the pool never holds more than `keep` buffers, so memory
 * stays bounded by in-flight batches plus `keep` × `capacity`.
 */

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

  /** A buffer of at least `minBytes` (a one-off buffer when larger than `capacity`). */
  acquire(minBytes: number): Buffer {
    if (minBytes > this.capacity) return Buffer.allocUnsafeSlow(minBytes);
    return this.free.pop() ?? Buffer.allocUnsafeSlow(this.capacity);
  }

  /** Returns a buffer once nothing reads it any more (after gzip finished). */
  release(buf: Buffer): void {
    if (buf.length === this.capacity && this.free.length < this.keep) this.free.push(buf);
  }
}
