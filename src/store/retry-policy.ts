/**
 * The one retry policy (DESIGN.md "Errors"): which classified storage errors are
 * retried, how long to wait before the next attempt, and the loop that does it.
 * Delivery, the reader and exports all retry through here; the store itself makes
 * a single attempt per call so every attempt is counted by its caller.
 *
 * Backoff is exponential with full jitter (SPEC §3.5): attempt n (n ≥ 1, the one
 * that just failed) waits U(0, min(maxBackoffMs, initialBackoffMs · 2^(n-1)) · f)
 * where f = throttleFactor when the server throttled (SlowDown/429), else 1.
 * A server's `Retry-After` is honoured as a floor, capped at maxBackoffMs · f.
 * Waits use `sleep()` (ref'd: pending work keeps the process alive) and abort
 * with the caller's signal.
 */
import { sleep } from "../shared/abort.js";
import { classifyError, type ClassifiedError } from "./classify-error.js";

export interface RetryPolicyOptions {
  /** Attempts in total, first included (≥ 1). */
  maxAttempts: number;
  /** Ceiling of the first wait, doubled per attempt. */
  initialBackoffMs: number;
  /** Cap on a wait's ceiling (before the throttle factor). */
  maxBackoffMs: number;
  /** Multiplier on the ceiling when the server throttled (default 2). */
  throttleFactor?: number;
  /** Source of randomness in [0, 1) — inject for deterministic tests. */
  random?: () => number;
}

/** True for errors worth another attempt with the same request (throttling, 5xx, resets, timeouts). */
export function isRetryable(c: ClassifiedError): boolean {
  return c.kind === "retryable" || c.kind === "throttled";
}

/**
 * Wait before the attempt after `attempt` failed with `error`.
 * @example retryDelayMs({ maxAttempts: 5, initialBackoffMs: 500, maxBackoffMs: 30_000 }, 3, err) // in [0, 2000)
 */
export function retryDelayMs(
  policy: RetryPolicyOptions,
  attempt: number,
  error?: Pick<ClassifiedError, "kind" | "retryAfterMs">,
): number {
  const factor = error?.kind === "throttled" ? (policy.throttleFactor ?? 2) : 1;
  const cap = policy.maxBackoffMs * factor;
  const ceiling =
    Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** Math.max(0, attempt - 1)) * factor;
  const jittered = Math.floor((policy.random ?? Math.random)() * ceiling);
  const floor = error?.retryAfterMs !== undefined ? Math.min(cap, error.retryAfterMs) : 0;
  return Math.max(jittered, floor);
}

export interface RetryHooks {
  signal?: AbortSignal | undefined;
  /** Called before each wait, with the error that will be retried and the attempt that failed. */
  onRetry?: (error: ClassifiedError, attempt: number, delayMs: number) => void;
}

/** The result of `retrying()` when the call never succeeded. */
export class RetryExhausted extends Error {
  constructor(
    readonly error: ClassifiedError,
    readonly attempts: number,
    /** True when attempts ran out; false when the error was permanent (or the wait aborted). */
    readonly exhausted: boolean,
    override readonly cause: unknown,
  ) {
    super(error.message);
    this.name = "RetryExhausted";
  }
}

/**
 * Runs `call(attempt)` until it succeeds, the error is not retryable, attempts run
 * out, or the signal aborts. Throws the last error as thrown by `call` (so callers
 * keep their own error types); use `attemptWithRetry` to get a classified outcome.
 * @example const head = await withRetry(() => store.head(key), policy, { signal });
 */
export async function withRetry<T>(
  call: (attempt: number) => Promise<T>,
  policy: RetryPolicyOptions,
  hooks: RetryHooks = {},
): Promise<T> {
  const outcome = await attemptWithRetry(call, policy, hooks);
  if (outcome.ok) return outcome.value;
  throw outcome.cause;
}

export type RetryOutcome<T> =
  | { ok: true; value: T; attempts: number }
  | { ok: false; error: ClassifiedError; cause: unknown; attempts: number; exhausted: boolean };

/** Like `withRetry` but never throws: the outcome says what happened and how many attempts it took. */
export async function attemptWithRetry<T>(
  call: (attempt: number) => Promise<T>,
  policy: RetryPolicyOptions,
  hooks: RetryHooks = {},
): Promise<RetryOutcome<T>> {
  const max = Math.max(1, policy.maxAttempts);
  for (let attempt = 1; ; attempt++) {
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
