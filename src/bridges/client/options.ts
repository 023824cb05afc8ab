/**
 * `stowage/client` options, their defaults and checks, and the shape of
 * `stats()`. The byte limit is UTF-8 bytes, checked against the 64 KiB that
 * browsers allow keepalive and beacon bodies in flight.
 */
import { checkBridgeOptions } from "../shared/bridge-options.js";
import { LEVELS, type Level } from "../../shared/levels.js";
import { CLIENT_RETRY } from "../../config/retry-defaults.js";

/** Levels, least to most severe: the logger's own list (shared/levels.ts, no Node imports). */
export { LEVELS };
export type ClientLevel = Level;

/** Browsers refuse a keepalive fetch or a beacon past 64 KiB of body bytes in flight per page. */
export const KEEPALIVE_MAX_BYTES = 64 * 1024;

export interface ClientOptions {
  /** The ingestion endpoint (`createIngestHandler`). */
  url: string;
  /** The shared ingest token: a header with fetch, `?token=` with sendBeacon (which cannot set headers). */
  token?: string;
  /** Lowest level sent (default `info`). */
  level?: ClientLevel;
  /** Records kept while waiting to send (default 1,000); more are dropped and counted. */
  maxQueue?: number;
  /** Records per request (default 100). */
  maxBatch?: number;
  /**
   * UTF-8 bytes per request (default 60,000; at most 65,536: browsers cap keepalive and
   * beacon bodies at 64 KiB). A record larger than this alone is dropped and counted.
   */
  maxBatchBytes?: number;
  /** How often the queue is sent (default 5,000 ms). */
  flushIntervalMs?: number;
  /** Times a record is sent before it is dropped and counted (default 5). */
  maxAttempts?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Log uncaught errors and unhandled rejections (default false). */
  captureErrors?: boolean;
  /** Fields added to every record's `bindings` (page, release, …). */
  bindings?: Record<string, unknown>;
}

export type ResolvedClientOptions = Required<Omit<ClientOptions, "token" | "bindings">> &
  Pick<ClientOptions, "token" | "bindings">;

/** Counts of records since the client was created: each logged record is in exactly one, once its request is answered (until then it is `queued` or in flight). */
export interface ClientStats {
  /** Waiting to be sent (or sent again). */
  queued: number;
  /** The server answered that it accepted them. */
  accepted: number;
  /** The server answered that they are below its logger's level (valid, not stored). */
  filtered: number;
  /** The server refused them for good: invalid records, or the request (auth, origin, size). */
  refused: number;
  /** Never delivered: the queue was full, the record alone exceeds `maxBatchBytes`, or attempts ran out. */
  dropped: number;
  /** Handed to `sendBeacon` (or answered 2xx without counts): sent, but no answer says what became of them. */
  unconfirmed: number;
  /** Times a record was put back to be sent again (refused for capacity, 429, 5xx, network error). */
  retried: number;
  /** `sendBeacon` calls the browser took. */
  beacons: number;
}

const CLIENT_OPTION_KEYS = [
  "url",
  "token",
  "level",
  "maxQueue",
  "maxBatch",
  "maxBatchBytes",
  "flushIntervalMs",
  "maxAttempts",
  "initialBackoffMs",
  "maxBackoffMs",
  "captureErrors",
  "bindings",
];

/** @example resolveClientOptions({ url: "/ingest" }).maxBatchBytes // 60000 */
export function resolveClientOptions(options: ClientOptions): ResolvedClientOptions {
  checkBridgeOptions("stowage/client", options, CLIENT_OPTION_KEYS);
  const o = {
    level: "info" as ClientLevel,
    maxQueue: 1000,
    maxBatch: 100,
    maxBatchBytes: 60_000,
    flushIntervalMs: 5000,
    ...CLIENT_RETRY,
    captureErrors: false,
    ...options,
  };
  if (typeof o.url !== "string" || o.url.length === 0)
    throw new Error("stowage/client: `url` (the ingestion endpoint) is required");
  if (!(o.maxBatchBytes > 0 && o.maxBatchBytes <= KEEPALIVE_MAX_BYTES))
    throw new Error(
      `stowage/client: \`maxBatchBytes\` must be 1..${KEEPALIVE_MAX_BYTES} (browsers refuse keepalive and beacon bodies past 64 KiB), got ${o.maxBatchBytes}`,
    );
  return o;
}
