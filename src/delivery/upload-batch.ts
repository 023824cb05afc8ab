/**
 * Uploads one sealed batch with retries (SPEC §3.5): conditional create
 * (`If-None-Match: *`), the same key and bytes on every attempt, full-jitter
 * backoff, and the 412/304 rule — an "exists" answer is confirmed by HEAD
 * (size and `records` metadata) and counts as delivered; a mismatch is permanent.
 */
import { sleep } from "../shared/abort.js";
import { classifyError, type ClassifiedError } from "../store/classify-error.js";
import type { ObjectStore } from "../store/object-store.js";
import { backoffMs } from "./backoff.js";
import type { SealedBatch } from "./sealed-batch.js";

export interface RetryOptions {
  maxAttempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  random?: () => number;
}

export type UploadOutcome =
  | { ok: true; via: "put" | "exists"; attempts: number }
  | { ok: false; error: ClassifiedError; attempts: number; exhausted: boolean };

/** Uploads `batch`; never throws (aborts become a permanent `aborted` outcome). */
export async function uploadBatch(
  store: ObjectStore,
  batch: SealedBatch,
  retry: RetryOptions,
  hooks: { onRetry?: (err: ClassifiedError, attempt: number) => void; signal?: AbortSignal } = {},
): Promise<UploadOutcome> {
  let last: ClassifiedError | undefined;
  for (let attempt = 1; attempt <= retry.maxAttempts; attempt++) {
    try {
      await store.put(batch.key, batch.body, {
        ifNoneMatch: "*",
        contentType: "application/x-ndjson",
        contentEncoding: "gzip",
        metadata: batch.metadata,
        ...(hooks.signal ? { signal: hooks.signal } : {}),
      });
      return { ok: true, via: "put", attempts: attempt };
    } catch (err) {
      last = classifyError(err);
      if (last.kind === "exists") {
        const confirmed = await confirmExisting(store, batch, attempt, hooks.signal);
        if (confirmed.ok || confirmed.error.kind === "permanent") return confirmed;
        last = confirmed.error; // HEAD hit a transient error: retry the whole attempt
      }
      if (last.kind === "permanent")
        return { ok: false, error: last, attempts: attempt, exhausted: false };
      hooks.onRetry?.(last, attempt);
      if (attempt < retry.maxAttempts) {
        try {
          await sleep(
            backoffMs(attempt, retry.initialBackoffMs, retry.maxBackoffMs, retry.random),
            hooks.signal,
          );
        } catch (abortErr) {
          return { ok: false, error: classifyError(abortErr), attempts: attempt, exhausted: false };
        }
      }
    }
  }
  return { ok: false, error: last!, attempts: retry.maxAttempts, exhausted: true };
}

/**
 * A 412/304 on a key with a unique batch id can only be an earlier attempt of
 * this batch whose response was lost. HEAD proves it: same size, same record count.
 */
async function confirmExisting(
  store: ObjectStore,
  batch: SealedBatch,
  attempts: number,
  signal?: AbortSignal,
): Promise<UploadOutcome> {
  try {
    const head = await store.head(batch.key, signal ? { signal } : {});
    if (head.size === batch.body.byteLength && head.metadata["records"] === String(batch.records)) {
      return { ok: true, via: "exists", attempts };
    }
    return {
      ok: false,
      attempts,
      exhausted: false,
      error: {
        kind: "permanent",
        category: "precondition",
        code: "ExistingObjectMismatch",
        message: `${batch.key} already exists with different content (size ${head.size}, records ${head.metadata["records"] ?? "?"}); it is never overwritten`,
      },
    };
  } catch (err) {
    const c = classifyError(err);
    return { ok: false, error: c, attempts, exhausted: false };
  }
}
