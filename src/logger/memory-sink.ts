/**
 * The sink that joins hour batching and delivery for one destination, with an
 * in-memory buffer (`buffer: "memory"`, SPEC §3.4, §3.5).
 *
 * Invariants:
 * - accepted = delivered + failed + pending, at every moment (records);
 * - `queuedBytes` (decoded bytes of open + sealed-but-undelivered records) never
 *   exceeds `maxQueueBytes`: a record that would cross it is rejected and counted,
 *   never an accepted one evicted;
 * - a sealed batch gets its key and bytes once; every attempt reuses them;
 * - nothing here writes to local disk unless the store is a LocalStore.
 * Limit: memory mode loses unsent records if the process dies; flush() before exit.
 */
import type { ObjectLockSpec } from "../config/destination.js";
import { encodeV1ObjectAsync } from "../batch/encoder.js";
import { BufferPool } from "../batch/buffer-pool.js";
import { HourBatcher, type HourBatch } from "../batch/hour-batcher.js";
import { MAX_EPOCH_MS } from "../batch/object-key.js";
import { Dispatcher } from "../delivery/dispatcher.js";
import { emit, type DeliveryEventListener } from "../delivery/events.js";
import type { SealedBatch } from "../delivery/sealed-batch.js";
import { StowageError } from "../shared/errors.js";
import { classifyError } from "../store/classify-error.js";
import type { ObjectStore } from "../store/object-store.js";
import type { DestinationResult, RejectedCounts, Sink } from "./flush-result.js";
import { waitWithTimeout } from "../delivery/wait.js";

export interface DeliveryOptions {
  flushIntervalMs: number;
  maxBatchBytes: number;
  maxBatchRecords: number;
  maxQueueBytes: number;
  maxRecordBytes: number;
  concurrency: number;
  requestTimeoutMs: number;
  maxAttempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** gzip level for batch bodies (default 6). */
  gzipLevel?: number;
  /** Typed delivery events (retries, rejections, the latch). */
  onEvent?: DeliveryEventListener | undefined;
  /** Object Lock for every object written (docs/retention.md). */
  objectLock?: ObjectLockSpec | undefined;
}

export class MemorySink implements Sink {
  private readonly batcher: HourBatcher;
  /** Open batches' NDJSON buffers, reused after gzip (no join/copy at seal). */
  private readonly pool: BufferPool;
  private readonly dispatcher: Dispatcher;
  private accepted = 0;
  private delivered = 0;
  private failedRecords = 0;
  private objects = 0;
  private queuedBytes = 0;
  private encoding = 0;
  private closed = false;
  private readonly rejected: RejectedCounts = { oversized: 0, queueFull: 0, spoolFull: 0 };
  private encodeWaiters: (() => void)[] = [];

  constructor(
    readonly kind: "s3" | "local",
    private readonly store: ObjectStore,
    private readonly prefix: string,
    private readonly options: DeliveryOptions,
  ) {
    this.pool = new BufferPool(options.maxBatchBytes, Math.max(2, options.concurrency));
    this.batcher = new HourBatcher({
      pool: this.pool,
      maxBatchBytes: options.maxBatchBytes,
      maxBatchRecords: options.maxBatchRecords,
      flushIntervalMs: options.flushIntervalMs,
      onSeal: (b) => this.onSeal(b),
      timer: true,
    });
    this.dispatcher = new Dispatcher({
      store,
      concurrency: options.concurrency,
      maxAttempts: options.maxAttempts,
      initialBackoffMs: options.initialBackoffMs,
      maxBackoffMs: options.maxBackoffMs,
      onEvent: options.onEvent,
      objectLock: options.objectLock,
      onDelivered: (batch) => {
        this.delivered += batch.records;
        this.objects++;
        this.queuedBytes -= batch.decodedBytes;
      },
      onFailed: (batch) => {
        this.failedRecords += batch.records;
        this.queuedBytes -= batch.decodedBytes;
      },
    });
  }

  accept(line: string, timestampMs: number): keyof RejectedCounts | "closed" | null {
    const size = Buffer.byteLength(line, "utf8") + 1;
    if (this.closed) return this.reject("closed", size);
    // Checked before anything is counted: a refused time must not leave a record pending forever.
    if (!(timestampMs >= 0 && timestampMs <= MAX_EPOCH_MS)) {
      throw new StowageError(
        "usage",
        `record time ${timestampMs} is outside 1970..2286; fix the timestamp`,
      );
    }
    if (size > this.options.maxRecordBytes) return this.reject("oversized", size);
    if (this.queuedBytes + size > this.options.maxQueueBytes) return this.reject("queueFull", size);
    this.queuedBytes += size;
    this.accepted++;
    this.batcher.add(line, timestampMs, size);
    return null;
  }

  private reject<R extends keyof RejectedCounts | "closed">(reason: R, bytes: number): R {
    if (reason !== "closed") this.rejected[reason as keyof RejectedCounts]++;
    emit(this.options.onEvent, { type: "rejected", reason, bytes });
    return reason;
  }

  acceptDurable(
    line: string,
    timestampMs: number,
  ): Promise<keyof RejectedCounts | "closed" | null> {
    try {
      return Promise.resolve(this.accept(line, timestampMs));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  private onSeal(b: HourBatch): void {
    this.encoding++;
    encodeV1ObjectAsync(b, {
      prefix: this.prefix,
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
        this.dispatcher.enqueue(sealed);
      })
      .catch((err: unknown) => {
        // Cannot happen for well-formed lines; never silent if it does: count and latch.
        this.failedRecords += b.records;
        this.queuedBytes -= b.decodedBytes;
        this.dispatcher.reportFailure({ ...classifyError(err), kind: "permanent" });
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

  private async settled(): Promise<void> {
    while (this.encoding > 0 || this.dispatcher.outstanding > 0) {
      if (this.encoding > 0) await new Promise<void>((r) => this.encodeWaiters.push(r));
      else {
        await this.dispatcher.idle();
        if (this.dispatcher.paused && this.encoding === 0) return;
      }
    }
  }

  result(): DestinationResult {
    const pending = this.accepted - this.delivered - this.failedRecords;
    const failure = this.dispatcher.failure ? { ...this.dispatcher.failure } : null;
    return {
      kind: this.kind,
      ok: failure === null && pending === 0,
      delivered: this.delivered,
      pending,
      objects: this.objects,
      retries: this.dispatcher.retries,
      rejected: { ...this.rejected },
      failure,
    };
  }

  async flush(
    timeoutMs: number | undefined,
  ): Promise<{ result: DestinationResult; timedOut: boolean }> {
    this.batcher.sealAll();
    const timedOut = !(await waitWithTimeout(this.settled(), timeoutMs));
    return { result: this.result(), timedOut };
  }

  async close(
    timeoutMs: number | undefined,
  ): Promise<{ result: DestinationResult; timedOut: boolean }> {
    const out = await this.flush(timeoutMs);
    this.closed = true;
    this.batcher.close();
    this.dispatcher.close();
    this.store.close();
    return { result: this.result(), timedOut: out.timedOut };
  }
}
