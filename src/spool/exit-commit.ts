/**
 * The spool's process-end commit (issue 30 row 4): when the process ends by `process.exit()`,
 * an uncaught exception or a fatal signal, the main thread commits — synchronously, on a
 * connection of its own (better-sqlite3 is synchronous) — the record groups it accepted that
 * the worker has not committed yet: still queued on the main thread, or posted to the worker
 * and not confirmed. The next process adopts and delivers them (docs/spool.md, recovery).
 *
 * No duplicates — writer marks: each sqlite buffer is one *writer* (a random id) whose groups
 * carry sequence numbers 1, 2, 3… The `meta` row `groups:<writer>` holds the highest sequence
 * committed (`<seq>:<ms>`), written in the SAME transaction as the groups — by the worker for
 * each group commit (SqliteSpool.appendGroups), here for what this adds — and both skip groups
 * at or below it. SQLite's write lock serialises the two (busy timeout: this waits for a
 * worker transaction in progress), so each group is committed exactly once, whoever is first.
 *
 * The records are stored under an owner row of their own marked closed (expires_ms 0): any
 * live logger on the file adopts them at once — this process's own worker too when the app
 * handled the signal and lives on (the worker then reports those groups `transferred`).
 */
import { writeSync } from "node:fs";
import { hostname } from "node:os";
import { processIdentity } from "./owner-liveness.js";
import { bindSpoolDestination } from "./spool-destination.js";
import type { SqlDatabase } from "./sqlite-driver.js";
import { openSpoolDatabase } from "./sqlite-schema.js";

/** A record group of one writer, as the main thread keeps it until the worker confirms it. */
export interface PendingGroup {
  seq: number;
  lines: readonly string[];
  ts: readonly number[];
}

export interface ProcessEndCommit {
  path: string;
  /** The writer id (also the first part of its owner tokens). */
  writer: string;
  /** The destination identity (spool-destination.ts): never commit into a spool bound elsewhere. */
  destination: string | undefined;
  groups: readonly PendingGroup[];
}

/** The `meta` key of a writer's mark. */
export const markKey = (writer: string): string => `groups:${writer}`;

/** The sequence number in a stored mark (0 for none). */
export function markSeq(value: string | undefined): number {
  if (value === undefined) return 0;
  const seq = Number(value.slice(0, value.indexOf(":")));
  return Number.isSafeInteger(seq) ? seq : 0;
}

/** A mark as stored: `<seq>:<ms>` (the time lets an opener sweep marks of long-gone writers). */
export const formatMark = (seq: number, ms: number): string => `${seq}:${ms}`;

function insertGroups(db: SqlDatabase, job: ProcessEndCommit): number {
  const mark = markSeq(
    (
      db.prepare("SELECT value FROM meta WHERE key = ?").get(markKey(job.writer)) as
        { value: string } | undefined
    )?.value,
  );
  const todo = job.groups.filter((g) => g.seq > mark && g.lines.length > 0);
  if (todo.length === 0) return 0;
  const now = Date.now();
  const owner = Number(
    db
      .prepare(
        "INSERT INTO owners (token, pid, host, heartbeat_ms, expires_ms) VALUES (?, ?, ?, ?, 0)",
      )
      .run(`${job.writer}~${processIdentity()}`, process.pid, hostname(), now).lastInsertRowid,
  );
  const insert = db.prepare("INSERT INTO records (owner, ts_ms, line) VALUES (?, ?, ?)");
  let records = 0;
  let bytes = 0;
  for (const g of todo) {
    for (let i = 0; i < g.lines.length; i++) {
      insert.run(owner, Math.floor(g.ts[i]!), g.lines[i]);
      bytes += Buffer.byteLength(g.lines[i]!, "utf8") + 1;
      records++;
    }
  }
  db.prepare("UPDATE usage SET bytes = bytes + ? WHERE id = 1").run(bytes);
  const top = Math.max(...todo.map((g) => g.seq));
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)").run(
    markKey(job.writer),
    formatMark(top, now),
  );
  return records;
}

/**
 * Commits the groups the worker has not (see the module comment); returns how many records
 * this added. Synchronous; never throws: a failure is written to stderr (the process is ending,
 * there is no one else to tell) and the records are lost, as they would have been before.
 * @example commitAtProcessEnd({ path, writer, destination, groups: [{ seq: 7, lines, ts }] });
 */
export function commitAtProcessEnd(job: ProcessEndCommit): number {
  const pending = job.groups.reduce((n, g) => n + g.lines.length, 0);
  if (pending === 0) return 0;
  let db: SqlDatabase | undefined;
  try {
    // No quick_check: the worker checked the file at open, and the process is ending.
    db = openSpoolDatabase(job.path, { create: true, integrity: false }).db;
    db.exec("BEGIN IMMEDIATE");
    try {
      if (job.destination !== undefined) bindSpoolDestination(db, job.path, job.destination);
      const n = insertGroups(db, job);
      db.exec("COMMIT");
      return n;
    } catch (err) {
      try {
        db.exec("ROLLBACK");
      } catch {
        // already rolled back
      }
      throw err;
    }
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    try {
      writeSync(
        2,
        `stowage: ${pending} records accepted before the process ended could not be committed to the spool ${job.path}: ${why}\n`,
      );
    } catch {
      // stderr closed: nothing more to do
    }
    return 0;
  } finally {
    db?.close();
  }
}
