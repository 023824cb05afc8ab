/**
 * Studio's page: one screen, one loaded snapshot shared by every view (list,
 * histogram, facets, errors, HTTP, AI context). Nothing is fetched from storage
 * before Load logs; the URL mirrors range, filters, tab and selection.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { InfoResponse } from "../api-types.js";
import { ApiClient, ApiFailure } from "./lib/api-client.js";
import { readUrlState, writeUrlState, PRESETS, type Preset, type Tab } from "./lib/url-state.js";
import { compileTerms, parseQuery, termToString, type Term } from "./lib/search.js";
import { deriveView } from "./lib/facets.js";
import { groupErrors, type ErrorGroup } from "./lib/error-groups.js";
import { httpFacts, httpStats } from "./lib/http-stats.js";
import { bucketise } from "./lib/histogram-data.js";
import { buildAiContext } from "./lib/ai-context.js";
import { allowanceSentence } from "./lib/budget.js";
import { fmtCount, fmtMinute, fmtSpan } from "./lib/format.js";
import { useSession } from "./use-session.js";
import { useKeys } from "./use-keys.js";
import { TopBar } from "./components/top-bar.js";
import { BudgetMeter } from "./components/budget-meter.js";
import { FacetRail } from "./components/facet-rail.js";
import { Histogram } from "./components/histogram.js";
import { RecordList } from "./components/record-list.js";
import { DetailDrawer } from "./components/detail-drawer.js";
import { ErrorsView } from "./components/errors-view.js";
import { HttpView } from "./components/http-view.js";
import { Banner, Toast } from "./components/banner.js";

const AUTO_REFRESH_MS = 30_000;

async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const ta = document.createElement("textarea");
    ta.value = text;
    ta.style.position = "fixed";
    ta.style.opacity = "0";
    document.body.appendChild(ta);
    ta.select();
    document.execCommand("copy");
    ta.remove();
  }
}

export function App(props: { token: string }) {
  const api = useMemo(() => new ApiClient(props.token), [props.token]);
  const initial = useMemo(() => readUrlState(location.search), []);
  const [info, setInfo] = useState<InfoResponse | null>(null);
  const [infoError, setInfoError] = useState<ApiFailure | null>(null);
  const [preset, setPreset] = useState<Preset | null>(initial.preset);
  const [custom, setCustom] = useState(initial.from !== null && initial.to !== null ? { from: initial.from, to: initial.to } : null);
  const [utc, setUtc] = useState(initial.utc);
  const [q, setQ] = useState(initial.q);
  const [qInput, setQInput] = useState(initial.q);
  const [chips, setChips] = useState<Term[]>(initial.chips);
  const [tab, setTab] = useState<Tab>(initial.tab);
  const [win, setWin] = useState(initial.view);
  const [openKey, setOpenKey] = useState<string | null>(initial.sel);
  const [cursor, setCursor] = useState(-1);
  const [auto, setAuto] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [toast, setToast] = useState<string | null>(null);
  const search = useRef<HTMLInputElement>(null);
  const session = useSession(api);
  const s = session.state;

  useEffect(() => {
    api.info().then(setInfo, (e: unknown) => setInfoError(e instanceof ApiFailure ? e : new ApiFailure(0, "network", String(e))));
  }, [api]);
  useEffect(() => {
    if (info) document.title = `Studio · ${info.source}`;
  }, [info]);

  // Search commits 150 ms after typing stops.
  useEffect(() => {
    const t = setTimeout(() => setQ(qInput), 150);
    return () => clearTimeout(t);
  }, [qInput]);

  const rangeProblem = useMemo(() => {
    if (preset) return null;
    if (!custom) return "choose a custom range";
    const span = custom.to - custom.from;
    if (!(span > 0)) return "the range is empty: the end must be after the start";
    if (span > PRESETS["7d"]) return `${fmtSpan(span)} selected: Studio loads at most 7 days at a time`;
    return null;
  }, [preset, custom]);

  const searchTerms = useMemo(() => parseQuery(q), [q]);
  const rows = s?.rows ?? [];
  const view = useMemo(() => deriveView({ rows, search: searchTerms, chips, window: win }), [rows, searchTerms, chips, win]);
  const histRows = useMemo(() => {
    if (!win) return view.visible;
    const a = compileTerms(searchTerms);
    const b = compileTerms(chips);
    return rows.filter((r) => a(r) && b(r));
  }, [rows, searchTerms, chips, win, view]);
  const hist = useMemo(() => (s ? bucketise(histRows, s.from, s.to) : null), [histRows, s?.from, s?.to]);
  const groups = useMemo(() => (s ? groupErrors(view.visible, { from: win?.from ?? s.from, to: win?.to ?? s.to }) : []), [view, s?.from, s?.to, win]);
  const hasHttp = useMemo(() => rows.slice(0, 3000).some((r) => httpFacts(r) !== null), [rows]);
  const http = useMemo(() => (tab === "http" ? httpStats(view.visible) : null), [tab, view]);
  const openRow = useMemo(() => (openKey ? (rows.find((r) => r.key === openKey) ?? null) : null), [rows, openKey]);
  const withDate = s ? s.to - s.from > 24 * 3600_000 : false;
  // The reader walks newest first: while partial, everything older than the oldest loaded record is unread.
  const unloadedBefore = useMemo(() => (s?.partial ? (s.rows.length ? s.rows[s.rows.length - 1]!.ts : s.to) : null), [s]);
  const showService = view.facets.service.length > 1;

  // Mirror the state into the URL (token kept: the link keeps working on this machine).
  useEffect(() => {
    const qs = writeUrlState({ preset, from: custom?.from ?? null, to: custom?.to ?? null, q, chips, sel: openKey, tab, view: win, utc }, props.token);
    history.replaceState(null, "", qs);
  }, [preset, custom, q, chips, openKey, tab, win, utc]);

  const doLoad = useCallback(() => {
    if (rangeProblem) return;
    const now = Date.now();
    const r = preset ? { from: now - PRESETS[preset], to: now } : custom!;
    setAuto(false);
    setNotice(null);
    setWin(null);
    setCursor(-1);
    void session.load(r.from, r.to);
  }, [preset, custom, rangeProblem, session.load]);

  const doMore = useCallback(() => {
    if (s?.partial && !session.busy) void session.more();
  }, [s?.partial, session.busy, session.more]);

  const toggleChip = useCallback((t: Term) => {
    setChips((cur) => {
      const same = cur.findIndex((c) => c.field === t.field && c.value === t.value);
      if (same >= 0 && cur[same]!.negate === t.negate) return cur.filter((_, i) => i !== same);
      const rest = same >= 0 ? cur.filter((_, i) => i !== same) : cur;
      return [...rest, t];
    });
    setCursor(-1);
  }, []);

  const copy = useCallback((text: string, what: string) => {
    void copyText(text).then(() => setToast(`Copied ${what} (${fmtCount(text.length)} characters)`));
  }, []);

  const copyAi = useCallback(() => {
    if (!s || !info) return;
    const text = buildAiContext({
      source: info.source, from: s.from, to: s.to, window: win, search: q, chips: chips.map(termToString),
      loaded: s.rows.length, stats: s.stats, partial: s.partial, stoppedBy: s.stoppedBy, limits: info.limits,
      visible: view.visible, selected: openRow, groups,
    });
    copy(text, "AI context");
  }, [s, info, win, q, chips, view, openRow, groups, copy]);

  const pick = useCallback((index: number, open: boolean) => {
    const row = view.visible[index];
    if (!row) return;
    setCursor(index);
    if (open) setOpenKey(row.key);
  }, [view]);

  useKeys({
    focusSearch: () => search.current?.focus(),
    move: (d) => {
      const n = view.visible.length;
      if (!n || tab !== "logs") return;
      const next = Math.max(0, Math.min(n - 1, (cursor < 0 ? -1 : cursor) + d));
      setCursor(next);
      if (openKey) setOpenKey(view.visible[next]!.key);
    },
    open: () => {
      const row = view.visible[cursor];
      if (row) setOpenKey(row.key);
    },
    close: () => setOpenKey(null),
    more: doMore,
  });

  // Auto-refresh: one grant per tick, paused while the tab is hidden, stopped when the allowance runs out.
  useEffect(() => {
    if (!auto) return;
    let timer: ReturnType<typeof setTimeout>;
    let last = Date.now();
    let stopped = false;
    const tick = async () => {
      if (stopped) return;
      if (document.hidden) return schedule();
      last = Date.now();
      const why = await session.refresh();
      if (why) {
        setAuto(false);
        setNotice(`Auto-refresh stopped: ${why}.`);
        return;
      }
      schedule();
    };
    const schedule = () => {
      clearTimeout(timer);
      timer = setTimeout(() => void tick(), Math.max(1000, AUTO_REFRESH_MS - (Date.now() - last)));
    };
    const onVis = () => {
      if (!document.hidden && Date.now() - last >= AUTO_REFRESH_MS) void tick();
    };
    document.addEventListener("visibilitychange", onVis);
    schedule();
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVis);
    };
  }, [auto, session.refresh]);

  if (infoError) return <Banner error={infoError} onClose={null} standalone />;
  if (!info) return <div class="empty-state"><span class="spinner" /></div>;

  const grantsLeft = info.limits.maxGrants - (s?.stats.grantsUsed ?? 0);
  const autoState = {
    on: auto,
    available: Boolean(s && s.complete && preset && grantsLeft > 0),
    why: !s ? "Load logs first." : !preset ? "Auto-refresh follows relative ranges (15m, 1h, …)." : !s.complete ? "Load the rest of the range first (Load more)." : grantsLeft <= 0 ? "No grants left in this session." : `Re-reads the current hour every 30 s; each refresh is one grant of this session (${grantsLeft} left). Pauses while this tab is hidden.`,
  };
  const logsEmpty = !s ? (
    <div class="empty-state" data-testid="empty">
      <div class="card">
        <h2>Nothing loaded yet</h2>
        <p>Choose a range and <b>Load logs</b>. No storage request is made until then.</p>
        <p>One load (a grant) may spend at most</p>
        <div class="allow">{allowanceSentence(info.limits)}</div>
        <p>and a session allows {info.limits.maxGrants} grants. Every number is shown above while you work.</p>
      </div>
    </div>
  ) : (
    <div class="empty-state" data-testid="empty">
      <div class="card">
        <h2>{rows.length ? "No records match" : "No records in this range"}</h2>
        <p>{rows.length ? "Clear a filter or the search to see more." : s.partial ? "Load more to continue reading the range." : `Nothing was logged between ${fmtMinute(s.from, utc)} and ${fmtMinute(s.to, utc)}${utc ? " UTC" : ""}.`}</p>
      </div>
    </div>
  );

  return (
    <div class="app">
      <TopBar
        source={info.source}
        project={info.project.attached ? (info.project.path ?? null) : null}
        preset={preset} custom={custom} utc={utc} rangeProblem={rangeProblem}
        busy={session.busy} canMore={Boolean(s?.partial)} auto={autoState}
        onPreset={(p) => setPreset(p)}
        onCustom={(r) => { setCustom(r); setPreset(null); }}
        onUtc={setUtc} onLoad={doLoad} onMore={doMore}
        onAuto={(on) => { setAuto(on); setNotice(null); }}
        onCopyAi={copyAi} canCopy={Boolean(s)}
      />
      <BudgetMeter
        limits={info.limits} stats={s?.stats ?? null} lastGrant={s?.lastGrant ?? null}
        partial={Boolean(s?.partial)} stoppedBy={s?.stoppedBy ?? null}
        loaded={rows.length} showing={view.visible.length} skipped={s?.skipped ?? 0} busy={session.busy !== null}
      />
      <div>
        {session.error && <Banner error={session.error} onClose={() => session.setError(null)} />}
        {notice && <Banner notice={notice} onClose={() => setNotice(null)} />}
      </div>
      <div class="body">
        <FacetRail facets={view.facets} chips={chips} onToggle={toggleChip} loaded={Boolean(s)} />
        <main class={`center${tab === "logs" ? "" : " no-hist"}`}>
          <div class="toolbar">
            <div class="tabs" role="tablist">
              <button type="button" role="tab" aria-selected={tab === "logs"} onClick={() => setTab("logs")} data-testid="tab-logs">Logs<span class="n">{s ? fmtCount(view.visible.length) : ""}</span></button>
              <button type="button" role="tab" aria-selected={tab === "errors"} onClick={() => setTab("errors")} data-testid="tab-errors">Errors<span class="n">{s ? fmtCount(groups.length) : ""}</span></button>
              {(hasHttp || tab === "http") && <button type="button" role="tab" aria-selected={tab === "http"} onClick={() => setTab("http")} data-testid="tab-http">HTTP</button>}
            </div>
            <div class="search">
              <svg class="icon" width="14" height="14" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2.2" aria-hidden="true"><circle cx="11" cy="11" r="7" /><path d="m20 20-3.5-3.5" /></svg>
              <input
                ref={search} value={qInput} data-testid="search"
                placeholder='Search: text, "a phrase", field:value, -field:value, level:>=warning'
                aria-label="Search loaded records"
                onInput={(e) => setQInput(e.currentTarget.value)}
                onKeyDown={(e) => { if (e.key === "Enter") setQ(qInput); if (e.key === "Escape") e.currentTarget.blur(); }}
              />
              {!qInput && <kbd>/</kbd>}
            </div>
            <div class="chips" data-testid="chips">
              {win && (
                <span class="chip" title="Histogram zoom (loaded data only)">
                  {fmtMinute(win.from, utc)} → {fmtMinute(win.to, utc)}
                  <button type="button" onClick={() => setWin(null)} aria-label="Clear zoom">×</button>
                </span>
              )}
              {chips.map((c) => (
                <span class={`chip${c.negate ? " neg" : ""}`} key={termToString(c)} data-chip={termToString(c)}>
                  {c.field === "fp" ? `${c.negate ? "not " : ""}group ${groupLabel(groups, c.value)}` : termToString(c)}
                  <button type="button" onClick={() => toggleChip(c)} aria-label={`Remove ${termToString(c)}`}>×</button>
                </span>
              ))}
            </div>
            <div class="grow" />
            <div class="help"><kbd>j</kbd><kbd>k</kbd> move <kbd>↵</kbd> open <kbd>l</kbd> more</div>
          </div>
          {tab === "logs" && (
            <>
              <Histogram data={s ? hist : null} window={win} utc={utc} onWindow={setWin} unloadedBefore={unloadedBefore} />
              {view.visible.length ? (
                <RecordList rows={view.visible} cursor={cursor} openKey={openKey} utc={utc} withDate={withDate} showService={showService} onPick={pick} />
              ) : (
                <>
                  <div />
                  {logsEmpty}
                </>
              )}
            </>
          )}
          {tab === "errors" && <ErrorsView groups={groups} utc={utc} withDate={withDate} loaded={Boolean(s)} onPick={(g) => { toggleChip({ field: "fp", value: g.id, negate: false }); setTab("logs"); }} />}
          {tab === "http" && http && <HttpView stats={http} loaded={Boolean(s)} />}
        </main>
        {openRow && <DetailDrawer row={openRow} api={api} onClose={() => setOpenKey(null)} onFilter={toggleChip} onCopy={copy} />}
      </div>
      {toast && <Toast text={toast} onDone={() => setToast(null)} />}
    </div>
  );
}

function groupLabel(groups: ErrorGroup[], id: string): string {
  const g = groups.find((x) => x.id === id);
  return g ? [g.name, g.message].filter(Boolean).join(": ").slice(0, 60) : id;
}
