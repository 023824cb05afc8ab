/**
 * The spool worker's loop (runs on the worker thread, owns the SqliteSpool):
 * group commit of accepted records, hour batching and sealing, the window of
 * leased batches handed to the main thread, heartbeat/lease renewal, adoption
 * and chunked recovery of dead owners' records, and backlog claims.
 *
 * Invariants:
 * - a record group is acknowledged only after the transaction holding it committed;
 *   a group at or below its writer's mark was committed by the process-end commit
 *   (exit-commit.ts): acknowledged, reported `transferred` (its records are adopted like
 *   a dead owner's), never stored twice;
 * - every batch in `queue` or `sent` is leased by this spool (renewed every lease/3);
 *   at most `window` batches are with the main thread at once (bounded memory);
 * - each batch is handed out once per lease: `sent` holds it until its outcome arrives;
 * - SQLITE_BUSY (another process writing) never loses work: the cycle retries later.
 * Size: ~300 lines on purpose — it is one state machine, and its invariants hold across all of it.
 */
import { encodeV1Object } from "../batch/encoder.js";
import { idleTimer, nextTurn } from "../shared/abort.js";
import { RecordBatcher, type SealedRecords } from "./record-batcher.js";
import type { BatchOutcome, RecordOwner, SpoolBatchInput } from "./spool.js";
import { isBusyError } from "./sqlite-driver.js";
import type { SqliteSpool } from "./sqlite-spool.js";
import {
  toWireError,
  type FromWorker,
  type RecordsMessage,
  type SpoolWorkerConfig,
  type ToWorker,
} from "./worker-protocol.js";

const RECOVERY_PAGE = 2_000;
const BUSY_RETRY_MS = 50;

export class WorkerLoop {
  private readonly live: RecordBatcher;
  private inbox: RecordsMessage[] = [];
  private outcomes: BatchOutcome[] = [];
  private seals: (SealedRecords & { owner: RecordOwner })[] = [];
  /** Sealed here, leased by this spool, not yet handed out (ids; bodies stay on disk). */
  private readonly queue: { id: string; records: number }[] = [];
  private readonly cache = new Map<string, SpoolBatchInput>();
  private readonly sent = new Set<string>();
  private claimDue = true;
  private recovering = false;
  private scheduled = false;
  private stopped = false;
  private readonly stopHeartbeat: () => void;

  constructor(
    private readonly spool: SqliteSpool,
    private readonly cfg: SpoolWorkerConfig,
    private readonly post: (m: FromWorker) => void,
  ) {
    this.live = this.batcher("own", true);
    post({ t: "ready", bytes: spool.bytes() });
    this.stopHeartbeat = idleTimer(
      Math.max(10, Math.floor(cfg.leaseMs / 3)),
      () => this.guard(() => this.tick(false)),
      { repeat: true },
    );
    this.guard(() => this.tick(true));
  }

  handle(m: ToWorker): void {
    this.guard(() => {
      if (this.stopped) return;
      if (m.t === "rec") this.inbox.push(m);
      else if (m.t === "done") {
        this.outcomes.push({ id: m.id, ok: m.ok, ...(m.failure ? { failure: m.failure } : {}) });
        this.sent.delete(m.id);
        this.claimDue = true;
      } else if (m.t === "sync") {
        // A flush right after open covers dead owners' work too: adopt before answering.
        if (!this.recovering) this.tick(false);
        this.cycle();
        this.live.sealAll();
        this.claimDue = true;
        this.cycle();
        this.post({
          t: "synced",
          id: m.id,
          busy:
            this.recovering ||
            this.queue.length > 0 ||
            this.sent.size > 0 ||
            this.inbox.length > 0 ||
            this.seals.length > 0,
          held: this.spool.heldByOthers(),
        });
        return;
      } else if (m.t === "close") {
        this.close();
        return;
      }
      this.kick();
    });
  }

  private batcher(owner: RecordOwner, timer: boolean): RecordBatcher {
    const { maxBatchBytes, maxBatchRecords, flushIntervalMs } = this.cfg;
    return new RecordBatcher({
      maxBatchBytes,
      maxBatchRecords,
      flushIntervalMs,
      timer,
      onSeal: (s) => {
        this.seals.push({ ...s, owner });
        this.kick();
      },
    });
  }

  /** Runs one cycle soon (after the messages already queued: natural group commit). */
  private kick(delayMs = 0): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    const run = () => {
      this.scheduled = false;
      this.guard(() => this.cycle());
    };
    if (delayMs > 0) idleTimer(delayMs, run);
    else setImmediate(run);
  }

  private cycle(): void {
    if (this.stopped) return;
    try {
      this.commit();
      this.sealPending();
      this.pump();
    } catch (err) {
      if (!isBusyError(err)) throw err;
      this.kick(BUSY_RETRY_MS); // nothing was lost: inbox, outcomes, seals and the queue are intact
    }
  }

  private commit(): void {
    if (this.inbox.length === 0 && this.outcomes.length === 0) return;
    const groups = this.inbox;
    const outcomes = this.outcomes;
    const batch = groups.map((g) => ({
      seq: g.seq,
      records: g.lines.map((line, i) => ({ line, timestampMs: g.ts[i]! })),
    }));
    let ids: (number[] | null)[];
    try {
      ids = this.spool.appendGroups(batch, outcomes);
    } catch (err) {
      if (isBusyError(err)) throw err;
      this.inbox = [];
      for (const g of groups) this.post({ t: "nack", seq: g.seq, error: toWireError(err) });
      return; // outcomes stay queued: a later commit applies them
    }
    this.inbox = [];
    this.outcomes = [];
    const bytes = this.spool.usageAtCommit; // read in the commit: no read transaction of its own
    if (groups.length > 0) this.post({ t: "ack", seq: groups[groups.length - 1]!.seq, bytes });
    if (outcomes.length > 0) this.post({ t: "doneAck", count: outcomes.length });
    else if (groups.length === 0) this.post({ t: "bytes", bytes });
    let elsewhere = 0; // groups the process-end commit stored first: adopted, not ours to seal
    for (let k = 0; k < batch.length; k++) {
      const { records } = batch[k]!;
      const got = ids[k];
      if (!got) elsewhere += records.length;
      else
        for (let i = 0; i < records.length; i++)
          this.live.add(got[i]!, records[i]!.line, records[i]!.timestampMs);
    }
    if (elsewhere > 0) this.post({ t: "transferred", records: elsewhere });
  }

  private sealPending(): void {
    if (this.seals.length === 0) return;
    while (this.seals.length > 0) {
      const s = this.seals[0]!;
      const full = this.encode(
        s,
        s.ids.map((_, i) => i),
      );
      let built: SpoolBatchInput | undefined;
      const res = this.spool.seal(
        s.ids,
        s.owner,
        (kept) => (built = kept.length === s.ids.length ? full : this.encode(s, kept)),
      );
      this.seals.shift();
      if (res.kept.length < s.ids.length)
        this.post({ t: "transferred", records: s.ids.length - res.kept.length });
      if (!res.inserted || !built) continue;
      this.queue.push({ id: built.id, records: built.records });
      if (built === full && this.cache.size < this.cfg.window) this.cache.set(built.id, full);
    }
    this.post({
      t: "bytes",
      bytes: this.spool.usageAtCommit < 0 ? this.spool.bytes() : this.spool.usageAtCommit,
    });
  }

  private encode(s: SealedRecords, kept: number[]): SpoolBatchInput {
    const lines = kept.map((i) => s.batch.lines[i]!);
    const times = kept.map((i) => s.times[i]!);
    const minMs = Math.min(...times);
    const maxMs = Math.max(...times);
    // The one v1 object builder (batch/encoder.ts), as the memory buffer and the tests use.
    const enc = encodeV1Object(
      { lines, minMs, maxMs },
      {
        prefix: this.cfg.prefix,
        ...(this.cfg.gzipLevel === undefined ? {} : { level: this.cfg.gzipLevel }),
      },
    );
    return {
      id: enc.batchId,
      key: enc.key,
      body: enc.body,
      records: enc.records,
      decodedBytes: enc.decodedBytes,
      minMs,
      maxMs,
    };
  }

  /** Hands batches to the main thread up to the window: own/adopted first, then backlog claims. */
  private pump(): void {
    while (this.sent.size < this.cfg.window && this.queue.length > 0) {
      const { id, records } = this.queue[0]!;
      const b = this.cache.get(id) ?? this.spool.load(id);
      this.queue.shift();
      this.cache.delete(id);
      if (!b) {
        this.post({ t: "transferred", records }); // lease lost during a long stall: another owner delivers it
        continue;
      }
      this.sent.add(id);
      this.post({ t: "batch", batch: wire(b), backlog: false });
    }
    if (!this.claimDue || this.sent.size >= this.cfg.window || this.queue.length > 0) return;
    this.claimDue = false;
    for (const b of this.spool.claim(this.cfg.window - this.sent.size)) {
      this.sent.add(b.id);
      this.post({ t: "batch", batch: wire(b), backlog: true });
    }
  }

  /** Heartbeat: renew, adopt dead owners' records (sweep orphans at start), recover, claim. */
  private tick(first: boolean): void {
    if (this.stopped) return;
    try {
      this.spool.renew();
      if (!this.recovering) {
        const n = this.spool.adopt({ sweep: first });
        if (n > 0) {
          this.post({ t: "adopted", records: n });
          void this.recover();
        }
      }
      this.claimDue = true;
      this.pump();
    } catch (err) {
      if (!isBusyError(err)) throw err; // another process held the lock for the whole busy timeout: next tick
      if (first) idleTimer(BUSY_RETRY_MS, () => this.guard(() => this.tick(true)));
    }
  }

  /** Re-seals adopted records in pages, yielding between pages so live commits interleave. */
  private async recover(): Promise<void> {
    this.recovering = true;
    try {
      const rb = this.batcher("adopted", false);
      let after = 0;
      for (;;) {
        if (this.stopped) return;
        const rows = this.spool.readAdopted(after, RECOVERY_PAGE);
        if (rows.length === 0) break;
        for (const r of rows) rb.add(r.id, r.line, r.timestampMs);
        after = rows[rows.length - 1]!.id;
        this.cycle();
        await nextTurn();
      }
      rb.sealAll();
      this.cycle();
    } catch (err) {
      this.fail(err);
    } finally {
      this.recovering = false;
    }
  }

  /** Commits what is queued, releases leases (→ pending) and closes the database; always answers. */
  private close(): void {
    try {
      this.cycle();
    } finally {
      this.stop();
      try {
        this.spool.close();
      } catch (err) {
        this.post({ t: "fatal", error: toWireError(err) });
      }
      this.post({ t: "closed" });
    }
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.fail(err);
    }
  }

  private fail(err: unknown): void {
    if (this.stopped) return;
    this.post({ t: "fatal", error: toWireError(err) });
    this.stop();
  }

  private stop(): void {
    this.stopped = true;
    this.stopHeartbeat();
  }
}

function wire(b: SpoolBatchInput) {
  return {
    id: b.id,
    key: b.key,
    body: b.body,
    records: b.records,
    decodedBytes: b.decodedBytes,
    minMs: b.minMs,
    maxMs: b.maxMs,
  };
}
