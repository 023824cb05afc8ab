/**
 * Object Lock dates and checks, one home for the writers (log batches, export runs)
 * and the checkers (`stowage verify`, export validation): a retention counted from a
 * fixed moment, rounded up to the second S3 stores, and what is wrong with an
 * object's lock against the configured one.
 */
import type { ObjectLockSpec } from "../config/destination.js";
import type { ObjectInfo, ObjectLockMode } from "./object-store.js";

const DAY_MS = 86_400_000;

/**
 * `fromMs` + the configured days, rounded up to a second: the same inputs give the same
 * date, so every retry of a write sends an identical request.
 * @example lockUntil(Date.UTC(2026, 0, 1), { mode: "GOVERNANCE", retainDays: 1 }) // 2026-01-02T00:00:00Z
 */
export function lockUntil(fromMs: number, lock: ObjectLockSpec): Date {
  return new Date(Math.ceil((fromMs + lock.retainDays * DAY_MS) / 1000) * 1000);
}

/**
 * How far in the future a retention date must lie when a write is sent. S3 refuses a
 * retain-until date in the past (400 "must be in the future"); an hour covers a request
 * in flight and any sane clock skew between this host and the server.
 */
export const MIN_RETENTION_AHEAD_MS = 3_600_000;

/**
 * The `objectLock` put option for an object retained from `fromMs` ({} without a lock).
 * With `nowMs`, the date is at least MIN_RETENTION_AHEAD_MS after it: a record older than
 * its retention (back-dated, or recovered late from a spool) is still written, locked a
 * little longer than asked, never refused for a date already past.
 */
export function lockOption(
  fromMs: number,
  lock: ObjectLockSpec | undefined,
  nowMs?: number,
): { objectLock?: { mode: ObjectLockMode; retainUntil: Date } } {
  if (!lock) return {};
  let retainUntil = lockUntil(fromMs, lock);
  if (nowMs !== undefined) {
    const floor = Math.ceil((nowMs + MIN_RETENTION_AHEAD_MS) / 1000) * 1000;
    if (retainUntil.getTime() < floor) retainUntil = new Date(floor);
  }
  return { objectLock: { mode: lock.mode, retainUntil } };
}

/** Problems of an object's lock against the config: none, the wrong mode, or too short. */
export function lockProblems(info: ObjectInfo, until: Date, lock: ObjectLockSpec): string[] {
  if (!info.objectLock)
    return [`not locked (the config asks for ${lock.mode} until ${until.toISOString()})`];
  const out: string[] = [];
  if (info.objectLock.mode !== lock.mode)
    out.push(`locked in ${info.objectLock.mode} mode, the config asks for ${lock.mode}`);
  if (info.objectLock.retainUntil.getTime() < until.getTime())
    out.push(
      `locked only until ${info.objectLock.retainUntil.toISOString()}, required until ${until.toISOString()}`,
    );
  return out;
}
