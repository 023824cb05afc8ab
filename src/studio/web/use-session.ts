/**
 * The page's view of the reader session: load, load more and refresh through
 * the API, rows kept sorted newest first, keys stable across grants. The
 * snapshot, busy and error live in the page's one reducer (lib/app-state.ts):
 * this hook does the I/O and the merging, and dispatches what came back.
 *
 * Invariants: rows of `more` are appended (the server never repeats a record);
 * a complete refresh replaces exactly the rows of its window; a partial refresh
 * is not merged (it would leave a hole) and stops auto-refresh.
 */
import { useCallback, useRef } from "preact/hooks";
import type { LoadResponse } from "../api-types.js";
import { ApiFailure, type ApiClient } from "./lib/api-client.js";
import type { AppAction, Busy, SessionState } from "./lib/app-state.js";
import { keyHash, toRows, type Row } from "./lib/rows.js";

const newestFirst = (a: Row, b: Row) => b.ts - a.ts || a.id - b.id;

export function useSession(api: ApiClient | null, dispatch: (a: AppAction) => void) {
  const seen = useRef(new Map<number, number>());
  const nextId = useRef(0);
  const current = useRef<SessionState | null>(null);

  /** A load or load more ends the request; a refresh tick was never shown as one. */
  const apply = (s: SessionState, how: "session-received" | "session-refreshed") => {
    current.current = s;
    dispatch({ type: how, session: s });
  };

  const base = (res: LoadResponse, rows: Row[], prev: SessionState | null): SessionState => ({
    loadId: res.loadId,
    from: res.from,
    to: res.to,
    rows,
    stats: res.stats,
    lastGrant: res.lastGrant,
    partial: res.kind === "refresh" && prev ? prev.partial : res.partial,
    complete: res.kind === "refresh" && prev ? prev.complete : res.complete,
    stoppedBy: res.kind === "refresh" && prev ? prev.stoppedBy : res.stoppedBy,
    skipped: (prev && res.kind !== "load" ? prev.skipped : 0) + res.skipped.length,
    unverified: [...(prev && res.kind !== "load" ? prev.unverified : []), ...res.unverified],
    unreadBefore:
      res.kind === "refresh" && prev
        ? prev.unreadBefore
        : res.cursor && !res.complete
          ? res.cursor.hourMs + 3_600_000
          : null,
    warning: res.lastError
      ? `Storage kept failing (${res.lastError}), so this grant stopped early; Load more retries from the same place, and \`stowage doctor\` checks the setup.`
      : (res.notice ?? null),
  });

  const run = useCallback(
    async (
      kind: Exclude<Busy, null>,
      call: () => Promise<LoadResponse>,
    ): Promise<LoadResponse | null> => {
      dispatch({ type: "request-started", kind });
      try {
        return await call();
      } catch (e) {
        const error = e instanceof ApiFailure ? e : new ApiFailure(0, "storage", String(e));
        dispatch({ type: "request-failed", error });
        return null;
      }
    },
    [dispatch],
  );

  const load = useCallback(
    async (from: number, to: number) => {
      if (!api) return;
      const res = await run("load", () => api.load(from, to));
      if (!res) return;
      seen.current = new Map();
      nextId.current = 0;
      const rows = toRows(res.records, 0, seen.current).sort(newestFirst);
      nextId.current = rows.length;
      apply(base(res, rows, null), "session-received");
    },
    [api, run],
  );

  const more = useCallback(async () => {
    const prev = current.current;
    if (!api || !prev) return;
    const res = await run("more", () => api.more(prev.loadId));
    if (!res) return;
    const added = toRows(res.records, nextId.current, seen.current);
    nextId.current += added.length;
    apply(base(res, prev.rows.concat(added).sort(newestFirst), prev), "session-received");
  }, [api, run]);

  /** Returns why auto-refresh must stop, or null to keep going. */
  const refresh = useCallback(async (): Promise<string | null> => {
    const prev = current.current;
    if (!api || !prev) return "nothing is loaded";
    let res: LoadResponse;
    try {
      res = await api.refresh(prev.loadId);
    } catch (e) {
      return e instanceof ApiFailure ? `${e.message}${e.hint ? ` (${e.hint})` : ""}` : String(e);
    }
    if (!res.complete || !res.window) {
      apply({ ...prev, stats: res.stats, lastGrant: res.lastGrant }, "session-refreshed");
      return "the refresh hit an allowance before reading the whole current hour; its records were not merged";
    }
    const w = res.window;
    const kept = prev.rows.filter((r) => r.ts < w.from || r.ts >= w.to);
    seen.current = new Map();
    for (const r of kept) {
      const h = keyHash(r.key);
      seen.current.set(h, (seen.current.get(h) ?? 0) + 1);
    }
    const added = toRows(res.records, nextId.current, seen.current);
    nextId.current += added.length;
    apply(base(res, kept.concat(added).sort(newestFirst), prev), "session-refreshed");
    return null;
  }, [api, dispatch]);

  return { load, more, refresh };
}
