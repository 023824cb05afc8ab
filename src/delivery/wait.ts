/** Waits for a promise with an optional timeout; the timeout never outlives the wait. */
import { sleep } from "../shared/abort.js";

/**
 * Resolves true if `p` settled first, false on timeout. Never rejects. The
 * timeout is a ref'd sleep (lifetime rule, shared/abort.ts), cancelled when `p` settles.
 * @example const done = await waitWithTimeout(sink.settled(), 5_000);
 */
export function waitWithTimeout(
  p: Promise<unknown>,
  timeoutMs: number | undefined,
): Promise<boolean> {
  const settled = p.then(
    () => true,
    () => true,
  );
  if (timeoutMs === undefined || !Number.isFinite(timeoutMs)) return settled;
  const cancel = new AbortController();
  const timeout = sleep(Math.max(0, timeoutMs), cancel.signal).then(
    () => false,
    () => true,
  );
  return Promise.race([settled, timeout]).finally(() => cancel.abort());
}
