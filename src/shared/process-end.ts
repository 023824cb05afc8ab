/**
 * Synchronous work at the moment a process ends (issue 30 row 4): `process.exit()` and an
 * uncaught exception (both emit `'exit'`), and the fatal signals SIGTERM, SIGINT and SIGHUP
 * when the app has no handler of its own. A holder (the durable spool) registers a hook while
 * it has something to save; nothing is listened to on import or once every hook is gone.
 *
 * Rules:
 * - one process listener per event for every hook, installed with the first hook and removed
 *   with the last (no leaked listeners);
 * - hooks run synchronously, each at most once per event, and never throw;
 * - a fatal signal: after the hooks, if no other listener for that signal exists, ours removes
 *   itself and re-raises the signal (`process.kill(process.pid, sig)`), so the process dies
 *   exactly as it would have (killed by that signal). If the app handles the signal, the app
 *   decides: nothing is re-raised. Listeners of `signal-exit` (used by many libraries) are
 *   not an app's: it re-raises itself once it is alone, which it is after ours leaves.
 * - SIGKILL, an OOM kill or a power cut run no code at all: nothing here helps there.
 */

/** How the process is ending. */
export type ProcessEnd = { kind: "exit"; code: number } | { kind: "signal"; signal: FatalSignal };

/** A synchronous hook; it must do its work before returning. */
export type ProcessEndHook = (end: ProcessEnd) => void;

export const FATAL_SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
export type FatalSignal = (typeof FATAL_SIGNALS)[number];

const hooks = new Set<ProcessEndHook>();
let installed = false;

function run(end: ProcessEnd): void {
  for (const hook of [...hooks]) {
    try {
      hook(end);
    } catch {
      // A hook reports its own failure; the others still run and the process still ends.
    }
  }
}

function onExit(code: number): void {
  run({ kind: "exit", code });
}

/** Listeners `signal-exit` installed for each signal (one per loaded copy; it keeps the count on `process`). */
function signalExitListeners(): number {
  const emitter = (process as { __signal_exit_emitter__?: { count?: unknown } })
    .__signal_exit_emitter__;
  return typeof emitter?.count === "number" ? emitter.count : 0;
}

function onSignal(signal: FatalSignal): void {
  run({ kind: "signal", signal });
  const others = process.listenerCount(signal) - 1 - signalExitListeners();
  if (others > 0) return; // the app handles this signal: it decides how (and whether) to end
  process.off(signal, onSignal); // the default action is back (or signal-exit is alone now) …
  process.kill(process.pid, signal); // … and the process ends the way it would have
}

function install(): void {
  installed = true;
  process.on("exit", onExit);
  for (const s of FATAL_SIGNALS) process.on(s, onSignal);
}

function uninstall(): void {
  installed = false;
  process.off("exit", onExit);
  for (const s of FATAL_SIGNALS) process.off(s, onSignal);
}

/**
 * Runs `hook` synchronously when the process ends by `process.exit()`, an uncaught exception
 * or a fatal signal without an app handler. Returns the function that removes it (idempotent).
 * @example
 * const off = onProcessEnd(() => commitWhatIsQueued());
 * // … at close:
 * off();
 */
export function onProcessEnd(hook: ProcessEndHook): () => void {
  hooks.add(hook);
  if (!installed) install();
  return () => {
    if (hooks.delete(hook) && hooks.size === 0 && installed) uninstall();
  };
}
