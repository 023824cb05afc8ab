/**
 * The backoff formula of the one retry policy, pure: no Node module, no clock, so the
 * browser client (bridges/client) runs the same arithmetic as delivery, exports and the
 * reader. The loop that waits is store/retry-policy.ts; defaults are config/retry-defaults.ts.
 *
 * Exponential with full jitter (SPEC §3.5): attempt n (n ≥ 1, the one that just failed)
 * waits U(0, min(maxBackoffMs, initialBackoffMs · 2^(n-1)) · f), where f = throttleFactor
 * when the server throttled (SlowDown/429), else 1. A server's `Retry-After` is a floor,
 * capped at maxBackoffMs · f.
 */
import { THROTTLE_FACTOR } from "../config/retry-defaults.js";

export interface BackoffOptions {
  /** Ceiling of the first wait, doubled per attempt. */
  initialBackoffMs: number;
  /** Cap on a wait's ceiling (before the throttle factor). */
  maxBackoffMs: number;
  /** Multiplier on the ceiling when the server throttled (default THROTTLE_FACTOR, 2). */
  throttleFactor?: number;
  /** Source of randomness in [0, 1) — inject for deterministic tests. */
  random?: () => number;
}

/** What the formula needs of a failure: whether it was throttled, and the server's Retry-After. */
export interface BackoffCause {
  kind: string;
  /** The server's `Retry-After`, in ms. */
  retryAfterMs?: number | undefined;
}

/**
 * Wait before the attempt after `attempt` failed with `error`.
 * @example retryDelayMs({ initialBackoffMs: 500, maxBackoffMs: 30_000 }, 3, { kind: "retryable" }) // in [0, 2000)
 */
export function retryDelayMs(
  policy: BackoffOptions,
  attempt: number,
  error?: BackoffCause,
): number {
  const factor = error?.kind === "throttled" ? (policy.throttleFactor ?? THROTTLE_FACTOR) : 1;
  const cap = policy.maxBackoffMs * factor;
  const ceiling =
    Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** Math.max(0, attempt - 1)) * factor;
  const jittered = Math.floor((policy.random ?? Math.random)() * ceiling);
  const floor = error?.retryAfterMs !== undefined ? Math.min(cap, error.retryAfterMs) : 0;
  return Math.max(jittered, floor);
}
