/**
 * The `Spool` role (SPEC §4): durable storage of accepted records and of the
 * sealed batches made from them, shared by every process that opens the same
 * location. Implementations: SqliteSpool (the real one), MemorySpool (contract
 * sanity, in test/support/). Both run the shared suite in spool.contract.ts.
 *
 * Vocabulary: an *owner* is one writer (one open spool instance; it holds two
 * owner ids, `own` for records it accepted and `adopted` for records it took
 * over from dead owners). A *lease* is an owner's time-limited claim on a batch.
 * Batch states: pending → leased → (delivered: row deleted) | failed;
 * leased → pending on release or lease expiry (expiry is implicit: an expired
 * lease is claimable); failed → pending only through retryFailed().
 */
import type { SealedBatch } from "../delivery/sealed-batch.js";

/** One accepted record as stored: its redacted JSON line (no newline) and event time. */
export interface SpoolRecordInput {
  line: string;
  timestampMs: number;
}

/** An unsealed record read back from the spool. */
export interface SpoolRecord extends SpoolRecordInput {
  id: number;
}

/**
 * A sealed batch: one future object, with its final key and compressed bytes —
 * a SealedBatch (metadata is derived from the counts) plus its batch id.
 */
export interface SpoolBatchInput extends Omit<SealedBatch, "metadata"> {
  /** Batch id (the ULID inside the key). */
  id: string;
}

export type BatchState = "pending" | "leased" | "failed";

export interface SpoolBatch extends SpoolBatchInput {
  state: BatchState;
  createdMs: number;
}

export interface BatchFailure {
  category: string;
  code: string;
  message: string;
}

/** What a delivery attempt ended in; `ok: false` leaves the batch `failed` on disk. */
export interface BatchOutcome {
  id: string;
  ok: boolean;
  failure?: BatchFailure;
}

/** SPEC §4 status, plus the per-state record counts behind it. */
export interface SpoolStatus {
  /** Unsealed records. */
  records: number;
  /** Batches waiting for delivery (pending or leased). */
  pending: number;
  /** Batches that failed permanently or exhausted their attempts. */
  failed: number;
  /** Logical payload: record line bytes (+1 newline each) + compressed batch bytes. */
  bytes: number;
  /** Of `pending`, batches currently leased by a live or recently dead owner. */
  leased: number;
  pendingRecords: number;
  failedRecords: number;
}

/** Result of sealing: the ids actually removed (records another owner adopted are not). */
export interface SealResult {
  /** Indexes (into the given id list) of the records that went into the batch. */
  kept: number[];
  /** Whether a batch row was written (false when no record was still ours). */
  inserted: boolean;
}

export interface SpoolOpenOptions {
  /** Lease and heartbeat lifetime: an owner silent this long is dead. */
  leaseMs: number;
  /** Clock (default Date.now); the contract suite injects one. */
  now?: () => number;
  /**
   * The destination identity (spool-destination.ts): the file is bound to it at open (an
   * unbound file is bound now), or the open throws StowageError("config"). Absent: no check
   * (tools and the contract suite, which never deliver).
   */
  destination?: string;
  /**
   * The writer id of the sqlite buffer feeding this spool: its owner tokens start with it and
   * appendGroups() keeps its mark (exit-commit.ts). Absent: a random one.
   */
  writer?: string;
}

/** Which of this instance's two owner ids a record belongs to. */
export type RecordOwner = "own" | "adopted";

export interface Spool {
  /** Appends records under the `own` owner and applies outcomes, in ONE transaction; returns the new record ids. */
  append(records: readonly SpoolRecordInput[], outcomes?: readonly BatchOutcome[]): number[];
  /**
   * Atomically removes the records (only those still held by `owner`) and stores
   * the batch leased by this instance. `build(kept)` is called inside the
   * transaction with the kept indexes, so a batch never holds a record twice.
   */
  seal(
    recordIds: readonly number[],
    owner: RecordOwner,
    build: (kept: number[]) => SpoolBatchInput,
  ): SealResult;
  /** Leases up to `limit` claimable batches (pending, or leased with an expired lease), oldest first. */
  claim(limit: number): SpoolBatch[];
  /** A batch this instance leases, with its body; null if it is gone or no longer ours. */
  load(id: string): SpoolBatch | null;
  /** Applies delivery outcomes: delivered → deleted; failed → `failed` (if still leased by us). */
  complete(outcomes: readonly BatchOutcome[]): void;
  /** Heartbeat: keeps both owner ids alive and extends this instance's leases. */
  renew(): void;
  /**
   * Moves records of dead owners to `adopted`; returns how many. `sweep` also
   * takes records of owners no longer registered (a full scan: do it at open).
   */
  adopt(options?: { sweep?: boolean }): number;
  /** Unsealed records held by `adopted`, id > afterId, ascending. */
  readAdopted(afterId: number, limit: number): SpoolRecord[];
  /** Failed batches → pending; returns how many. */
  retryFailed(): number;
  /** Logical payload bytes (kept transactionally; equals status().bytes). */
  bytes(): number;
  status(): SpoolStatus;
  /** Releases leases (→ pending) and marks this instance dead so its records are adopted at once; closes. */
  close(): void;
}
