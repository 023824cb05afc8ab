/**
 * The dispatcher: uploads sealed batches with bounded concurrency, pauses on a
 * permanent failure and latches it for the sink's lifetime (SPEC §3.5).
 *
 * Invariants:
 * - A batch is in exactly one place: `queue` (waiting), in flight, or reported
 *   through exactly one of `onDelivered` / `onFailed`.
 * - At most `concurrency` uploads run at once.
 * - After a permanent failure, `paused` is true and nothing more is started;
 *   queued batches stay queued (they are neither delivered nor failed).
 * - `failure` (the latch), once set, is never cleared.
 */
import type { ClassifiedError } from "../store/classify-error.js";
import type { ObjectStore } from "../store/object-store.js";
import type { FailureCause } from "./buffer.js";
import { emit, type DeliveryEventListener } from "./events.js";
import type { DeliveryFailure, SealedBatch } from "./sealed-batch.js";
import { uploadBatch, type RetryOptions } from "./upload-batch.js";

export interface DispatcherOptions extends RetryOptions {
  store: ObjectStore;
  concurrency: number;
  onDelivered(batch: SealedBatch, via: "put" | "exists"): void;
  onFailed(batch: SealedBatch, error: ClassifiedError): void;
  /** Receives "retry" and "latched" events. */
  onEvent?: DeliveryEventListener | undefined;
}

export class Dispatcher {
  private readonly queue: SealedBatch[] = [];
  private inFlight = 0;
  private waiters: (() => void)[] = [];
  private readonly abort = new AbortController();
  private _paused = false;
  private _failure: DeliveryFailure | null = null;
  /** Upload attempts that failed and were retried (visible counter). */
  retries = 0;

  constructor(private readonly options: DispatcherOptions) {}

  get paused(): boolean {
    return this._paused;
  }
  get failure(): DeliveryFailure | null {
    return this._failure;
  }
  /** Batches waiting or in flight. */
  get outstanding(): number {
    return this.queue.length + this.inFlight;
  }

  enqueue(batch: SealedBatch): void {
    this.queue.push(batch);
    this.pump();
  }

  /** Resolves when nothing is queued or in flight, or when dispatch is paused with nothing in flight. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Stops retries and waiting; in-flight attempts are aborted. */
  close(): void {
    this.abort.abort();
  }

  private isIdle(): boolean {
    return this.inFlight === 0 && (this.queue.length === 0 || this._paused);
  }

  private pump(): void {
    while (!this._paused && this.inFlight < this.options.concurrency && this.queue.length > 0) {
      const batch = this.queue.shift()!;
      this.inFlight++;
      void this.run(batch);
    }
    if (this.isIdle()) {
      const w = this.waiters;
      this.waiters = [];
      for (const resolve of w) resolve();
    }
  }

  private async run(batch: SealedBatch): Promise<void> {
    const outcome = await uploadBatch(this.options.store, batch, this.options, {
      signal: this.abort.signal,
      onRetry: (err, attempt, delayMs) => {
        this.retries++;
        emit(this.options.onEvent, {
          type: "retry",
          key: batch.key,
          attempt,
          delayMs,
          error: { category: err.category, code: err.code, message: err.message },
        });
      },
    });
    this.inFlight--;
    if (outcome.ok) {
      this.options.onDelivered(batch, outcome.via);
    } else {
      this.latch(outcome.error);
      // A permanent cause (auth, missing bucket, region) will fail every batch: pause.
      if (!outcome.exhausted) this._paused = true;
      this.options.onFailed(batch, outcome.error);
    }
    this.pump();
  }

  /**
   * Latches a failure that happened outside an upload (a batch that could not be
   * encoded, records the spool could not commit), so flush() reports it like any
   * other lost batch.
   */
  reportFailure(cause: FailureCause): void {
    this.latch(cause);
  }

  private latch(error: FailureCause): void {
    if (this._failure) {
      this._failure.batches++;
      return;
    }
    this._failure = {
      category: error.category,
      code: error.code,
      message: error.message,
      since: new Date().toISOString(),
      batches: 1,
    };
    emit(this.options.onEvent, { type: "latched", failure: { ...this._failure } });
  }
}
