/**
 * The sqlite sink's counters and waiters (main thread): admission against
 * maxRecordBytes / maxQueueBytes / maxSpoolBytes, record groups in flight to
 * the worker, the spool failure latch, and what flush() waits on.
 *
 * Invariant: accepted + adopted = delivered + failed + transferred + pending,
 * where `pending` is what this logger still owes (on disk or in flight).
 */
import type { Dispatcher } from "../delivery/dispatcher.js";
import type { DeliveryFailure } from "../delivery/sealed-batch.js";
import type { DestinationResult, RejectedCounts } from "../delivery/sink.js";
import { waitWithTimeout } from "../delivery/wait.js";
import { StowageError } from "../shared/errors.js";
import type { WireError } from "./worker-protocol.js";

export type Reason = keyof RejectedCounts | "closed" | null;
type Waiter = (err: StowageError | null) => void;
interface Group {
  records: number;
  bytes: number;
  waiters: Waiter[];
}

export class SinkState {
  accepted = 0;
  adopted = 0;
  delivered = 0;
  failed = 0;
  transferred = 0;
  objects = 0;
  readonly rejected: RejectedCounts = { oversized: 0, queueFull: 0, spoolFull: 0 };
  /** Logical payload of the spool file, as last reported by the worker. */
  spoolBytes = 0;
  /** Records in the spool held by other live owners (last sync's count). */
  heldByOthers = 0;
  /** Accepted, not yet committed. */
  inflightBytes = 0;
  closed = false;
  closing = false;
  dead = false;
  spoolError: StowageError | null = null;
  private spoolFailure: DeliveryFailure | null = null;
  private seq = 0;
  private readonly groups = new Map<number, Group>();
  private syncId = 0;
  private readonly syncs = new Map<number, (busy: boolean) => void>();
  private changeWaiters: (() => void)[] = [];
  private onWorkerClosed: (() => void) | null = null;

  get pending(): number {
    return this.accepted + this.adopted - this.delivered - this.failed - this.transferred;
  }

  admit(
    size: number,
    o: { maxRecordBytes: number; maxQueueBytes: number; maxSpoolBytes: number },
  ): Reason {
    if (size > o.maxRecordBytes) return this.reject("oversized");
    if (this.dead) return this.reject("spoolFull"); // the spool cannot take records; the latch says why
    if (this.inflightBytes + size > o.maxQueueBytes) return this.reject("queueFull");
    if (this.spoolBytes + this.inflightBytes + size > o.maxSpoolBytes)
      return this.reject("spoolFull");
    this.inflightBytes += size;
    this.accepted++;
    return null;
  }

  unadmit(size: number): void {
    this.inflightBytes -= size;
    this.accepted--;
  }

  private reject(r: keyof RejectedCounts): Reason {
    this.rejected[r]++;
    return r;
  }

  /** A group was posted to the worker; returns its sequence number. */
  posted(records: number, bytes: number, waiters: Waiter[]): number {
    this.groups.set(++this.seq, { records, bytes, waiters });
    return this.seq;
  }

  /** Every group up to `seq` committed; returns how many answers that was. */
  committed(seq: number, spoolBytes: number): number {
    let n = 0;
    for (const [k, g] of this.groups) {
      if (k > seq) break;
      this.groups.delete(k);
      this.inflightBytes -= g.bytes;
      for (const w of g.waiters) w(null);
      n++;
    }
    this.spoolBytes = spoolBytes;
    this.notify();
    return n;
  }

  /** Group `seq` could not be committed: its records are counted failed and the latch set. */
  lost(seq: number, error: WireError): number {
    const g = this.groups.get(seq);
    this.latch(error);
    if (!g) return 0;
    this.groups.delete(seq);
    this.inflightBytes -= g.bytes;
    this.failed += g.records;
    for (const w of g.waiters) w(this.spoolError);
    this.notify();
    return 1;
  }

  adopt(records: number): void {
    this.adopted += records;
    this.notify();
  }

  transfer(records: number): void {
    this.transferred += records;
    this.notify();
  }

  settle(records: number, ok: boolean): void {
    if (ok) {
      this.delivered += records;
      this.objects++;
    } else this.failed += records;
    this.notify();
  }

  /** The worker is gone (or cannot open the spool): uncommitted groups are lost, counted; everything waiting wakes. */
  die(error: WireError): void {
    if (this.dead) return;
    this.dead = true;
    this.latch(error);
    for (const [k, g] of this.groups) {
      this.groups.delete(k);
      this.inflightBytes -= g.bytes;
      this.failed += g.records;
      for (const w of g.waiters) w(this.spoolError);
    }
    for (const resolve of this.syncs.values()) resolve(false);
    this.syncs.clear();
    this.workerClosed();
    this.notify();
  }

  private latch(error: WireError): void {
    if (this.spoolFailure) {
      this.spoolFailure.batches++;
      return;
    }
    const message = error.hint ? `${error.message} ${error.hint}` : error.message;
    this.spoolError = new StowageError("spool", message);
    this.spoolFailure = {
      category: "spool",
      code: error.code,
      message,
      since: new Date().toISOString(),
      batches: 0,
    };
  }

  nextSyncId(): number {
    return ++this.syncId;
  }

  awaitSync(id: number): Promise<boolean> {
    if (this.dead) return Promise.resolve(false);
    return new Promise((resolve) => this.syncs.set(id, resolve));
  }

  synced(id: number, busy: boolean): void {
    this.syncs.get(id)?.(busy);
    this.syncs.delete(id);
  }

  awaitWorkerClosed(): Promise<void> {
    return new Promise((resolve) => (this.onWorkerClosed = resolve));
  }

  workerClosed(): void {
    this.onWorkerClosed?.();
    this.onWorkerClosed = null;
  }

  /** Until nothing is pending, or dispatch paused (and its in-flight uploads ended), or the spool died. */
  async settled(dispatcher: Dispatcher): Promise<void> {
    while (!this.dead && this.pending > 0) {
      if (dispatcher.paused) return dispatcher.idle();
      await new Promise<void>((r) => this.changeWaiters.push(r));
    }
  }

  private notify(): void {
    const w = this.changeWaiters;
    this.changeWaiters = [];
    for (const r of w) r();
  }

  /** Resolves true if `p` settled first, false on timeout (see logger/wait.ts). */
  wait(p: Promise<unknown>, timeoutMs: number | undefined): Promise<boolean> {
    return waitWithTimeout(p, timeoutMs);
  }

  result(
    kind: "s3" | "local",
    dispatcherFailure: DeliveryFailure | null,
    retries: number,
  ): DestinationResult {
    const f = this.spoolFailure ?? dispatcherFailure;
    const failure = f ? { ...f } : null;
    const pending = this.pending;
    return {
      kind,
      ok: failure === null && pending === 0,
      delivered: this.delivered,
      pending,
      objects: this.objects,
      retries,
      heldByOthers: this.heldByOthers,
      rejected: { ...this.rejected },
      failure,
    };
  }
}
