/**
 * Uploads one sealed batch (SPEC §3.5) through the one retry policy
 * (store/retry-policy.ts): conditional create (`If-None-Match: *`), the same key
 * and bytes on every attempt, and the 412/304 rule — an "exists" answer is
 * confirmed by HEAD (size and `records` metadata) and counts as delivered; a
 * mismatch is permanent.
 *
 * Before a batch is called failed, the bucket is asked when any attempt's answer was
 * lost (a reset, a timeout, a dropped response, a 5xx other than 503): that attempt may
 * have landed, and a batch the bucket holds is delivered, not failed (issue 30 row 6).
 */
import { ClassifiedFailure, classifyError, type ClassifiedError } from "../store/classify-error.js";
import type { ObjectStore } from "../store/object-store.js";
import { attemptWithRetry, type RetryPolicyOptions } from "../store/retry-policy.js";
import type { ObjectLockSpec } from "../config/destination.js";
import { lockOption } from "../store/object-lock.js";
import type { SealedBatch } from "./sealed-batch.js";

/** The delivery retry settings (a RetryPolicyOptions), and the Object Lock every object gets. */
export type RetryOptions = RetryPolicyOptions & { objectLock?: ObjectLockSpec | undefined };

/**
 * The retention a batch is written with: its newest record's time plus the configured
 * days (rounded up to a second), and never less than an hour from `nowMs` — S3 refuses a
 * retention already past, which a back-dated record or a batch recovered late from a spool
 * would otherwise carry (issue 30 row 7). Retries may send a later date; the object keeps
 * at least the retention asked for.
 */
export function batchObjectLock(
  batch: SealedBatch,
  lock: ObjectLockSpec | undefined,
  nowMs: number = Date.now(),
): { objectLock?: { mode: ObjectLockSpec["mode"]; retainUntil: Date } } {
  return lockOption(batch.maxMs, lock, nowMs);
}

export type UploadOutcome =
  | { ok: true; via: "put" | "exists"; attempts: number }
  | { ok: false; error: ClassifiedError; attempts: number; exhausted: boolean };

type Signal = { signal?: AbortSignal | undefined };

/**
 * Uploads `batch`; never throws (aborts become a permanent `aborted` outcome).
 * @example const out = await uploadBatch(store, batch, { maxAttempts: 5, initialBackoffMs: 500, maxBackoffMs: 30_000 });
 */
export async function uploadBatch(
  store: ObjectStore,
  batch: SealedBatch,
  retry: RetryOptions,
  hooks: {
    onRetry?: (err: ClassifiedError, attempt: number, delayMs: number) => void;
    signal?: AbortSignal | undefined;
  } = {},
): Promise<UploadOutcome> {
  const signal: Signal = hooks.signal ? { signal: hooks.signal } : {};
  let answerLost = false;
  const outcome = await attemptWithRetry(
    async (): Promise<"put" | "exists"> => {
      try {
        await store.put(batch.key, batch.body, {
          ifNoneMatch: "*",
          contentType: "application/x-ndjson",
          contentEncoding: "gzip",
          metadata: batch.metadata,
          ...batchObjectLock(batch, retry.objectLock),
          ...signal,
        });
        return "put";
      } catch (err) {
        if (!isExists(err)) {
          if (mayHaveLanded(classifyError(err))) answerLost = true;
          throw err;
        }
        // A HEAD that fails transiently throws its own error: the whole attempt is retried.
        await confirmExisting(store, batch, signal);
        return "exists";
      }
    },
    retry,
    { ...signal, onRetry: (err, attempt, delayMs) => hooks.onRetry?.(err, attempt, delayMs) },
  );
  if (outcome.ok) return { ok: true, via: outcome.value, attempts: outcome.attempts };
  if (answerLost && outcome.error.category !== "aborted") {
    if (await bucketHolds(store, batch, retry, signal))
      return { ok: true, via: "exists", attempts: outcome.attempts };
  }
  return {
    ok: false,
    error: outcome.error,
    attempts: outcome.attempts,
    exhausted: outcome.exhausted,
  };
}

function isExists(err: unknown): boolean {
  return classifyError(err).kind === "exists";
}

/**
 * An attempt whose answer never came (or came as a server error after the body was
 * received) may have created the object. A 503 or 429 is a refusal before the write.
 */
function mayHaveLanded(c: ClassifiedError): boolean {
  if (c.kind === "throttled") return false;
  if (c.category === "connectivity") return true;
  return c.status !== undefined && c.status >= 500 && c.status !== 503;
}

/**
 * Asks the bucket (HEAD, through the same retry policy) whether an earlier attempt of this
 * batch landed. False when it did not, or when the bucket cannot say (the batch stays failed:
 * with the sqlite buffer it is kept and a re-armed upload settles it through the 412 rule).
 */
async function bucketHolds(
  store: ObjectStore,
  batch: SealedBatch,
  retry: RetryPolicyOptions,
  signal: Signal,
): Promise<boolean> {
  const asked = await attemptWithRetry(
    async () => {
      try {
        await confirmExisting(store, batch, signal);
        return true;
      } catch (err) {
        if (classifyError(err).category === "not-found") return false;
        throw err;
      }
    },
    retry,
    signal,
  );
  return asked.ok && asked.value;
}

/**
 * A 412/304 on a key with a unique batch id can only be an earlier attempt of
 * this batch whose response was lost. HEAD proves it: same size, same record count.
 */
async function confirmExisting(
  store: ObjectStore,
  batch: SealedBatch,
  signal: Signal,
): Promise<void> {
  const head = await store.head(batch.key, signal);
  if (head.size === batch.body.byteLength && head.metadata["records"] === String(batch.records))
    return;
  throw new ClassifiedFailure({
    kind: "permanent",
    category: "precondition",
    code: "ExistingObjectMismatch",
    message: `${batch.key} already exists with different content (size ${head.size}, records ${head.metadata["records"] ?? "?"}); it is never overwritten`,
  });
}
