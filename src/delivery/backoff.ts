/** Exponential backoff with full jitter (SPEC §3.5): attempt n waits U(0, min(max, initial·2^(n-1))). */

/**
 * @example backoffMs(3, 500, 30_000) // somewhere in [0, 2000)
 */
export function backoffMs(
  attempt: number,
  initialMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}
