/**
 * Studio's page: one screen, one loaded snapshot shared by every view (list,
 * histogram, facets, errors, HTTP, AI context). Nothing is fetched from storage
 * before Load logs; the URL mirrors range, filters, tab and selection. This is
 * the composition root: state lives here, logic in use-*.ts and lib/.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { InfoResponse } from "../api-types.js";
import { ApiClient, ApiFailure } from "./lib/api-client.js";
import { readUrlState, writeUrlState, PRESETS, type Preset, type Tab } from "./lib/url-state.js";
import { termToString, type Term } from "./lib/search.js";
import { buildAiContext } from "./lib/ai-context.js";
import { copyText } from "./lib/clipboard.js";
import { fmtCount, fmtSpan } from "./lib/format.js";
import { useSession } from "./use-session.js";
import { useDerived } from "./use-derived.js";
import { useKeys } from "./use-keys.js";
import { autoRefreshState, useAutoRefresh } from "./use-auto-refresh.js";
import { TopBar } from "./components/top-bar.js";
import { BudgetMeter } from "./components/budget-meter.js";
import { FacetRail } from "./components/facet-rail.js";
import { Toolbar } from "./components/toolbar.js";
import { Histogram } from "./components/histogram.js";
import { RecordList } from "./components/record-list.js";
import { LogsEmpty } from "./components/empty-state.js";
import { DetailDrawer } from "./components/detail-drawer.js";
import { ErrorsView } from "./components/errors-view.js";
import { HttpView } from "./components/http-view.js";
import { Banner, Toast } from "./components/banner.js";

function rangeProblemOf(
  preset: Preset | null,
  custom: { from: number; to: number } | null,
): string | null {
  if (preset) return null;
  if (!custom) return "choose a custom range";
  const span = custom.to - custom.from;
  if (!(span > 0)) return "the range is empty: the end must be after the start";
  if (span > PRESETS["7d"])
    return `${fmtSpan(span)} selected: Studio loads at most 7 days at a time`;
  return null;
}

export function App(props: { token: string }) {
  const api = useMemo(() => new ApiClient(props.token), [props.token]);
  const initial = useMemo(() => readUrlState(location.search), []);
  const [info, setInfo] = useState<InfoResponse | null>(null);
  const [infoError, setInfoError] = useState<ApiFailure | null>(null);
  const [preset, setPreset] = useState<Preset | null>(initial.preset);
  const [custom, setCustom] = useState(
    initial.from !== null && initial.to !== null ? { from: initial.from, to: initial.to } : null,
  );
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
  const d = useDerived(s, q, chips, win, tab);
  const visible = d.view.visible;

  useEffect(() => {
    api
      .info()
      .then(setInfo, (e: unknown) =>
        setInfoError(e instanceof ApiFailure ? e : new ApiFailure(0, "network", String(e))),
      );
  }, [api]);
  useEffect(() => {
    if (info) document.title = `Studio · ${info.source}`;
  }, [info]);
  // Search commits 150 ms after typing stops (Enter commits at once).
  useEffect(() => {
    const t = setTimeout(() => setQ(qInput), 150);
    return () => clearTimeout(t);
  }, [qInput]);
  // Mirror the state into the URL (the token stays: the link keeps working on this machine),
  // in the same commit as the DOM: a reload right after a click keeps what the page showed.
  useLayoutEffect(() => {
    const state = {
      preset,
      from: custom?.from ?? null,
      to: custom?.to ?? null,
      q,
      chips,
      sel: openKey,
      tab,
      view: win,
      utc,
    };
    history.replaceState(null, "", writeUrlState(state, props.token));
  }, [preset, custom, q, chips, openKey, tab, win, utc]);

  const rangeProblem = rangeProblemOf(preset, custom);
  const openRow = useMemo(
    () => (openKey ? (d.rows.find((r) => r.key === openKey) ?? null) : null),
    [d.rows, openKey],
  );

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
      return [...(same >= 0 ? cur.filter((_, i) => i !== same) : cur), t];
    });
    setCursor(-1);
  }, []);

  const copy = useCallback((text: string, what: string) => {
    void copyText(text).then(() =>
      setToast(`Copied ${what} (${fmtCount(text.length)} characters)`),
    );
  }, []);

  const copyAi = useCallback(() => {
    if (!s || !info) return;
    const text = buildAiContext({
      source: info.source,
      from: s.from,
      to: s.to,
      window: win,
      search: q,
      chips: chips.map(termToString),
      loaded: s.rows.length,
      stats: s.stats,
      partial: s.partial,
      stoppedBy: s.stoppedBy,
      limits: info.limits,
      visible,
      selected: openRow,
      groups: d.groups ?? [],
    });
    copy(text, "AI context");
  }, [s, info, win, q, chips, visible, openRow, d.groups, copy]);

  const pick = useCallback(
    (index: number, open: boolean) => {
      const row = visible[index];
      if (!row) return;
      setCursor(index);
      if (open) setOpenKey(row.key);
    },
    [visible],
  );

  useKeys({
    focusSearch: () => search.current?.focus(),
    move: (delta) => {
      if (!visible.length || tab !== "logs") return;
      const next = Math.max(0, Math.min(visible.length - 1, cursor + delta));
      setCursor(next);
      if (openKey) setOpenKey(visible[next]!.key);
    },
    open: () => {
      const row = visible[cursor];
      if (row) setOpenKey(row.key);
    },
    close: () => setOpenKey(null),
    more: doMore,
  });

  useAutoRefresh(auto, session.refresh, (why) => {
    setAuto(false);
    setNotice(`Auto-refresh stopped: ${why}.`);
  });

  if (infoError) return <Banner error={infoError} onClose={null} standalone />;
  if (!info)
    return (
      <div class="empty-state">
        <span class="spinner" />
      </div>
    );

  const withDate = s ? s.to - s.from > 24 * 3600_000 : false;
  const autoState = autoRefreshState(
    auto,
    s ? { complete: s.complete, grantsUsed: s.stats.grantsUsed } : null,
    preset !== null,
    info.limits.maxGrants,
  );

  return (
    <div class="app">
      <TopBar
        source={info.source}
        project={info.project.attached ? (info.project.path ?? null) : null}
        preset={preset}
        custom={custom}
        utc={utc}
        rangeProblem={rangeProblem}
        busy={session.busy}
        canMore={Boolean(s?.partial)}
        auto={autoState}
        onPreset={setPreset}
        onCustom={(r) => {
          setCustom(r);
          setPreset(null);
        }}
        onUtc={setUtc}
        onLoad={doLoad}
        onMore={doMore}
        onAuto={(on) => {
          setAuto(on);
          setNotice(null);
        }}
        onCopyAi={copyAi}
        canCopy={Boolean(s)}
      />
      <BudgetMeter
        limits={info.limits}
        stats={s?.stats ?? null}
        lastGrant={s?.lastGrant ?? null}
        partial={Boolean(s?.partial)}
        stoppedBy={s?.stoppedBy ?? null}
        loaded={d.rows.length}
        showing={visible.length}
        skipped={s?.skipped ?? 0}
        unverified={s?.unverified ?? []}
        busy={session.busy !== null}
      />
      <div>
        {session.error && <Banner error={session.error} onClose={() => session.setError(null)} />}
        {notice && <Banner notice={notice} onClose={() => setNotice(null)} />}
        {s?.warning && !session.error && <Banner notice={s.warning} onClose={null} />}
      </div>
      <div class="body">
        <FacetRail facets={d.view.facets} chips={chips} onToggle={toggleChip} loaded={Boolean(s)} />
        <main class={`center${tab === "logs" ? "" : " no-hist"}`}>
          <Toolbar
            tab={tab}
            onTab={setTab}
            logsCount={s ? visible.length : null}
            groups={d.groups}
            showHttp={d.hasHttp}
            query={qInput}
            onQuery={setQInput}
            onCommit={() => setQ(qInput)}
            searchRef={search}
            window={win}
            onClearWindow={() => setWin(null)}
            chips={chips}
            onToggle={toggleChip}
            utc={utc}
          />
          {tab === "logs" && (
            <>
              <Histogram
                data={s ? d.hist : null}
                window={win}
                utc={utc}
                onWindow={setWin}
                unloadedBefore={d.unloadedBefore}
              />
              {visible.length ? (
                <RecordList
                  rows={visible}
                  cursor={cursor}
                  openKey={openKey}
                  utc={utc}
                  withDate={withDate}
                  showService={d.view.facets.service.length > 1}
                  onPick={pick}
                />
              ) : (
                <>
                  <div />
                  <LogsEmpty
                    limits={info.limits}
                    utc={utc}
                    loaded={
                      s ? { from: s.from, to: s.to, rows: d.rows.length, partial: s.partial } : null
                    }
                  />
                </>
              )}
            </>
          )}
          {tab === "errors" && (
            <ErrorsView
              groups={d.groups ?? []}
              utc={utc}
              withDate={withDate}
              loaded={Boolean(s)}
              onPick={(g) => {
                toggleChip({ field: "fp", value: g.id, negate: false });
                setTab("logs");
              }}
            />
          )}
          {tab === "http" && d.http && <HttpView stats={d.http} loaded={Boolean(s)} />}
        </main>
        {openRow && (
          <DetailDrawer
            row={openRow}
            api={api}
            onClose={() => setOpenKey(null)}
            onFilter={toggleChip}
            onCopy={copy}
          />
        )}
      </div>
      {toast && <Toast text={toast} onDone={() => setToast(null)} />}
    </div>
  );
}
