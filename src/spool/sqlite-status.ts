/**
 * Spool inspection and re-arming (SPEC §4): `getS3SpoolStatus` and
 * `retryS3Spool`, public through `stowage/spool`, and the SQL behind
 * SqliteSpool.status()/retryFailed(). Neither ever creates a spool file.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { spoolFailure, type SqlDatabase } from "./sqlite-driver.js";
import { openSpoolDatabase } from "./sqlite-schema.js";
import { ownerState, type OwnerState } from "./owner-liveness.js";
import type { SpoolStatus } from "./spool.js";

/** One writer of the spool as `spool status` reports it. */
export interface SpoolOwnerStatus {
  pid: number;
  host: string;
  /** live; dead-pid (same host, process gone or pid reused); lease-expired; closed (left records). */
  state: OwnerState;
  /** ms since its last heartbeat. */
  silentMs: number;
  /** Unsealed records it holds. */
  records: number;
  /** Batches it leases. */
  leasedBatches: number;
}

/** Owners grouped per spool instance (its `own` and `adopted` ids share a token), with their state now. */
export function readOwners(db: SqlDatabase, now: number = Date.now()): SpoolOwnerStatus[] {
  const rows = db
    .prepare(
      `SELECT o.token, o.pid, o.host, o.expires_ms, o.heartbeat_ms,
        (SELECT COUNT(*) FROM records r WHERE r.owner = o.id) AS records,
        (SELECT COUNT(*) FROM batches b WHERE b.state = 'leased' AND b.lease_owner = o.id) AS leased
       FROM owners o ORDER BY o.id`,
    )
    .all() as {
    token: string;
    pid: number;
    host: string;
    expires_ms: number;
    heartbeat_ms: number;
    records: number;
    leased: number;
  }[];
  const byToken = new Map<string, SpoolOwnerStatus>();
  for (const r of rows) {
    const seen = byToken.get(r.token);
    if (seen) {
      seen.records += r.records;
      seen.leasedBatches += r.leased;
      continue;
    }
    byToken.set(r.token, {
      pid: r.pid,
      host: r.host,
      state: ownerState(r, now),
      silentMs: Math.max(0, now - r.heartbeat_ms),
      records: r.records,
      leasedBatches: r.leased,
    });
  }
  return [...byToken.values()];
}

const EMPTY: SpoolStatus = {
  records: 0,
  pending: 0,
  failed: 0,
  bytes: 0,
  leased: 0,
  pendingRecords: 0,
  failedRecords: 0,
};

/** Exact counts from one read snapshot (scans the records table: for tools, not hot paths). */
export function readStatus(db: SqlDatabase): SpoolStatus {
  db.exec("BEGIN");
  try {
    const r = db
      .prepare(
        "SELECT COUNT(*) AS n, COALESCE(SUM(length(CAST(line AS BLOB)) + 1), 0) AS bytes FROM records",
      )
      .get() as { n: number; bytes: number };
    const rows = db
      .prepare(
        "SELECT state, COUNT(*) AS n, COALESCE(SUM(records), 0) AS recs, COALESCE(SUM(length(body)), 0) AS bytes FROM batches GROUP BY state",
      )
      .all() as { state: string; n: number; recs: number; bytes: number }[];
    const out: SpoolStatus = { ...EMPTY, records: r.n, bytes: r.bytes };
    for (const row of rows) {
      out.bytes += row.bytes;
      if (row.state === "failed") {
        out.failed += row.n;
        out.failedRecords += row.recs;
      } else {
        out.pending += row.n;
        out.pendingRecords += row.recs;
        if (row.state === "leased") out.leased += row.n;
      }
    }
    return out;
  } finally {
    db.exec("COMMIT");
  }
}

/** Inside a transaction: failed → pending, attempts kept; returns how many. */
export function rearmFailed(db: SqlDatabase): number {
  return db
    .prepare(
      "UPDATE batches SET state = 'pending', lease_owner = NULL, lease_until_ms = NULL, failure = NULL WHERE state = 'failed'",
    )
    .run().changes;
}

function expand(path: string): string {
  return path === "~" || path.startsWith("~/") ? join(homedir(), path.slice(1)) : resolve(path);
}

/**
 * Counts what a durable spool holds: unsealed `records`, `pending` and `failed`
 * batches, and `bytes` of logical payload (plus per-state record counts).
 * Opens the file read-only; throws StowageError("not-found") when there is no
 * spool at `path`, StowageError("spool") when the file is not one. `owners` names
 * each writer and its state (live / dead-pid / lease-expired / closed).
 * @example
 * import { getS3SpoolStatus } from "stowage/spool";
 * const { records, pending, failed, bytes } = await getS3SpoolStatus("/var/lib/app/spool.db");
 */
export async function getS3SpoolStatus(
  path: string,
): Promise<SpoolStatus & { owners: SpoolOwnerStatus[] }> {
  const file = expand(path);
  try {
    const { db, empty } = openSpoolDatabase(file, { create: false, readonly: true });
    try {
      return empty ? { ...EMPTY, owners: [] } : { ...readStatus(db), owners: readOwners(db) };
    } finally {
      db.close();
    }
  } catch (err) {
    throw spoolFailure(err, file);
  }
}

/**
 * Re-arms every `failed` batch (→ pending) so the next logger on this spool
 * delivers it. Fix the cause first (credentials, bucket, region); batches keep
 * their key and bytes, so a retry can never duplicate an object.
 * @example
 * import { retryS3Spool } from "stowage/spool";
 * const { rearmed } = await retryS3Spool("/var/lib/app/spool.db");
 */
function rollback(db: SqlDatabase): void {
  try {
    db.exec("ROLLBACK");
  } catch {
    // no transaction is active any more (SQLite ended it with the error)
  }
}

export async function retryS3Spool(path: string): Promise<{ rearmed: number }> {
  const file = expand(path);
  let opened: ReturnType<typeof openSpoolDatabase>;
  try {
    opened = openSpoolDatabase(file, { create: false });
  } catch (err) {
    throw spoolFailure(err, file);
  }
  const { db, empty } = opened;
  try {
    if (empty) return { rearmed: 0 };
    db.exec("BEGIN IMMEDIATE");
    try {
      const rearmed = rearmFailed(db);
      db.exec("COMMIT");
      return { rearmed };
    } catch (err) {
      rollback(db); // a full disk has already rolled it back: the cause is `err`, not this
      throw spoolFailure(err, file);
    }
  } finally {
    db.close();
  }
}
