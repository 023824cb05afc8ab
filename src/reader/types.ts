/**
 * The reader's public types (SPEC §5.2, §5.3): sources, queries, grants, results
 * and their stats. Studio and `stowage logs` consume only these.
 */
import type { ObjectLockSpec } from "../config/destination.js";
import type { Follow, FollowOptions } from "./follow.js";
import type { LogRecordLike } from "./record-like.js";

/** Per-grant allowances (SPEC §5.2); `studio.s3.*` in config overrides them. */
export interface GrantLimits {
  /** Object download bytes per grant. Default 16 MiB. */
  downloadBytes: number;
  /** LIST attempts per grant (retries count). Default 20. */
  listAttempts: number;
  /** GET attempts per grant (retries count). Default 64. */
  getAttempts: number;
  /** Records analysed per grant. Default 20,000. */
  records: number;
  /** Decoded bytes per grant. Default 25 MiB. */
  decodedBytes: number;
  /** Grants per session. Default 5. */
  maxGrants: number;
}

export type LimitName = keyof GrantLimits;

export interface QueryOptions {
  /** Inclusive start (Date, epoch ms or ISO string). */
  from: Date | number | string;
  /** Exclusive end. `to - from` must be at most 7 days. */
  to: Date | number | string;
  /** Runs on loaded records only; never widens what is fetched. */
  filter?: (record: LogRecordLike) => boolean;
  limits?: Partial<GrantLimits>;
  signal?: AbortSignal | undefined;
}

/** Where the next grant resumes: an hour, an object key in it, a line in that object. */
export interface ReaderCursor {
  hourMs: number;
  key: string | null;
  line: number;
}

export interface ReadStats {
  listRequests: number;
  getRequests: number;
  /** Observed payload bytes of GETs (compressed), not a bill. */
  downloadedBytes: number;
  decodedBytes: number;
  records: number;
  objectsRead: number;
  objectsSkipped: number;
  objectsCached: number;
  grantsUsed: number;
  maxGrants: number;
  partial: boolean;
  complete: boolean;
  /** The allowance that stopped the last grant, if one did. */
  stoppedBy: LimitName | null;
  /** Objects not downloaded because their key's [min, max] misses the range. */
  objectsPruned?: number;
  /** Attempts that repeated a failed LIST or GET (already counted in the requests). */
  retries?: number;
  /** Records returned after the time range and the filter (`records` counts records analysed). */
  recordsReturned?: number;
  /** Objects read whose records are served unverified (see `UnverifiedObject`). */
  objectsUnverified?: number;
}

/** Why an object (or part of one) was not loaded. */
export interface SkippedObject {
  key: string;
  reason:
    | "too-large"
    | "corrupt-gzip"
    | "checksum"
    | "truncated"
    | "not-json"
    | "foreign-format"
    | "changed"
    | "error";
  detail: string;
  /** Lines that could not be parsed, when the reason is `not-json`. */
  lines?: number;
}

/**
 * An object whose records are served but that `stowage verify` would flag from what its
 * GET shows: no stored SHA-256 (the writer always sends one), or — when the source knows
 * the config's `objectLock` — no lock, another mode, or a retention too short
 * (docs/retention.md). Its records are returned as usual; this says they are not proven
 * intact. An object whose bytes fail their checksum is skipped instead (`checksum`).
 */
export interface UnverifiedObject {
  key: string;
  problems: string[];
  /** Records of this grant that came from it (after the range and the filter). */
  records: number;
}

/** What the reader checks each object against besides its own checksum. */
export interface VerificationOptions {
  /** The Object Lock the writer's config asks for: an object read without it is unverified. */
  objectLock?: ObjectLockSpec;
}

export interface LoadResult {
  /** Records of this grant (filtered), newest objects first; stable order. */
  records: LogRecordLike[];
  /** Cumulative over the session. */
  stats: ReadStats;
  partial: boolean;
  complete: boolean;
  skipped: SkippedObject[];
  /** Objects whose records are in `records` but not proven intact. */
  unverified: UnverifiedObject[];
  cursor: ReaderCursor | null;
  /** The last retried storage failure of this grant (code and status, never a secret). */
  lastError?: string;
  /** Why nothing was loaded, e.g. every grant of the session is used. */
  notice?: string;
}

/** Per-call options of `load()` / `more()`. */
export interface GrantCallOptions {
  /** Aborts this grant (with the query's own signal, whichever fires first): its LISTs/GETs stop at once. */
  signal?: AbortSignal | undefined;
}

export interface ReaderSession {
  load(options?: GrantCallOptions): Promise<LoadResult>;
  more(options?: GrantCallOptions): Promise<LoadResult>;
  readonly stats: ReadStats;
}

export interface Source {
  /** `s3://bucket/prefix` or `file:///dir/prefix` — never credentials. */
  readonly description: string;
  query(options: QueryOptions): ReaderSession;
  /** The first read of `[from, now]`, then polls of the newest hours for new objects (follow.ts). */
  follow(options: FollowOptions): Follow;
  close(): void;
}
