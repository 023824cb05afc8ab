/**
 * The `buffer: "sqlite"` sink (SPEC §4): records go to the spool worker
 * (group commit), sealed batches come back leased for upload through the
 * shared Dispatcher, and outcomes go back to the spool.
 *
 * Invariants (records):
 * - accepted + adopted = delivered + failed + transferred + pending, at every moment;
 * - a write() resolves only after the worker acknowledged the commit of its group;
 * - spool bytes (last worker report) + bytes accepted but not yet committed never
 *   exceed maxSpoolBytes (this process's view; processes sharing a file may overshoot
 *   by what they have in flight); uncommitted bytes never exceed maxQueueBytes;
 * - the main thread does no disk I/O per call: accept() only counts and queues.
 */
import type { ObjectLockSpec } from "../config/destination.js";
import { MAX_EPOCH_MS, objectMetadata } from "../batch/object-key.js";
import { Dispatcher } from "../delivery/dispatcher.js";
import { emit, type DeliveryEventListener } from "../delivery/events.js";
import type { DeliveryFailure, SealedBatch } from "../delivery/sealed-batch.js";
import type { DestinationResult, RejectedCounts, Sink } from "../delivery/sink.js";
import { sleep } from "../shared/abort.js";
import { StowageError } from "../shared/errors.js";
import type { ObjectStore } from "../store/object-store.js";
import { SinkState, type Reason } from "./sink-state.js";
import { WorkerHost } from "./worker-host.js";
import type { FromWorker, SpoolWorkerConfig, WireBatch } from "./worker-protocol.js";

/** Post the pending group once it holds this much (else at the end of the current tick). */
const POST_BYTES = 256 * 1024;
const CLOSE_WAIT_MS = 15_000;

export interface SqliteSinkOptions {
  maxRecordBytes: number;
  maxQueueBytes: number;
  maxSpoolBytes: number;
  concurrency: number;
  maxAttempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  worker: SpoolWorkerConfig;
  /** Typed delivery events (retries, rejections, the latch, adoptions). */
  onEvent?: DeliveryEventListener | undefined;
  /** Object Lock for every object written (docs/retention.md). */
  objectLock?: ObjectLockSpec | undefined;
}

type SpooledBatch = SealedBatch & { spoolId: string };

export class SqliteSink implements Sink {
  private readonly s = new SinkState();
  private readonly host: WorkerHost;
  private readonly dispatcher: Dispatcher;
  private outbox = {
    lines: [] as string[],
    ts: [] as number[],
    bytes: 0,
    waiters: [] as ((err: StowageError | null) => void)[],
  };
  private postScheduled = false;
  private aborting = false;

  constructor(
    readonly kind: "s3" | "local",
    private readonly store: ObjectStore,
    private readonly o: SqliteSinkOptions,
  ) {
    this.dispatcher = new Dispatcher({
      store,
      concurrency: o.concurrency,
      maxAttempts: o.maxAttempts,
      initialBackoffMs: o.initialBackoffMs,
      maxBackoffMs: o.maxBackoffMs,
      onEvent: o.onEvent,
      objectLock: o.objectLock,
      onDelivered: (b) => this.outcome(b as SpooledBatch, true),
      onFailed: (b, err) =>
        this.outcome(b as SpooledBatch, false, {
          category: err.category,
          code: err.code,
          message: err.message,
        }),
    });
    this.host = new WorkerHost(
      o.worker,
      (m) => this.onMessage(m),
      (err) => {
        if (!this.s.closing) this.s.die({ code: "SpoolWorkerFailed", message: err.message });
      },
    );
  }

  accept(line: string, timestampMs: number): keyof RejectedCounts | "closed" | null {
    const size = Buffer.byteLength(line, "utf8") + 1;
    if (this.s.closed) return this.rejected("closed", size);
    // Checked before anything is counted: a refused time leaves no record pending.
    if (!(timestampMs >= 0 && timestampMs <= MAX_EPOCH_MS)) {
      throw new StowageError(
        "usage",
        `record time ${timestampMs} is outside 1970..2286; fix the timestamp`,
      );
    }
    const r = this.s.admit(size, this.o);
    if (r !== null) return this.rejected(r, size);
    this.outbox.lines.push(line);
    this.outbox.ts.push(timestampMs);
    this.outbox.bytes += size;
    if (this.outbox.bytes >= POST_BYTES) this.post();
    else if (!this.postScheduled) {
      this.postScheduled = true;
      queueMicrotask(() => this.post());
    }
    return null;
  }

  private rejected<R extends NonNullable<Reason>>(reason: R, bytes: number): R {
    emit(this.o.onEvent, { type: "rejected", reason, bytes });
    return reason;
  }

  acceptDurable(line: string, timestampMs: number): Promise<Reason> {
    if (this.s.spoolError) return Promise.reject(this.s.spoolError);
    let r: Reason;
    try {
      r = this.accept(line, timestampMs);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    if (r !== null) return Promise.resolve(r);
    return new Promise((resolve, reject) =>
      this.outbox.waiters.push((err) => (err === null ? resolve(null) : reject(err))),
    );
  }

  /** Sends the pending group to the worker. */
  private post(): void {
    this.postScheduled = false;
    const g = this.outbox;
    if (g.lines.length === 0) return;
    this.outbox = { lines: [], ts: [], bytes: 0, waiters: [] };
    const seq = this.s.posted(g.lines.length, g.bytes, g.waiters);
    this.host.request({ t: "rec", seq, lines: g.lines, ts: g.ts });
  }

  private onMessage(m: FromWorker): void {
    const s = this.s;
    switch (m.t) {
      case "ready":
      case "bytes":
        s.spoolBytes = m.bytes;
        return;
      case "ack":
        this.host.answered(s.committed(m.seq, m.bytes));
        return;
      case "nack":
        this.host.answered(s.lost(m.seq, m.error));
        return;
      case "batch":
        if (m.backlog) {
          s.adopt(m.batch.records);
          emit(this.o.onEvent, { type: "adopted", records: m.batch.records });
        }
        this.dispatcher.enqueue(toSealed(m.batch));
        return;
      case "adopted":
        s.adopt(m.records);
        emit(this.o.onEvent, { type: "adopted", records: m.records });
        return;
      case "transferred":
        s.transfer(m.records);
        return;
      case "synced":
        this.host.answered();
        s.heldByOthers = m.held;
        s.synced(m.id, m.busy);
        return;
      case "doneAck":
        this.host.answered(m.count);
        return;
      case "closed":
        s.workerClosed();
        return;
      case "fatal":
        s.die(m.error);
        return;
    }
  }

  private outcome(
    b: SpooledBatch,
    ok: boolean,
    failure?: { category: string; code: string; message: string },
  ): void {
    if (this.aborting) return; // close() aborted it: the worker releases the lease, the next logger delivers it
    this.s.settle(b.records, ok);
    if (this.host.alive && !this.s.dead)
      this.host.request({ t: "done", id: b.spoolId, ok, ...(failure ? { failure } : {}) });
  }

  result(): DestinationResult {
    return this.s.result(
      this.kind,
      this.dispatcher.failure as DeliveryFailure | null,
      this.dispatcher.retries,
    );
  }

  async flush(
    timeoutMs: number | undefined,
  ): Promise<{ result: DestinationResult; timedOut: boolean }> {
    if (this.s.closed) return { result: this.result(), timedOut: false };
    this.post();
    const deadline =
      timeoutMs === undefined || !Number.isFinite(timeoutMs) ? Infinity : Date.now() + timeoutMs;
    const timedOut = !(await this.s.wait(this.drain(deadline), timeoutMs));
    return { result: this.result(), timedOut };
  }

  /** Sync rounds until nothing this logger holds is pending, dispatch is paused, or the spool died. */
  private async drain(deadline: number): Promise<void> {
    for (;;) {
      // After a timeout the loop must end too: a sync request keeps the worker (and the process) alive.
      if (this.s.dead || !this.host.alive || this.s.closing || Date.now() > deadline) return;
      const id = this.s.nextSyncId();
      const answer = this.s.awaitSync(id);
      this.host.request({ t: "sync", id });
      const busy = await answer;
      await this.s.settled(this.dispatcher);
      if (this.s.dead || this.dispatcher.paused) return;
      if (!busy && this.s.pending === 0) return;
      if (this.s.pending === 0) await sleep(20); // pending work in other owners: ref'd (lifetime rule)
    }
  }

  async close(
    timeoutMs: number | undefined,
  ): Promise<{ result: DestinationResult; timedOut: boolean }> {
    if (this.s.closed) return { result: this.result(), timedOut: false };
    const out = await this.flush(timeoutMs);
    this.s.closed = true;
    const result = this.result();
    this.s.closing = true;
    this.aborting = true;
    this.dispatcher.close();
    if (this.host.alive) {
      const done = this.s.awaitWorkerClosed();
      this.host.request({ t: "close" });
      await this.s.wait(done, CLOSE_WAIT_MS);
    }
    await this.host.terminate();
    this.store.close();
    return { result, timedOut: out.timedOut };
  }
}

function toSealed(b: WireBatch): SpooledBatch {
  return {
    spoolId: b.id,
    key: b.key,
    body: b.body,
    records: b.records,
    decodedBytes: b.decodedBytes,
    minMs: b.minMs,
    maxMs: b.maxMs,
    metadata: objectMetadata(b),
  };
}
