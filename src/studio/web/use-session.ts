/**
 * The page's view of the reader session: load, load more and refresh through
 * the API, rows kept sorted newest first, keys stable across grants.
 *
 * Invariants: rows of `more` are appended (the server never repeats a record);
 * a complete refresh replaces exactly the rows of its window; a partial refresh
 * is not merged (it would leave a hole) and stops auto-refresh.
 */
import { useCallback, useRef, useState } from "preact/hooks";
import type {
  GrantUsage,
  LimitName,
  LoadResponse,
  ReadStats,
  UnverifiedObject,
} from "../api-types.js";
import { ApiFailure, type ApiClient } from "./lib/api-client.js";
import { keyHash, toRows, type Row } from "./lib/rows.js";

export interface SessionState {
  loadId: number;
  from: number;
  to: number;
  rows: Row[];
  stats: ReadStats;
  lastGrant: GrantUsage;
  partial: boolean;
  complete: boolean;
  stoppedBy: LimitName | null;
  skipped: number;
  /** Objects whose records are shown but not proven intact (no checksum, lock missing). */
  unverified: UnverifiedObject[];
  /** Hours older than the end of this hour are not fully read yet (null when complete). */
  unreadBefore: number | null;
  /** What the last grant wants the user to know: storage kept failing, or why nothing loaded. */
  warning: string | null;
}

export type Busy = null | "load" | "more" | "refresh";

const newestFirst = (a: Row, b: Row) => b.ts - a.ts || a.id - b.id;

export function useSession(api: ApiClient | null) {
  const [state, setState] = useState<SessionState | null>(null);
  const [busy, setBusy] = useState<Busy>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const seen = useRef(new Map<number, number>());
  const nextId = useRef(0);
  const current = useRef<SessionState | null>(null);

  const apply = (s: SessionState) => {
    current.current = s;
    setState(s);
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
      setBusy(kind);
      setError(null);
      try {
        return await call();
      } catch (e) {
        setError(e instanceof ApiFailure ? e : new ApiFailure(0, "storage", String(e)));
        return null;
      } finally {
        setBusy(null);
      }
    },
    [],
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
      apply(base(res, rows, null));
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
    apply(base(res, prev.rows.concat(added).sort(newestFirst), prev));
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
      apply({ ...prev, stats: res.stats, lastGrant: res.lastGrant });
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
    apply(base(res, kept.concat(added).sort(newestFirst), prev));
    return null;
  }, [api]);

  return { state, busy, error, setError, load, more, refresh };
}
