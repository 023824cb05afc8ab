/**
 * The one delivery sink (SPEC §3.5, §4): the `Sink` the logger writes to, for
 * both buffers. It owns admission, counting, the dispatcher, the failure latch,
 * flush, close and the DestinationResult; the buffer behind it (memory or the
 * sqlite spool, delivery/buffer.ts) only stores records, seals batches and
 * reports what it lost, adopted or gave away.
 *
 * Invariants (records):
 * - accepted + adopted = delivered + failed + transferred + pending, at every moment;
 *   a refused record is only in `rejected` (and a refused time throws before anything
 *   is counted), so `pending` never keeps a record that was not taken;
 * - the buffer's in-memory bytes never exceed maxQueueBytes, and its durable bytes plus
 *   in-memory bytes never exceed maxSpoolBytes (when it has durable storage): a record
 *   that would cross a limit is refused and counted, never an accepted one evicted;
 * - every sealed batch goes through the one Dispatcher: same key and bytes on every
 *   attempt, exactly one outcome, which is counted here and reported to the buffer;
 * - after close() nothing more is counted: uploads it aborts stay owed by the buffer
 *   (sqlite: leases released, a later logger delivers them; memory: reported pending).
 */
import type { ObjectLockSpec } from "../config/destination.js";
import { lineBytes } from "../batch/hour-batcher.js";
import { MAX_EPOCH_MS } from "../v1-format/object-key.js";
import { sleep } from "../shared/abort.js";
import { armBeforeExit, disarmBeforeExit } from "../shared/before-exit.js";
import { StowageError } from "../shared/errors.js";
import type { ObjectStore } from "../store/object-store.js";
import type { BufferHost, DeliveryBuffer, FailureCause } from "./buffer.js";
import { Dispatcher } from "./dispatcher.js";
import { emit, type DeliveryEventListener } from "./events.js";
import type { SealedBatch } from "./sealed-batch.js";
import type { DestinationResult, RejectedCounts, Sink } from "./sink.js";
import { waitWithTimeout } from "./wait.js";

/** Pause between flush rounds when a buffer says work remains but handed nothing out. */
const ROUND_PAUSE_MS = 20;

export interface DeliverySinkOptions {
  maxRecordBytes: number;
  maxQueueBytes: number;
  /** Applies when the buffer has durable storage (reports `spoolBytes`). */
  maxSpoolBytes: number;
  concurrency: number;
  maxAttempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** Typed delivery events (retries, rejections, the latch, adoptions). */
  onEvent?: DeliveryEventListener | undefined;
  /** Object Lock for every object written (docs/retention.md). */
  objectLock?: ObjectLockSpec | undefined;
  /**
   * Deliver pending records when the process's event loop runs dry (`beforeExit`), so a
   * script that logs and ends without flush() loses nothing (memory buffer; issue 30 row 5).
   */
  drainBeforeExit?: boolean | undefined;
}

type Refusal = keyof RejectedCounts | "closed";
type FlushOutcome = { result: DestinationResult; timedOut: boolean };

/**
 * @example
 * const sink = new DeliverySink("s3", store, options, (host) => new MemoryBuffer(host, batching));
 * sink.accept(line, Date.now());
 * const { result } = await sink.close(10_000);
 */
export class DeliverySink implements Sink {
  private readonly buffer: DeliveryBuffer;
  private readonly dispatcher: Dispatcher;
  private accepted = 0;
  private adopted = 0;
  private delivered = 0;
  private failed = 0;
  private transferred = 0;
  private objects = 0;
  private readonly rejected: RejectedCounts = { oversized: 0, queueFull: 0, spoolFull: 0 };
  /** Batches handed over by the buffer so far (flush rounds pause only when none came). */
  private handed = 0;
  private closed = false;
  /** Set once close() has taken its result: later outcomes are the buffer's, not counted. */
  private closing = false;
  /** True while a beforeExit drain is armed (drainBeforeExit): records are pending. */
  private exitArmed = false;
  private readonly exitDrain = (): Promise<unknown> => {
    this.exitArmed = false;
    return this.flush(undefined);
  };

  constructor(
    readonly kind: "s3" | "local",
    private readonly store: ObjectStore,
    private readonly options: DeliverySinkOptions,
    buffer: (host: BufferHost) => DeliveryBuffer,
  ) {
    this.dispatcher = new Dispatcher({
      store,
      concurrency: options.concurrency,
      maxAttempts: options.maxAttempts,
      initialBackoffMs: options.initialBackoffMs,
      maxBackoffMs: options.maxBackoffMs,
      onEvent: options.onEvent,
      objectLock: options.objectLock,
      onDelivered: (b) => this.settle(b, true),
      onFailed: (b, err) =>
        this.settle(b, false, { category: err.category, code: err.code, message: err.message }),
    });
    this.buffer = buffer({
      batch: (b) => {
        this.handed++;
        this.dispatcher.enqueue(b);
      },
      lost: (records, cause) => {
        this.failed += records;
        this.dispatcher.reportFailure(cause);
      },
      adopted: (records) => {
        this.adopted += records;
        emit(options.onEvent, { type: "adopted", records });
      },
      transferred: (records) => {
        this.transferred += records;
      },
    });
  }

  private get pending(): number {
    return this.accepted + this.adopted - this.delivered - this.failed - this.transferred;
  }

  accept(line: string, timestampMs: number): Refusal | null {
    const size = this.admit(line, timestampMs);
    if (typeof size === "string") return size;
    this.buffer.add(line, timestampMs, size);
    this.accepted++; // after add: a line the buffer refused to keep is never counted
    if (!this.exitArmed) this.armExit();
    return null;
  }

  acceptDurable(line: string, timestampMs: number): Refusal | null | Promise<Refusal | null> {
    if (this.buffer.error && !this.closed) return Promise.reject(this.buffer.error);
    let durable: Promise<void> | undefined;
    try {
      const size = this.admit(line, timestampMs);
      if (typeof size === "string") return size;
      durable = this.buffer.addDurable(line, timestampMs, size);
      this.accepted++;
      if (!this.exitArmed) this.armExit();
    } catch (err) {
      return Promise.reject(err as Error);
    }
    return durable === undefined ? null : durable.then(() => null);
  }

  /**
   * The admission rules, in order; a refusal is counted and reported here. Throws
   * StowageError("usage") for a time outside 1970..2286, before anything is counted.
   * A line's UTF-8 size is measured only when a limit could turn on it: n UTF-16 units are
   * at most 3n bytes, so a line whose 3n + 1 fits every limit is admitted unmeasured
   * (undefined: the buffer counts the bytes it keeps). Otherwise returns the refusal, or
   * the measured size (UTF-8 bytes + newline).
   */
  private admit(line: string, timestampMs: number): Refusal | number | undefined {
    if (this.closed) return this.refuse("closed", lineBytes(line));
    if (!(timestampMs >= 0 && timestampMs <= MAX_EPOCH_MS)) {
      throw new StowageError(
        "usage",
        `record time ${timestampMs} is outside 1970..2286; fix the timestamp`,
      );
    }
    const { maxRecordBytes, maxQueueBytes, maxSpoolBytes } = this.options;
    const queued = this.buffer.queuedBytes;
    const spool = this.buffer.spoolBytes;
    const room = Math.min(
      maxRecordBytes,
      maxQueueBytes - queued,
      spool === undefined ? Infinity : maxSpoolBytes - spool - queued,
    );
    if (3 * line.length + 1 <= room && !this.buffer.error) return undefined;
    const size = lineBytes(line);
    if (size > maxRecordBytes) return this.refuse("oversized", size);
    // A buffer whose storage failed takes nothing more; the latch says why.
    if (this.buffer.error) return this.refuse("spoolFull", size);
    if (queued + size > maxQueueBytes) return this.refuse("queueFull", size);
    if (spool !== undefined && spool + queued + size > maxSpoolBytes)
      return this.refuse("spoolFull", size);
    return size;
  }

  /** Pending work exists: hold a beforeExit drain (when configured) until it is settled. */
  private armExit(): void {
    if (!this.options.drainBeforeExit || this.closed) return;
    this.exitArmed = true;
    armBeforeExit(this.exitDrain);
  }

  private disarmExit(): void {
    if (!this.exitArmed) return;
    this.exitArmed = false;
    disarmBeforeExit(this.exitDrain);
  }

  private refuse<R extends Refusal>(reason: R, bytes: number): R {
    if (reason !== "closed") this.rejected[reason as keyof RejectedCounts]++;
    emit(this.options.onEvent, { type: "rejected", reason, bytes });
    return reason;
  }

  private settle(batch: SealedBatch, ok: boolean, failure?: FailureCause): void {
    if (this.closing) return; // close() aborted it: the buffer still owes it
    if (ok) {
      this.delivered += batch.records;
      this.objects++;
    } else this.failed += batch.records;
    this.buffer.outcome(batch, ok, failure);
    if (this.exitArmed && this.pending === 0) this.disarmExit();
  }

  result(): DestinationResult {
    const failure = this.dispatcher.failure ? { ...this.dispatcher.failure } : null;
    const pending = this.pending;
    const held = this.buffer.heldByOthers;
    return {
      kind: this.kind,
      ok: failure === null && pending === 0,
      delivered: this.delivered,
      pending,
      objects: this.objects,
      retries: this.dispatcher.retries,
      ...(held === undefined ? {} : { heldByOthers: held }),
      rejected: { ...this.rejected },
      failure,
    };
  }

  async flush(timeoutMs: number | undefined): Promise<FlushOutcome> {
    if (this.closed) return { result: this.result(), timedOut: false };
    const deadline =
      timeoutMs === undefined || !Number.isFinite(timeoutMs) ? Infinity : Date.now() + timeoutMs;
    const timedOut = !(await waitWithTimeout(this.drain(deadline), timeoutMs));
    return { result: this.result(), timedOut };
  }

  /**
   * Rounds of "seal everything, wait for the uploads" until the buffer has handed out all it
   * holds, dispatch is paused by a permanent failure, the buffer failed, or the deadline passed
   * (after a timeout the rounds end too: a round may keep a worker thread, and the process, alive).
   */
  private async drain(deadline: number): Promise<void> {
    for (;;) {
      if (this.buffer.error || this.closing || Date.now() > deadline) return;
      const handed = this.handed;
      const more = await this.buffer.sealAll();
      await this.dispatcher.idle();
      if (this.buffer.error || this.dispatcher.paused || !more) return;
      // Work remains that the buffer could not hand out yet (e.g. adoption under way): a ref'd
      // pause (lifetime rule, shared/abort.ts) before asking again, unless this round moved batches.
      if (this.handed === handed) await sleep(ROUND_PAUSE_MS);
    }
  }

  async close(timeoutMs: number | undefined): Promise<FlushOutcome> {
    if (this.closed) return { result: this.result(), timedOut: false };
    const { timedOut } = await this.flush(timeoutMs);
    this.closed = true;
    this.disarmExit();
    const result = this.result();
    this.closing = true;
    this.dispatcher.close();
    await this.buffer.close();
    this.store.close();
    return { result, timedOut };
  }
}
