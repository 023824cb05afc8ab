/**
 * Retries one storage call on retryable/throttled errors (the store itself makes
 * a single attempt: callers own retries). Full-jitter exponential backoff.
 */
import { sleep, throwIfAborted } from "../shared/abort.js";
import { classifyError } from "../store/classify-error.js";

export interface RetryOptions {
  /** Attempts in total (default 4). */
  maxAttempts?: number;
  /** First backoff ceiling (default 200 ms), doubling per attempt, capped at 5 s. */
  baseDelayMs?: number;
  signal?: AbortSignal;
}

/**
 * @example await withRetry(() => store.uploadPart(upload, 1, bytes), { signal });
 */
export async function withRetry<T>(call: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, options.maxAttempts ?? 4);
  const base = options.baseDelayMs ?? 200;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const kind = classifyError(err).kind;
      if (attempt >= attempts || (kind !== "retryable" && kind !== "throttled")) throw err;
      throwIfAborted(options.signal);
      const ceiling = Math.min(5000, base * 2 ** (attempt - 1)) * (kind === "throttled" ? 2 : 1);
      await sleep(Math.random() * ceiling, options.signal);
    }
  }
}
