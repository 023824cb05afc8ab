/**
 * SqliteSpool: the `Spool` on one SQLite file (format and invariants in
 * sqlite-schema.ts). Synchronous: it is owned by the spool worker thread (and
 * by the status/retry tools), never called per log call on the main thread.
 * Every mutation is one IMMEDIATE transaction; the usage row moves with it.
 * Size: ~410 lines on purpose — every statement on the file lives here, next to the
 * transaction that uses it, so the invariants of sqlite-schema.ts can be checked in one place.
 */
import { hostname } from "node:os";
import { randomHex } from "../shared/ids.js";
import { formatMark, markKey, markSeq } from "./exit-commit.js";
import { bindSpoolDestination } from "./spool-destination.js";
import type { SqlDatabase, SqlStatement } from "./sqlite-driver.js";
import { spoolWriteError } from "./spool-file-check.js";
import { ownerState, processIdentity, type OwnerRow } from "./owner-liveness.js";
import { openSpoolDatabase } from "./sqlite-schema.js";
import type {
  BatchOutcome,
  RecordOwner,
  SealResult,
  Spool,
  SpoolBatch,
  SpoolBatchInput,
  SpoolOpenOptions,
  SpoolRecord,
  SpoolRecordInput,
  SpoolStatus,
} from "./spool.js";
import { readStatus, rearmFailed } from "./sqlite-status.js";

type BatchRow = {
  id: string;
  key: string;
  state: SpoolBatch["state"];
  records: number;
  decoded_bytes: number;
  min_ms: number;
  max_ms: number;
  body: Uint8Array;
  created_ms: number;
};
const BATCH_COLUMNS = "id, key, state, records, decoded_bytes, min_ms, max_ms, body, created_ms";

/** Records of one group of a writer (its sequence number, from the main thread). */
export interface SpoolRecordGroup {
  seq: number;
  records: readonly SpoolRecordInput[];
}

const toBatch = (r: BatchRow): SpoolBatch => ({
  id: r.id,
  key: r.key,
  state: r.state,
  records: r.records,
  decodedBytes: r.decoded_bytes,
  minMs: r.min_ms,
  maxMs: r.max_ms,
  body: r.body,
  createdMs: r.created_ms,
});

/**
 * @example
 * const spool = SqliteSpool.open("/tmp/app.db", { leaseMs: 30_000 });
 * const ids = spool.append([{ line: '{"message":"hi"}', timestampMs: Date.now() }]);
 */
export class SqliteSpool implements Spool {
  readonly ownId: number;
  readonly adoptedId: number;
  private readonly now: () => number;
  private readonly q: Record<string, SqlStatement>;
  private readonly token: string;
  private readonly writer: string;
  private closed = false;
  private usage = -1;
  private constructor(
    private readonly db: SqlDatabase,
    private readonly options: SpoolOpenOptions,
    /** The file, for messages (disk full, another destination). */
    private readonly path: string,
  ) {
    this.now = options.now ?? Date.now;
    const s = (sql: string) => db.prepare(sql);
    this.q = {
      // Prepared once: a group commit per awaited write() should not parse SQL.
      begin: s("BEGIN IMMEDIATE"),
      commit: s("COMMIT"),
      register: s(
        "INSERT INTO owners (token, pid, host, heartbeat_ms, expires_ms) VALUES (?, ?, ?, ?, ?)",
      ),
      heartbeat: s(
        "INSERT OR REPLACE INTO owners (id, token, pid, host, heartbeat_ms, expires_ms) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      usage: s("SELECT bytes FROM usage WHERE id = 1"),
      addUsage: s("UPDATE usage SET bytes = bytes + ? WHERE id = 1 RETURNING bytes"),
      insertRecord: s("INSERT INTO records (owner, ts_ms, line) VALUES (?, ?, ?)"),
      deleteRecord: s("DELETE FROM records WHERE id = ? AND owner = ?"),
      deleteRange: s("DELETE FROM records WHERE id BETWEEN ? AND ? AND owner = ? RETURNING id"),
      insertBatch:
        s(`INSERT INTO batches (id, key, state, lease_owner, lease_until_ms, records, decoded_bytes, min_ms, max_ms, body, created_ms)
        VALUES (?, ?, 'leased', ?, ?, ?, ?, ?, ?, ?, ?)`),
      claim:
        s(`UPDATE batches SET state = 'leased', lease_owner = ?, lease_until_ms = ? WHERE id IN (
        SELECT id FROM batches WHERE state = 'pending' OR (state = 'leased' AND lease_until_ms < ?) ORDER BY created_ms LIMIT ?)
        RETURNING ${BATCH_COLUMNS}`),
      load: s(
        `SELECT ${BATCH_COLUMNS} FROM batches WHERE id = ? AND state = 'leased' AND lease_owner IN (?, ?)`,
      ),
      deliver: s("DELETE FROM batches WHERE id = ? RETURNING length(body) AS size"),
      fail: s(`UPDATE batches SET state = 'failed', lease_owner = NULL, lease_until_ms = NULL, attempts = attempts + 1, failure = ?
        WHERE id = ? AND state = 'leased' AND lease_owner IN (?, ?)`),
      renew: s(
        "UPDATE batches SET lease_until_ms = ? WHERE state = 'leased' AND lease_owner IN (?, ?)",
      ),
      // Each owner is judged by its own lease (processes sharing a file may configure different ones).
      deadOwners: s("SELECT id FROM owners WHERE expires_ms < ? AND id NOT IN (?, ?)"),
      // Same-host owners whose lease still runs: checked for a dead (or reused) pid.
      hostOwners: s(
        "SELECT id, pid, host, token, expires_ms FROM owners WHERE host = ? AND expires_ms >= ? AND id NOT IN (?, ?)",
      ),
      releaseOwner: s(
        "UPDATE batches SET state = 'pending', lease_owner = NULL, lease_until_ms = NULL WHERE state = 'leased' AND lease_owner = ?",
      ),
      heldRecordsByOthers: s("SELECT COUNT(*) AS n FROM records WHERE owner NOT IN (?, ?)"),
      heldBatchesByOthers: s(
        "SELECT COALESCE(SUM(records), 0) AS n FROM batches WHERE state = 'leased' AND lease_until_ms >= ? AND lease_owner NOT IN (?, ?)",
      ),
      adoptFrom: s("UPDATE records SET owner = ? WHERE owner = ?"),
      adoptOrphans: s(
        "UPDATE records SET owner = ? WHERE owner IS NULL OR owner NOT IN (SELECT id FROM owners)",
      ),
      dropOwner: s("DELETE FROM owners WHERE id = ?"),
      readAdopted: s(
        "SELECT id, ts_ms, line FROM records WHERE owner = ? AND id > ? ORDER BY id LIMIT ?",
      ),
      release: s(
        "UPDATE batches SET state = 'pending', lease_owner = NULL, lease_until_ms = NULL WHERE state = 'leased' AND lease_owner IN (?, ?)",
      ),
      heldRecords: s("SELECT EXISTS (SELECT 1 FROM records WHERE owner IN (?, ?)) AS held"),
      readMark: s("SELECT value FROM meta WHERE key = ?"),
      writeMark: s("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"),
      // Marks of writers with no owner row left, older than a lease: their process is gone.
      sweepMarks: s(`DELETE FROM meta WHERE key LIKE 'groups:%'
        AND CAST(substr(value, instr(value, ':') + 1) AS INTEGER) < ?
        AND NOT EXISTS (SELECT 1 FROM owners WHERE substr(token, 1, instr(token, '~') - 1) = substr(meta.key, 8))`),
    };
    this.writer = options.writer ?? randomHex(16);
    // Bound before this instance registers or adopts anything: records never cross destinations.
    if (options.destination !== undefined) {
      const destination = options.destination;
      this.tx(() => bindSpoolDestination(db, this.path, destination));
    }
    // The process identity travels in the token, so a reused pid is not mistaken for this process.
    const token = `${this.writer}~${processIdentity()}`;
    const at = this.now();
    const register = () =>
      Number(
        this.q.register!.run(token, process.pid, hostname(), at, at + options.leaseMs)
          .lastInsertRowid,
      );
    this.ownId = register();
    this.adoptedId = register();
    this.token = token;
  }

  /** Opens or creates the spool at `path` (foreign or corrupt files throw StowageError("spool"), untouched). */
  static open(path: string, options: SpoolOpenOptions): SqliteSpool {
    const { db } = openSpoolDatabase(path, { create: true });
    try {
      return new SqliteSpool(db, options, path);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  private tx<T>(fn: () => T): T {
    this.q.begin!.run();
    try {
      const out = fn();
      this.q.commit!.run();
      return out;
    } catch (err) {
      // SQLite may already have rolled back (SQLITE_FULL, IOERR): a second
      // ROLLBACK would hide the real error behind "no transaction is active".
      try {
        this.db.exec("ROLLBACK");
      } catch {
        // nothing left to roll back
      }
      throw spoolWriteError(err, this.path);
    }
  }

  private owner(which: RecordOwner): number {
    return which === "own" ? this.ownId : this.adoptedId;
  }

  append(records: readonly SpoolRecordInput[], outcomes: readonly BatchOutcome[] = []): number[] {
    return this.tx(() => {
      const ids: number[] = [];
      let bytes = this.insertRecords(records, ids);
      bytes += this.applyOutcomes(outcomes);
      this.addUsage(bytes);
      return ids;
    });
  }

  /**
   * Inside a transaction: moves the usage row by `delta` and keeps the total it now holds
   * (`usageAtCommit`), read in the same statement instead of a read transaction of its own.
   */
  private addUsage(delta: number): void {
    this.usage = (
      (delta === 0 ? this.q.usage!.get() : this.q.addUsage!.get(delta)) as { bytes: number }
    ).bytes;
  }

  /**
   * The spool's logical payload as of this instance's last append/appendGroups/seal/complete
   * commit (what `bytes()` would have read right after it), or -1 before the first.
   */
  get usageAtCommit(): number {
    return this.usage;
  }

  /**
   * append() for the record groups of this spool's writer, in ONE transaction with the
   * writer's mark: groups at or below the mark were committed by the process-end commit
   * (exit-commit.ts) and are skipped (null in the result); the mark moves to the highest
   * group stored. Returns the new record ids of each group.
   */
  appendGroups(
    groups: readonly SpoolRecordGroup[],
    outcomes: readonly BatchOutcome[] = [],
  ): (number[] | null)[] {
    return this.tx(() => {
      const key = markKey(this.writer);
      const mark = markSeq((this.q.readMark!.get(key) as { value: string } | undefined)?.value);
      let top = mark;
      let bytes = 0;
      const out = groups.map((g) => {
        if (g.seq <= mark) return null;
        top = Math.max(top, g.seq);
        const ids: number[] = [];
        bytes += this.insertRecords(g.records, ids);
        return ids;
      });
      if (top > mark) this.q.writeMark!.run(key, formatMark(top, this.now()));
      bytes += this.applyOutcomes(outcomes);
      this.addUsage(bytes);
      return out;
    });
  }

  /** Inside a transaction: inserts records under the `own` owner, pushes their ids; returns their bytes. */
  private insertRecords(records: readonly SpoolRecordInput[], ids: number[]): number {
    let bytes = 0;
    for (const r of records) {
      ids.push(
        Number(
          this.q.insertRecord!.run(this.ownId, Math.floor(r.timestampMs), r.line).lastInsertRowid,
        ),
      );
      bytes += Buffer.byteLength(r.line, "utf8") + 1;
    }
    return bytes;
  }

  seal(
    recordIds: readonly number[],
    which: RecordOwner,
    build: (kept: number[]) => SpoolBatchInput,
  ): SealResult {
    const owner = this.owner(which);
    return this.tx(() => {
      const kept = this.deleteRecords(recordIds, owner);
      if (kept.length === 0) return { kept, inserted: false };
      const b = build(kept);
      const recordBytes = b.decodedBytes; // Σ (line bytes + 1) of exactly the kept records
      this.q.insertBatch!.run(
        b.id,
        b.key,
        this.ownId,
        this.now() + this.options.leaseMs,
        b.records,
        b.decodedBytes,
        b.minMs,
        b.maxMs,
        b.body,
        this.now(),
      );
      this.addUsage(b.body.byteLength - recordBytes);
      return { kept, inserted: true };
    });
  }

  /**
   * Inside a transaction: deletes the rows of `recordIds` still held by `owner`; returns the
   * indexes (into recordIds) of those deleted. Consecutive ids (the usual batch: one writer's
   * records of one hour) go in one ranged DELETE, which holds exactly those ids.
   */
  private deleteRecords(recordIds: readonly number[], owner: number): number[] {
    const n = recordIds.length;
    const first = recordIds[0]!;
    let consecutive = n > 1;
    for (let i = 1; consecutive && i < n; i++) consecutive = recordIds[i] === first + i;
    if (consecutive) {
      const rows = this.q.deleteRange!.all(first, first + n - 1, owner) as { id: number }[];
      return rows.map((r) => Number(r.id) - first).sort((a, b) => a - b);
    }
    const kept: number[] = [];
    for (let i = 0; i < n; i++) {
      if (this.q.deleteRecord!.run(recordIds[i], owner).changes === 1) kept.push(i);
    }
    return kept;
  }

  claim(limit: number): SpoolBatch[] {
    if (limit <= 0) return [];
    const now = this.now();
    return this.tx(() =>
      (this.q.claim!.all(this.ownId, now + this.options.leaseMs, now, limit) as BatchRow[]).map(
        toBatch,
      ),
    ).sort((a, b) => a.createdMs - b.createdMs);
  }

  load(id: string): SpoolBatch | null {
    const row = this.q.load!.get(id, this.ownId, this.adoptedId) as BatchRow | undefined;
    return row ? toBatch(row) : null;
  }

  complete(outcomes: readonly BatchOutcome[]): void {
    if (outcomes.length === 0) return;
    this.tx(() => this.addUsage(this.applyOutcomes(outcomes)));
  }

  /** Inside a transaction: returns the usage delta. */
  private applyOutcomes(outcomes: readonly BatchOutcome[]): number {
    let delta = 0;
    for (const o of outcomes) {
      if (o.ok) {
        const row = this.q.deliver!.get(o.id) as { size: number } | undefined;
        if (row) delta -= row.size;
      } else {
        this.q.fail!.run(JSON.stringify(o.failure ?? null), o.id, this.ownId, this.adoptedId);
      }
    }
    return delta;
  }

  renew(): void {
    const now = this.now();
    this.tx(() => {
      for (const id of [this.ownId, this.adoptedId])
        this.q.heartbeat!.run(
          id,
          this.token,
          process.pid,
          hostname(),
          now,
          now + this.options.leaseMs,
        );
      this.q.renew!.run(now + this.options.leaseMs, this.ownId, this.adoptedId);
    });
  }

  adopt(options: { sweep?: boolean } = {}): number {
    const now = this.now();
    return this.tx(() => {
      let n = 0;
      const dead = this.q.deadOwners!.all(now, this.ownId, this.adoptedId) as { id: number }[];
      const sameHost = this.q.hostOwners!.all(
        hostname(),
        now,
        this.ownId,
        this.adoptedId,
      ) as (OwnerRow & {
        id: number;
      })[];
      for (const o of sameHost) if (ownerState(o, now) === "dead-pid") dead.push({ id: o.id });
      for (const { id } of dead) {
        n += this.q.adoptFrom!.run(this.adoptedId, id).changes;
        this.q.releaseOwner!.run(id); // its leases end with it: the batches are claimable now
        this.q.dropOwner!.run(id);
      }
      // The sweep scans every record: done once at open, not on every heartbeat.
      if (!options.sweep) return n;
      this.q.sweepMarks!.run(now - this.options.leaseMs);
      return n + this.q.adoptOrphans!.run(this.adoptedId).changes;
    });
  }

  /**
   * Records this instance cannot deliver yet: unsealed records of other (live)
   * owners, and records in batches another owner leases. A scan: called per flush round.
   */
  heldByOthers(): number {
    const r = this.q.heldRecordsByOthers!.get(this.ownId, this.adoptedId) as { n: number };
    const b = this.q.heldBatchesByOthers!.get(this.now(), this.ownId, this.adoptedId) as {
      n: number;
    };
    return r.n + b.n;
  }

  readAdopted(afterId: number, limit: number): SpoolRecord[] {
    const rows = this.q.readAdopted!.all(this.adoptedId, afterId, limit) as {
      id: number;
      ts_ms: number;
      line: string;
    }[];
    return rows.map((r) => ({ id: r.id, timestampMs: r.ts_ms, line: r.line }));
  }

  retryFailed(): number {
    return this.tx(() => rearmFailed(this.db));
  }

  bytes(): number {
    return (this.q.usage!.get() as { bytes: number }).bytes;
  }

  status(): SpoolStatus {
    return readStatus(this.db);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.tx(() => {
        this.q.release!.run(this.ownId, this.adoptedId);
        const held =
          (this.q.heldRecords!.get(this.ownId, this.adoptedId) as { held: number }).held === 1;
        // Records left behind (a flush that timed out) are adopted at once by the next opener: heartbeat 0.
        for (const id of [this.ownId, this.adoptedId]) {
          if (held) this.q.heartbeat!.run(id, this.token, process.pid, hostname(), this.now(), 0);
          else this.q.dropOwner!.run(id);
        }
        // The writer's mark stays: a process-end commit racing this close must still see it
        // (the next opener sweeps it once it is a lease old and no owner row of it is left).
      });
    } finally {
      this.db.close();
    }
  }
}
