/**
 * AbortSignal helpers and the one rule for waits (the lifetime rule):
 *
 *   A wait that stands between accepted work and its completion — a retry
 *   backoff, a queued batch waiting for an upload slot, a grant waiting to
 *   re-send a request — holds the process open (its timer is ref'd), so Node
 *   never exits in the middle of delivering, reading or exporting.
 *   A timer that only schedules optional work while nothing is pending
 *   (an idle flush interval, lease renewal, adoption polls, auto-refresh) is
 *   unref'd, so an idle logger never keeps a process alive.
 *
 * `sleep()` follows the first half; `idleTimer()` the second. Nothing else in
 * src/ calls setTimeout/setInterval for waiting. (`Logger.logSoon` defers a record
 * to the end of the event-loop turn with a ref'd `setImmediate`: pending work;
 * `nextTurn()` likewise.)
 */
import { StowageError } from "./errors.js";

/**
 * Resolves on the next turn of the event loop (a ref'd `setImmediate`), so I/O
 * callbacks and timers run between stretches of synchronous work (SQLite reads).
 * @example for (const page of pages) { work(page); await nextTurn(); }
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Throws a StowageError("aborted") if the signal is already aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new StowageError("aborted", "the operation was aborted", { cause: signal.reason });
}

/**
 * Resolves after `ms`, or rejects with an "aborted" error when `signal` fires.
 * The timer is ref'd: pending work keeps the process alive (lifetime rule above).
 * @example await sleep(backoff, signal);
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new StowageError("aborted", "the operation was aborted"));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(new StowageError("aborted", "the operation was aborted"));
    }
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Calls `fn` after `ms` (or every `ms` with `repeat`) on an unref'd timer: for
 * optional work that must not keep an idle process alive. Returns a cancel function.
 * @example const stop = idleTimer(1000, () => renewLease(), { repeat: true });
 */
export function idleTimer(
  ms: number,
  fn: () => void,
  options: { repeat?: boolean } = {},
): () => void {
  const timer = options.repeat ? setInterval(fn, ms) : setTimeout(fn, ms);
  timer.unref?.();
  return () => (options.repeat ? clearInterval(timer) : clearTimeout(timer));
}
