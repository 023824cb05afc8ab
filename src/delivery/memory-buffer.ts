/**
 * The memory buffer (`buffer: "memory"`, SPEC §3.4) behind the DeliverySink:
 * per-UTC-hour open batches written straight into pooled NDJSON buffers,
 * gzip off the event loop, and the encoded v1 object handed to the sink.
 *
 * Invariants:
 * - `queuedBytes` counts every accepted record from add() until its batch's outcome
 *   (or its loss), so the sink's maxQueueBytes bounds what this process holds;
 * - a sealed batch gets its key and bytes once (encodeV1ObjectAsync); every attempt reuses them;
 * - a pooled buffer returns to the pool only after gzip has read it;
 * - nothing here writes to local disk.
 * Limit: records not yet delivered are lost if the process dies; flush() before exit.
 */
import { encodeV1ObjectAsync } from "../batch/encoder.js";
import { BufferPool } from "../batch/buffer-pool.js";
import { HourBatcher, type HourBatch } from "../batch/hour-batcher.js";
import { classifyError } from "../store/classify-error.js";
import type { BufferHost, DeliveryBuffer } from "./buffer.js";
import type { SealedBatch } from "./sealed-batch.js";

export interface MemoryBufferOptions {
  /** Key prefix of the destination (v1 layout). */
  prefix: string;
  flushIntervalMs: number;
  maxBatchBytes: number;
  maxBatchRecords: number;
  /** Upload concurrency: the pool keeps enough buffers for the batches in flight. */
  concurrency: number;
  /** gzip level for batch bodies (default 6). */
  gzipLevel?: number | undefined;
}

/**
 * @example
 * const sink = new DeliverySink("local", store, options,
 *   (host) => new MemoryBuffer(host, { prefix: "", ...batching, concurrency: 4 }));
 */
export class MemoryBuffer implements DeliveryBuffer {
  readonly spoolBytes = undefined;
  readonly heldByOthers = undefined;
  readonly error = null;
  private queued = 0;
  private readonly batcher: HourBatcher;
  /** Open batches' NDJSON buffers, reused after gzip (no join/copy at seal). */
  private readonly pool: BufferPool;
  private encoding = 0;
  private encodeWaiters: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly host: BufferHost,
    private readonly options: MemoryBufferOptions,
  ) {
    this.pool = new BufferPool(options.maxBatchBytes, Math.max(2, options.concurrency));
    this.batcher = new HourBatcher({
      pool: this.pool,
      maxBatchBytes: options.maxBatchBytes,
      maxBatchRecords: options.maxBatchRecords,
      flushIntervalMs: options.flushIntervalMs,
      onSeal: (b) => this.encode(b),
      timer: true,
    });
  }

  get queuedBytes(): number {
    return this.queued;
  }

  add(line: string, timestampMs: number, size: number | undefined): void {
    this.queued += this.batcher.add(line, timestampMs, size);
  }

  addDurable(line: string, timestampMs: number, size: number | undefined): undefined {
    this.add(line, timestampMs, size); // in memory is all the durability this buffer has
  }

  private encode(b: HourBatch): void {
    if (this.closed) {
      if (b.ndjson) this.pool.release(b.ndjson);
      return; // sealed by close(): its records stay pending in the sink's last result
    }
    this.encoding++;
    encodeV1ObjectAsync(b, {
      prefix: this.options.prefix,
      ...(this.options.gzipLevel === undefined ? {} : { level: this.options.gzipLevel }),
    })
      .then((obj) => {
        const sealed: SealedBatch = {
          key: obj.key,
          body: obj.body,
          records: obj.records,
          decodedBytes: obj.decodedBytes,
          minMs: obj.minMs,
          maxMs: obj.maxMs,
          metadata: obj.metadata,
        };
        this.host.batch(sealed);
      })
      .catch((err: unknown) => {
        // Cannot happen for well-formed lines; never silent if it does: counted and latched.
        this.queued -= b.decodedBytes;
        const { category, code, message } = classifyError(err);
        this.host.lost(b.records, { category, code, message });
      })
      .finally(() => {
        if (b.ndjson) this.pool.release(b.ndjson); // gzip has read it: reuse for the next batch
        this.encoding--;
        if (this.encoding === 0) {
          const w = this.encodeWaiters;
          this.encodeWaiters = [];
          w.forEach((r) => r());
        }
      });
  }

  /** Seals every open batch; resolves once every encode has ended (batches handed or lost). */
  async sealAll(): Promise<boolean> {
    this.batcher.sealAll();
    while (this.encoding > 0) await new Promise<void>((r) => this.encodeWaiters.push(r));
    return false;
  }

  outcome(batch: SealedBatch): void {
    this.queued -= batch.decodedBytes;
  }

  close(): Promise<void> {
    this.closed = true;
    this.batcher.close(); // releases the interval timer; what it seals is dropped above
    return Promise.resolve();
  }
}
