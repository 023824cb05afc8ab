/**
 * Auto-refresh (SPEC §5.4): re-reads the current hour every 30 s as one more
 * grant of the session, pauses while the tab is hidden, and stops (saying why)
 * when a refresh is refused or the allowance runs out.
 */
import { useEffect, useRef } from "preact/hooks";

export const AUTO_REFRESH_MS = 30_000;

export interface AutoRefreshState {
  on: boolean;
  available: boolean;
  why: string;
}

/** Whether auto-refresh may run now, and the tooltip that explains it. */
export function autoRefreshState(
  on: boolean,
  s: { complete: boolean; grantsUsed: number } | null,
  relative: boolean,
  maxGrants: number,
): AutoRefreshState {
  const left = maxGrants - (s?.grantsUsed ?? 0);
  const why = !s
    ? "Load logs first."
    : !relative
      ? "Auto-refresh follows relative ranges (15m, 1h, …)."
      : !s.complete
        ? "Load the rest of the range first (Load more)."
        : left <= 0
          ? "No grants left in this session."
          : `Re-reads the current hour every 30 s; each refresh is one grant of this session (${left} left). Pauses while this tab is hidden.`;
  return { on, available: Boolean(s && s.complete && relative && left > 0), why };
}

/** Runs `refresh` while `on`; `refresh` resolves with a reason to stop, or null to go on. */
export function useAutoRefresh(
  on: boolean,
  refresh: () => Promise<string | null>,
  stop: (why: string) => void,
): void {
  const fns = useRef({ refresh, stop });
  fns.current = { refresh, stop };
  useEffect(() => {
    if (!on) return;
    let timer: ReturnType<typeof setTimeout>;
    let last = Date.now();
    let stopped = false;
    const schedule = () => {
      clearTimeout(timer);
      timer = setTimeout(() => void tick(), Math.max(1000, AUTO_REFRESH_MS - (Date.now() - last)));
    };
    const tick = async () => {
      if (stopped) return;
      if (document.hidden) return schedule();
      last = Date.now();
      const why = await fns.current.refresh();
      if (stopped) return;
      if (why) return fns.current.stop(why);
      schedule();
    };
    const onVisible = () => {
      if (!document.hidden && Date.now() - last >= AUTO_REFRESH_MS) void tick();
    };
    document.addEventListener("visibilitychange", onVisible);
    schedule();
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [on]);
}
