/**
 * Spool inspection and re-arming (SPEC §4): `getS3SpoolStatus` and
 * `retryS3Spool`, public through `stowage/s3`, and the SQL behind
 * SqliteSpool.status()/retryFailed(). Neither ever creates a spool file.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { SqlDatabase } from "./sqlite-driver.js";
import { openSpoolDatabase } from "./sqlite-schema.js";
import type { SpoolStatus } from "./spool.js";

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
 * spool at `path`, StowageError("spool") when the file is not one.
 * @example
 * import { getS3SpoolStatus } from "stowage/s3";
 * const { records, pending, failed, bytes } = await getS3SpoolStatus("/var/lib/app/spool.db");
 */
export async function getS3SpoolStatus(path: string): Promise<SpoolStatus> {
  const { db, empty } = openSpoolDatabase(expand(path), { create: false, readonly: true });
  try {
    return empty ? { ...EMPTY } : readStatus(db);
  } finally {
    db.close();
  }
}

/**
 * Re-arms every `failed` batch (→ pending) so the next logger on this spool
 * delivers it. Fix the cause first (credentials, bucket, region); batches keep
 * their key and bytes, so a retry can never duplicate an object.
 * @example
 * import { retryS3Spool } from "stowage/s3";
 * const { rearmed } = await retryS3Spool("/var/lib/app/spool.db");
 */
export async function retryS3Spool(path: string): Promise<{ rearmed: number }> {
  const { db, empty } = openSpoolDatabase(expand(path), { create: false });
  try {
    if (empty) return { rearmed: 0 };
    db.exec("BEGIN IMMEDIATE");
    try {
      const rearmed = rearmFailed(db);
      db.exec("COMMIT");
      return { rearmed };
    } catch (err) {
      db.exec("ROLLBACK");
      throw err;
    }
  } finally {
    db.close();
  }
}
