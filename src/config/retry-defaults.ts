/**
 * Every retry policy's defaults, in one place: attempts and backoff ceilings of delivery,
 * connectors, exports, verify, the reader and the browser client (the loop is
 * store/retry-policy.ts, the formula store/backoff.ts). Plain data with no imports: the
 * browser client's bundle takes its own entry.
 */

/** SPEC §3.5: one sealed batch's upload (`s3.delivery` in the config). */
export const DELIVERY_RETRY = { maxAttempts: 5, initialBackoffMs: 500, maxBackoffMs: 30_000 };

/** One batch of an OTLP/HTTP connector (docs/connectors.md): a side channel gives up sooner. */
export const CONNECTOR_RETRY = { maxAttempts: 3, initialBackoffMs: 500, maxBackoffMs: 5_000 };

/** Each storage call of an export (`tuning.max_attempts`), its validate and cleanup. */
export const EXPORT_RETRY = { maxAttempts: 4, initialBackoffMs: 200, maxBackoffMs: 5_000 };

/** Each storage call of `stowage compact` (its `maxAttempts` option overrides the count). */
export const COMPACT_RETRY = { maxAttempts: 5, initialBackoffMs: 200, maxBackoffMs: 5_000 };

/** Each LIST, HEAD and GET of `stowage verify`. */
export const VERIFY_RETRY = { maxAttempts: 5, initialBackoffMs: 200, maxBackoffMs: 5_000 };

/**
 * The reader: attempts are bounded by the grant's LIST and GET allowances, not here;
 * `initialBackoffMs` is the source's `retryBackoffMs`. A throttled read waits 4× longer.
 */
export const READER_RETRY = {
  maxAttempts: Number.POSITIVE_INFINITY,
  initialBackoffMs: 100,
  maxBackoffMs: 2_000,
  throttleFactor: 4,
};

/** `stowage/client` in the browser: sends of one record before it is dropped and counted. */
export const CLIENT_RETRY = { maxAttempts: 5, initialBackoffMs: 1_000, maxBackoffMs: 30_000 };

/** How much longer a wait's ceiling is after the server throttled (SlowDown, 429), unless a policy says. */
export const THROTTLE_FACTOR = 2;
