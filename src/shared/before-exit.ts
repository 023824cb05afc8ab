/**
 * Work that must end before a process whose event loop ran dry exits (issue 30 row 5):
 * a script that logs and returns without `flush()` still delivers what it logged.
 *
 * Node emits `beforeExit` when nothing else keeps the loop alive; work scheduled from
 * it keeps the process running, and the event comes again when that work ends. Rules:
 * - one process listener for every holder, installed only while some drain is armed
 *   and removed when none is (no listener while nothing is pending, none on import);
 * - each armed drain runs once per `beforeExit`, then is disarmed: it is armed again only
 *   by new work (`arm()`), so a drain that cannot finish (a failed store) never turns the
 *   exit into a loop;
 * - `process.exit()`, fatal signals and uncaught exceptions do not emit `beforeExit`:
 *   they are another module's business (the durable spool's exit commit).
 */

/** A drain: resolves when the holder's pending work ended (delivered or failed). */
export type Drain = () => Promise<unknown>;

const armed = new Set<Drain>();
let listening = false;

function onBeforeExit(): void {
  const drains = [...armed];
  armed.clear();
  syncListener();
  for (const drain of drains) void drain().catch(() => {});
}

function syncListener(): void {
  if (armed.size > 0 && !listening) {
    process.on("beforeExit", onBeforeExit);
    listening = true;
  } else if (armed.size === 0 && listening) {
    process.off("beforeExit", onBeforeExit);
    listening = false;
  }
}

/**
 * Runs `drain` if the event loop runs dry before `disarmBeforeExit(drain)` is called.
 * Idempotent; cheap enough to call whenever work is added.
 * @example armBeforeExit(drainMine); // on the first pending record
 */
export function armBeforeExit(drain: Drain): void {
  if (armed.has(drain)) return;
  armed.add(drain);
  syncListener();
}

/** Nothing is pending any more: the process may exit without running `drain`. */
export function disarmBeforeExit(drain: Drain): void {
  if (armed.delete(drain)) syncListener();
}
