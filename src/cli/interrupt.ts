/**
 * SIGINT/SIGTERM as the AbortSignal of a long command (`run`): the first signal aborts
 * with the reason "interrupted by SIGINT" (the library names it in its message) and
 * its handler is gone, so a second signal stops the process at once; `dispose`
 * removes the handlers when the command ends.
 */
export interface Interrupt {
  signal: AbortSignal;
  dispose(): void;
}

/** @example const interrupt = onInterrupt(); try { await work(interrupt.signal); } finally { interrupt.dispose(); } */
export function onInterrupt(): Interrupt {
  const controller = new AbortController();
  const stop = (sig: NodeJS.Signals) => controller.abort(new Error(`interrupted by ${sig}`));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return {
    signal: controller.signal,
    dispose() {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    },
  };
}
