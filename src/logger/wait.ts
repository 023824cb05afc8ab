/** Waits for a promise with an optional timeout; the timer never outlives the wait. */

/** Resolves true if `p` settled first, false on timeout. Never rejects. */
export function waitWithTimeout(
  p: Promise<unknown>,
  timeoutMs: number | undefined,
): Promise<boolean> {
  const settled = p.then(
    () => true,
    () => true,
  );
  if (timeoutMs === undefined || !Number.isFinite(timeoutMs)) return settled;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, timeoutMs));
  });
  return Promise.race([settled, timeout]).finally(() => clearTimeout(timer));
}
