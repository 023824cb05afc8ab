/**
 * The JSON shapes of Studio's HTTP API, shared by the server and the web UI
 * (type-only: the UI imports these without pulling in any server code).
 */
import type {
  GrantLimits,
  LimitName,
  ReaderCursor,
  ReadStats,
  SkippedObject,
  UnverifiedObject,
} from "../reader/types.js";
import type { LogRecordLike } from "../reader/record-like.js";

export type {
  GrantLimits,
  LimitName,
  LogRecordLike,
  ReaderCursor,
  ReadStats,
  SkippedObject,
  UnverifiedObject,
};

/** Longest range one load may cover (SPEC §5.2). */
export const MAX_RANGE_MS = 7 * 24 * 3600_000;

/** GET /api/info — what Studio is attached to; never credentials or raw S3 settings. */
export interface InfoResponse {
  app: "stowage-studio";
  version: string;
  /** `s3://bucket/prefix` or the local store's path. */
  source: string;
  project: { attached: boolean; name?: string; path?: string };
  limits: GrantLimits;
  maxRangeMs: number;
  /** Server clock (epoch ms), so relative ranges match the server's idea of "now". */
  serverNow: number;
  /** The command that diagnoses storage problems for this source. */
  doctorCommand: string;
}

/** What one grant (the last load / more / refresh) used, against the per-grant allowances. */
export interface GrantUsage {
  listRequests: number;
  getRequests: number;
  downloadedBytes: number;
  decodedBytes: number;
  records: number;
}

/** POST /api/load, /api/more, /api/refresh. */
export interface LoadResponse {
  /** Identifies the session; `more`/`refresh` must name it. */
  loadId: number;
  kind: "load" | "more" | "refresh";
  from: number;
  to: number;
  /** For `refresh`: the window these records replace, `[from, to)`. */
  window?: { from: number; to: number };
  records: LogRecordLike[];
  /** Session totals (main session plus refreshes). */
  stats: ReadStats;
  lastGrant: GrantUsage;
  partial: boolean;
  complete: boolean;
  stoppedBy: LimitName | null;
  skipped: SkippedObject[];
  /** Objects whose records are in `records` but not proven intact (no checksum, lock missing). */
  unverified: UnverifiedObject[];
  /** Where the next grant resumes (null when complete): hours older than `cursor.hourMs + 1 h` are not fully read. */
  cursor: ReaderCursor | null;
  /** The last retried storage failure of the grant (code and status only), when storage kept failing. */
  lastError?: string;
  /** Why nothing was loaded, when the reader says so. */
  notice?: string;
}

export type ApiErrorCategory =
  | "auth"
  | "bucket-not-found"
  | "wrong-region"
  | "connectivity"
  | "range"
  | "bad-request"
  | "allowance"
  | "busy"
  | "stale"
  | "token"
  | "host"
  | "origin"
  | "not-found"
  | "storage";

/** Every non-2xx JSON answer. `message` says what is wrong, `hint` how to fix it. */
export interface ApiError {
  error: { category: ApiErrorCategory; message: string; hint?: string };
}

export type SourceContextReason =
  | "no-project"
  | "outside-project"
  | "not-found"
  | "not-source"
  | "too-large"
  | "no-caller"
  /** A stowage config file: it may hold credentials, so it is never shown. */
  | "sensitive";

/** GET /api/source-context?caller=path:line (or &stack=…). */
export type SourceContextResponse =
  | {
      ok: true;
      /** Path relative to the project. */
      file: string;
      line: number;
      /** Line number of `lines[0]`. */
      startLine: number;
      lines: string[];
      language: string;
    }
  | { ok: false; reason: SourceContextReason; detail: string };
