/**
 * Uploads one sealed batch (SPEC §3.5) through the one retry policy
 * (store/retry-policy.ts): conditional create (`If-None-Match: *`), the same key
 * and bytes on every attempt, and the 412/304 rule — an "exists" answer is
 * confirmed by HEAD (size and `records` metadata) and counts as delivered; a
 * mismatch is permanent.
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
 * The retention a batch is written with: its newest record's time plus the
 * configured days (rounded up to a second). It depends only on the batch (its
 * key carries max-ms), so every attempt — in this process, or in one that adopts
 * the batch from the spool after a crash — sends the same date.
 */
export function batchObjectLock(
  batch: SealedBatch,
  lock: ObjectLockSpec | undefined,
): { objectLock?: { mode: ObjectLockSpec["mode"]; retainUntil: Date } } {
  return lockOption(batch.maxMs, lock);
}

export type UploadOutcome =
  | { ok: true; via: "put" | "exists"; attempts: number }
  | { ok: false; error: ClassifiedError; attempts: number; exhausted: boolean };

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
  const signal = hooks.signal ? { signal: hooks.signal } : {};
  const lock = batchObjectLock(batch, retry.objectLock);
  const outcome = await attemptWithRetry(
    async (): Promise<"put" | "exists"> => {
      try {
        await store.put(batch.key, batch.body, {
          ifNoneMatch: "*",
          contentType: "application/x-ndjson",
          contentEncoding: "gzip",
          metadata: batch.metadata,
          ...lock,
          ...signal,
        });
        return "put";
      } catch (err) {
        if (!isExists(err)) throw err;
        // A HEAD that fails transiently throws its own error: the whole attempt is retried.
        await confirmExisting(store, batch, signal);
        return "exists";
      }
    },
    retry,
    { ...signal, onRetry: (err, attempt, delayMs) => hooks.onRetry?.(err, attempt, delayMs) },
  );
  if (outcome.ok) return { ok: true, via: outcome.value, attempts: outcome.attempts };
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
 * A 412/304 on a key with a unique batch id can only be an earlier attempt of
 * this batch whose response was lost. HEAD proves it: same size, same record count.
 */
async function confirmExisting(
  store: ObjectStore,
  batch: SealedBatch,
  signal: { signal?: AbortSignal | undefined },
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
