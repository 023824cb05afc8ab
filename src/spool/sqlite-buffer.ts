/**
 * The sqlite buffer (`buffer: "sqlite"`, SPEC §4) behind the DeliverySink:
 * records go to the spool worker in groups (group commit), sealed batches come
 * back leased and are handed to the sink, and their outcomes go back to the spool.
 *
 * Invariants:
 * - addDurable() resolves only after the worker acknowledged the commit of its group;
 * - `queuedBytes` is what was accepted and not yet committed (or lost); `spoolBytes`
 *   is the spool's payload as last reported by the worker (this process's view:
 *   processes sharing a file may overshoot by what they have in flight);
 * - a group the worker could not commit, or one still uncommitted when the worker
 *   dies, is reported lost (counted failed, latched) and its writers rejected;
 * - the main thread does no disk I/O per call: add() only queues. Its one exception is
 *   the end of the process (`process.exit()`, an uncaught exception, a fatal signal): then
 *   it commits what is queued or unconfirmed itself, synchronously (exit-commit.ts), so the
 *   records that explain a crash are kept; a group is never committed twice (writer marks);
 * - a group keeps its lines until the worker confirms it (bounded by maxQueueBytes).
 */
import { lineBytes } from "../batch/hour-batcher.js";
import { objectMetadata } from "../v1-format/object-key.js";
import type { BufferHost, DeliveryBuffer, FailureCause } from "../delivery/buffer.js";
import type { SealedBatch } from "../delivery/sealed-batch.js";
import { waitWithTimeout } from "../delivery/wait.js";
import { StowageError } from "../shared/errors.js";
import { randomHex } from "../shared/ids.js";
import { onProcessEnd } from "../shared/process-end.js";
import { commitAtProcessEnd, type PendingGroup } from "./exit-commit.js";
import { WorkerHost } from "./worker-host.js";
import type { FromWorker, SpoolWorkerConfig, WireBatch, WireError } from "./worker-protocol.js";

/** Post the pending group once it holds this much (else at the end of the current tick). */
const POST_BYTES = 256 * 1024;
/** How long close() waits for the worker to release its leases and close the database. */
const CLOSE_WAIT_MS = 15_000;

/** The one promise of a group's awaited writes (all settle together: one allocation per group). */
interface Waiters {
  promise: Promise<void>;
  settle: (err: StowageError | null) => void;
}
function waiters(): Waiters {
  let settle!: Waiters["settle"];
  const promise = new Promise<void>((resolve, reject) => {
    settle = (err) => (err === null ? resolve() : reject(err));
  });
  return { promise, settle };
}
interface Group {
  records: number;
  bytes: number;
  /** Settles every `write()` of the group; absent when none awaits it. */
  waiters: Waiters[];
  /** Kept until committed: the process-end commit stores them if the worker has not. */
  lines: string[];
  ts: number[];
}
type SpooledBatch = SealedBatch & { spoolId: string };

/**
 * @example
 * const sink = new DeliverySink("s3", store, options, (host) => new SqliteBuffer(host, workerConfig));
 */
export class SqliteBuffer implements DeliveryBuffer {
  private readonly worker: WorkerHost;
  private outbox = {
    lines: [] as string[],
    ts: [] as number[],
    bytes: 0,
    waiters: null as Waiters | null,
  };
  private postScheduled = false;
  /** Accepted, not yet committed (outbox + groups with the worker). */
  private inflightBytes = 0;
  private reportedSpoolBytes = 0;
  private held = 0;
  private seq = 0;
  private readonly groups = new Map<number, Group>();
  private syncId = 0;
  private readonly syncs = new Map<number, (busy: boolean) => void>();
  private onWorkerClosed: (() => void) | null = null;
  /** Set when the worker died: the spool takes no more records. */
  private _error: StowageError | null = null;
  private deathCause: WireError | null = null;
  private closing = false;
  private readonly cfg: SpoolWorkerConfig & { writer: string };
  private readonly offProcessEnd: () => void;

  constructor(
    private readonly host: BufferHost,
    cfg: SpoolWorkerConfig,
  ) {
    this.cfg = { ...cfg, writer: cfg.writer ?? randomHex(16) };
    // Listening for the end of the process only while this buffer is open (removed in close()).
    this.offProcessEnd = onProcessEnd(() => this.commitAtEnd());
    this.worker = new WorkerHost(
      this.cfg,
      (m) => this.onMessage(m),
      (err) => {
        if (!this.closing) this.die({ code: "SpoolWorkerFailed", message: err.message });
        else this.workerClosed();
      },
    );
  }

  get queuedBytes(): number {
    return this.inflightBytes;
  }
  get spoolBytes(): number {
    return this.reportedSpoolBytes;
  }
  get heldByOthers(): number {
    return this.held;
  }
  get error(): StowageError | null {
    return this._error;
  }

  add(line: string, timestampMs: number, measured: number | undefined): void {
    this.queue(line, timestampMs, measured);
    this.schedulePost();
  }

  /** The group's promise is taken before the group can be posted (a line crossing POST_BYTES). */
  addDurable(line: string, timestampMs: number, size: number | undefined): Promise<void> {
    const o = this.queue(line, timestampMs, size);
    const w = (o.waiters ??= waiters());
    this.schedulePost();
    return w.promise;
  }

  private queue(line: string, timestampMs: number, measured: number | undefined) {
    const size = measured ?? lineBytes(line);
    const o = this.outbox;
    o.lines.push(line);
    o.ts.push(timestampMs);
    o.bytes += size;
    this.inflightBytes += size;
    return o;
  }

  private schedulePost(): void {
    if (this.outbox.bytes >= POST_BYTES) this.post();
    else if (!this.postScheduled) {
      this.postScheduled = true;
      queueMicrotask(() => this.post());
    }
  }

  /** Sends the pending group to the worker (or reports it lost if the spool already failed). */
  private post(): void {
    this.postScheduled = false;
    const g = this.outbox;
    if (g.lines.length === 0) return;
    this.outbox = { lines: [], ts: [], bytes: 0, waiters: null };
    const group = {
      records: g.lines.length,
      bytes: g.bytes,
      waiters: g.waiters ? [g.waiters] : [],
      lines: g.lines,
      ts: g.ts,
    };
    if (this._error) return this.drop(group, this.deathCause!);
    this.groups.set(++this.seq, group);
    this.worker.request({ t: "rec", seq: this.seq, lines: g.lines, ts: g.ts });
  }

  /** A group that will never be committed: its bytes leave, its records are lost, its writers hear why. */
  private drop(g: Group, error: WireError): void {
    this.inflightBytes -= g.bytes;
    const cause = spoolCause(error);
    this.host.lost(g.records, cause);
    const err = this._error ?? new StowageError("spool", cause.message);
    for (const w of g.waiters) w.settle(err);
  }

  private onMessage(m: FromWorker): void {
    switch (m.t) {
      case "ready":
      case "bytes":
        this.reportedSpoolBytes = m.bytes;
        return;
      case "ack":
        this.worker.answered(this.committed(m.seq, m.bytes));
        return;
      case "nack": {
        // This group is lost (e.g. disk full); later groups are tried again.
        const g = this.groups.get(m.seq);
        if (g) this.groups.delete(m.seq);
        this.drop(g ?? { records: 0, bytes: 0, waiters: [], lines: [], ts: [] }, m.error);
        this.worker.answered(g ? 1 : 0);
        return;
      }
      case "batch":
        if (m.backlog) this.host.adopted(m.batch.records);
        this.host.batch(toSealed(m.batch));
        return;
      case "adopted":
        this.host.adopted(m.records);
        return;
      case "transferred":
        this.host.transferred(m.records);
        return;
      case "synced":
        this.worker.answered();
        this.held = m.held;
        this.syncs.get(m.id)?.(m.busy);
        this.syncs.delete(m.id);
        return;
      case "doneAck":
        this.worker.answered(m.count);
        return;
      case "closed":
        this.workerClosed();
        return;
      case "fatal":
        this.die(m.error);
        return;
    }
  }

  /** Every group up to `seq` committed; returns how many answers that was. */
  private committed(seq: number, spoolBytes: number): number {
    let n = 0;
    for (const [k, g] of this.groups) {
      if (k > seq) break;
      this.groups.delete(k);
      this.inflightBytes -= g.bytes;
      for (const w of g.waiters) w.settle(null);
      n++;
    }
    this.reportedSpoolBytes = spoolBytes;
    return n;
  }

  /** The worker is gone (or cannot open the spool): uncommitted groups are lost, counted; everything waiting wakes. */
  private die(error: WireError): void {
    if (this._error) return;
    this.deathCause = error;
    this._error = new StowageError("spool", spoolCause(error).message);
    const groups = [...this.groups.values()];
    this.groups.clear();
    const all = { records: 0, bytes: 0, waiters: [] as Waiters[], lines: [], ts: [] };
    for (const g of groups) {
      all.records += g.records;
      all.bytes += g.bytes;
      all.waiters.push(...g.waiters);
    }
    this.drop(all, error); // latches even when nothing of ours was in flight
    for (const resolve of this.syncs.values()) resolve(false);
    this.syncs.clear();
    this.workerClosed();
  }

  /** Posts what is queued, then one sync round: the worker commits, seals, hands out batches. */
  sealAll(): Promise<boolean> {
    this.post();
    if (this._error || !this.worker.alive || this.closing) return Promise.resolve(false);
    const id = ++this.syncId;
    const answer = new Promise<boolean>((resolve) => this.syncs.set(id, resolve));
    this.worker.request({ t: "sync", id });
    return answer;
  }

  outcome(batch: SealedBatch, ok: boolean, failure?: FailureCause): void {
    if (!this.worker.alive || this._error) return;
    const id = (batch as SpooledBatch).spoolId;
    this.worker.request({ t: "done", id, ok, ...(failure ? { failure } : {}) });
  }

  /** Asks the worker to commit what is queued, release leases and close the database; then ends it. */
  async close(): Promise<void> {
    this.post();
    this.closing = true;
    if (this.worker.alive) {
      const done = new Promise<void>((resolve) => (this.onWorkerClosed = resolve));
      this.worker.request({ t: "close" });
      await waitWithTimeout(done, CLOSE_WAIT_MS);
    }
    await this.worker.terminate();
    this.offProcessEnd();
  }

  /**
   * The process is ending (exit, uncaught exception, fatal signal): commit, synchronously, every
   * group the worker has not confirmed, and what is still queued here. Groups the worker did
   * commit are skipped by their mark (exit-commit.ts), so nothing is stored twice. A dead spool
   * commits nothing: its records were already reported lost.
   */
  private commitAtEnd(): void {
    if (this._error) return;
    this.post(); // the queued records become a numbered group like the others
    const groups: PendingGroup[] = [];
    for (const [seq, g] of this.groups) groups.push({ seq, lines: g.lines, ts: g.ts });
    commitAtProcessEnd({
      path: this.cfg.path,
      writer: this.cfg.writer,
      destination: this.cfg.destination,
      groups,
    });
  }

  private workerClosed(): void {
    this.onWorkerClosed?.();
    this.onWorkerClosed = null;
  }
}

function spoolCause(error: WireError): FailureCause {
  const message = error.hint ? `${error.message} ${error.hint}` : error.message;
  return { category: "spool", code: error.code, message };
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
