/** AbortSignal helpers: every I/O call in Stowage takes a signal. */
import { StowageError } from "./errors.js";

/** Throws a StowageError("aborted") if the signal is already aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new StowageError("aborted", "the operation was aborted", { cause: signal.reason });
}

/** Resolves after `ms`, or rejects with an "aborted" error when `signal` fires. Timer is unref'd. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new StowageError("aborted", "the operation was aborted"));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    timer.unref?.();
    function onAbort() {
      clearTimeout(timer);
      reject(new StowageError("aborted", "the operation was aborted"));
    }
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
