/**
 * The one retry loop (DESIGN.md "Errors"): which classified storage errors are
 * retried, and the loop that waits and tries again. Delivery, connectors, the reader,
 * exports and verify all retry through here; the store itself makes a single attempt
 * per call so every attempt is counted by its caller. The wait is store/backoff.ts's
 * formula (full jitter, longer when throttled, `Retry-After` as a floor); defaults live in
 * config/retry-defaults.ts.
 *
 * Waits use `sleep()` (ref'd: pending work keeps the process alive) and abort with the
 * caller's signal. This is the only loop that sleeps between attempts (lint:
 * `stowage/one-retry-loop`).
 */
import { sleep } from "../shared/abort.js";
import { retryDelayMs, type BackoffOptions } from "./backoff.js";
import { classifyError, type ClassifiedError } from "./classify-error.js";

export { retryDelayMs };

export interface RetryPolicyOptions extends BackoffOptions {
  /** Attempts in total, first included (≥ 1). */
  maxAttempts: number;
}

/** True for errors worth another attempt with the same request (throttling, 5xx, resets, timeouts). */
export function isRetryable(c: ClassifiedError): boolean {
  return c.kind === "retryable" || c.kind === "throttled";
}

/** `S`: what `beforeAttempt` answers instead of an attempt (never, without the hook). */
export interface RetryHooks<S = never> {
  signal?: AbortSignal | undefined;
  /** Called before each wait, with the error that will be retried and the attempt that failed. */
  onRetry?: (error: ClassifiedError, attempt: number, delayMs: number) => void;
  /**
   * Called before each attempt is sent, the first included: the place to charge it to a
   * budget (the reader's grant). Returning a value ends the loop without sending; the
   * outcome is `{ ok: true, value, stopped: true }` with the attempts sent before.
   */
  beforeAttempt?: (attempt: number) => S | undefined;
}

export type RetryOutcome<T> =
  | { ok: true; value: T; attempts: number; stopped?: true }
  | { ok: false; error: ClassifiedError; cause: unknown; attempts: number; exhausted: boolean };

/**
 * Runs `call(attempt)` until it succeeds, the error is not retryable, attempts run
 * out, or the signal aborts. Throws the last error as thrown by `call` (so callers
 * keep their own error types); use `attemptWithRetry` to get a classified outcome.
 * @example const head = await withRetry(() => store.head(key), policy, { signal });
 */
export async function withRetry<T, S = never>(
  call: (attempt: number) => Promise<T>,
  policy: RetryPolicyOptions,
  hooks: RetryHooks<S> = {},
): Promise<T | Exclude<S, undefined>> {
  const outcome = await attemptWithRetry(call, policy, hooks);
  if (outcome.ok) return outcome.value;
  throw outcome.cause;
}

/**
 * Like `withRetry` but never throws: the outcome says what happened and how many attempts it took.
 * @example const out = await attemptWithRetry(() => store.put(key, body), policy, { onRetry }); if (!out.ok) out.error.category;
 */
export async function attemptWithRetry<T, S = never>(
  call: (attempt: number) => Promise<T>,
  policy: RetryPolicyOptions,
  hooks: RetryHooks<S> = {},
): Promise<RetryOutcome<T | Exclude<S, undefined>>> {
  const max = Math.max(1, policy.maxAttempts);
  for (let attempt = 1; ; attempt++) {
    const stop = hooks.beforeAttempt?.(attempt);
    if (stop !== undefined)
      return {
        ok: true,
        value: stop as Exclude<S, undefined>,
        attempts: attempt - 1,
        stopped: true,
      };
    try {
      return { ok: true, value: await call(attempt), attempts: attempt };
    } catch (err) {
      const error = classifyError(err);
      if (!isRetryable(error))
        return { ok: false, error, cause: err, attempts: attempt, exhausted: false };
      if (attempt >= max)
        return { ok: false, error, cause: err, attempts: attempt, exhausted: true };
      const delayMs = retryDelayMs(policy, attempt, error);
      hooks.onRetry?.(error, attempt, delayMs);
      try {
        await sleep(delayMs, hooks.signal);
      } catch (abortErr) {
        return {
          ok: false,
          error: classifyError(abortErr),
          cause: abortErr,
          attempts: attempt,
          exhausted: false,
        };
      }
    }
  }
}
