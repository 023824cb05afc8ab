/**
 * Everything the views derive from the one loaded snapshot: the filtered list
 * and facets, the histogram, error groups, HTTP stats; plus idle-time warm-up
 * of the search haystacks so the first search over 100k rows is quick.
 */
import { useEffect, useMemo } from "preact/hooks";
import { compileTerms, parseQuery, type Term } from "./lib/search.js";
import { deriveView } from "./lib/facets.js";
import { groupErrors } from "./lib/error-groups.js";
import { httpFacts, httpStats } from "./lib/http-stats.js";
import { bucketise } from "./lib/histogram-data.js";
import { haystack, type Row } from "./lib/rows.js";
import type { Tab } from "./lib/url-state.js";
import type { SessionState } from "./lib/app-state.js";

export function useDerived(
  s: SessionState | null,
  q: string,
  chips: Term[],
  win: { from: number; to: number } | null,
  tab: Tab,
) {
  const searchTerms = useMemo(() => parseQuery(q), [q]);
  const rows = s?.rows ?? EMPTY;
  useWarmHaystacks(rows);
  const view = useMemo(
    () => deriveView({ rows, search: searchTerms, chips, window: win }),
    [rows, searchTerms, chips, win],
  );
  // The histogram shows the search and chips but not its own zoom, so the zoom can be moved.
  const histRows = useMemo(() => {
    if (!win) return view.visible;
    const a = compileTerms(searchTerms);
    const b = compileTerms(chips);
    return rows.filter((r) => a(r) && b(r));
  }, [rows, searchTerms, chips, win, view]);
  const hist = useMemo(
    () => (s ? bucketise(histRows, s.from, s.to) : null),
    [histRows, s?.from, s?.to],
  );
  const groups = useMemo(
    () =>
      s ? groupErrors(view.visible, { from: win?.from ?? s.from, to: win?.to ?? s.to }) : null,
    [view, s?.from, s?.to, win],
  );
  const hasHttp = useMemo(() => rows.slice(0, 3000).some((r) => httpFacts(r) !== null), [rows]);
  const http = useMemo(() => (tab === "http" ? httpStats(view.visible) : null), [tab, view]);
  // The reader walks hours newest first: while partial, hours before the end of the cursor's hour are not fully read.
  const unloadedBefore = s?.partial ? Math.min(s.unreadBefore ?? s.to, s.to) : null;
  return { rows, view, hist, groups, hasHttp, http, unloadedBefore };
}

const EMPTY: Row[] = [];

function useWarmHaystacks(rows: Row[]): void {
  useEffect(() => {
    let i = 0;
    let handle = 0;
    const idle = (cb: () => void) =>
      typeof requestIdleCallback === "function"
        ? requestIdleCallback(cb, { timeout: 500 })
        : window.setTimeout(cb, 16);
    const cancel = (h: number) =>
      typeof cancelIdleCallback === "function" ? cancelIdleCallback(h) : clearTimeout(h);
    const step = () => {
      const end = Math.min(rows.length, i + 4000);
      for (; i < end; i++) haystack(rows[i]!);
      if (i < rows.length) handle = idle(step);
    };
    handle = idle(step);
    return () => cancel(handle);
  }, [rows]);
}
