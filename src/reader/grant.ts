/**
 * One grant (SPEC §5.2): the allowances of a single load or "load more", and
 * the session's cumulative counters it charges.
 * Invariants:
 * - nothing is charged past an allowance: callers ask `has()` / `take()` first,
 *   so a grant never costs more than its limits say;
 * - `stoppedBy` is set once, by the first allowance that ran out;
 * - `progressed` turns true at the first object finished or line delivered, so
 *   a grant that cannot make any progress is told apart from one that is full.
 */
import type { GrantLimits, LimitName, ReadStats } from "./types.js";

/** The allowances a grant spends (everything but `maxGrants`). */
export type Allowance = Exclude<LimitName, "maxGrants">;

/** Cumulative stats plus the reader's optional extras (all counters start at 0). */
export type SessionStats = ReadStats & {
  objectsPruned: number;
  retries: number;
  recordsReturned: number;
  objectsUnverified: number;
};

export function emptyStats(maxGrants: number): SessionStats {
  return {
    listRequests: 0,
    getRequests: 0,
    downloadedBytes: 0,
    decodedBytes: 0,
    records: 0,
    objectsRead: 0,
    objectsSkipped: 0,
    objectsCached: 0,
    grantsUsed: 0,
    maxGrants,
    partial: false,
    complete: false,
    stoppedBy: null,
    objectsPruned: 0,
    retries: 0,
    recordsReturned: 0,
    objectsUnverified: 0,
  };
}

const STAT_OF: Record<
  Allowance,
  "listRequests" | "getRequests" | "downloadedBytes" | "records" | "decodedBytes"
> = {
  listAttempts: "listRequests",
  getAttempts: "getRequests",
  downloadBytes: "downloadedBytes",
  records: "records",
  decodedBytes: "decodedBytes",
};

/**
 * @example
 * const grant = new Grant(limits, stats);
 * if (!grant.take("listAttempts")) return grant.stop("listAttempts");
 */
export class Grant {
  private readonly used: Record<Allowance, number> = {
    listAttempts: 0,
    getAttempts: 0,
    downloadBytes: 0,
    records: 0,
    decodedBytes: 0,
  };
  stoppedBy: LimitName | null = null;
  progressed = false;
  /** Download bytes promised to GETs sent ahead of the decoder (released when they are read or dropped). */
  private reserved = 0;

  constructor(
    readonly limits: GrantLimits,
    readonly stats: SessionStats,
  ) {}

  remaining(name: Allowance): number {
    return this.limits[name] - this.used[name] - (name === "downloadBytes" ? this.reserved : 0);
  }

  /** Sets aside download bytes for a GET sent ahead; false (nothing reserved) when they do not fit. */
  reserve(bytes: number): boolean {
    if (!this.has("downloadBytes", bytes)) return false;
    this.reserved += bytes;
    return true;
  }

  release(bytes: number): void {
    this.reserved = Math.max(0, this.reserved - bytes);
  }

  has(name: Allowance, amount = 1): boolean {
    return this.remaining(name) >= amount;
  }

  /** Charges `amount` if it fits; false (and nothing charged) otherwise. */
  take(name: Allowance, amount = 1): boolean {
    if (!this.has(name, amount)) return false;
    this.charge(name, amount);
    return true;
  }

  /** Charges unconditionally (observed bytes of a download in flight, already bounded by the caller). */
  charge(name: Allowance, amount: number): void {
    this.used[name] += amount;
    this.stats[STAT_OF[name]] += amount;
  }

  usedOf(name: Allowance): number {
    return this.used[name];
  }

  /** Marks the grant stopped by `name` (the first call wins). */
  stop(name: LimitName): void {
    this.stoppedBy ??= name;
  }
}
