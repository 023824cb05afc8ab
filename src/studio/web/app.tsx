/**
 * Studio's page: one screen, one loaded snapshot shared by every view (list,
 * histogram, facets, errors, HTTP, AI context). Nothing is fetched from storage
 * before Load logs; the URL mirrors range, filters, tab and selection. This is
 * the composition root: the state is one reducer (lib/app-state.ts), I/O in
 * use-*.ts, the rest in lib/; this file wires events to actions.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef } from "preact/hooks";
import { ApiClient, ApiFailure } from "./lib/api-client.js";
import { readUrlState, writeUrlState } from "./lib/url-state.js";
import { termToString, type Term } from "./lib/search.js";
import { buildAiContext } from "./lib/ai-context.js";
import { copyText } from "./lib/clipboard.js";
import {
  appReducer,
  initialAppState,
  loadRange,
  rangeProblemOf,
  urlStateOf,
} from "./lib/app-state.js";
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

export function App(props: { token: string }) {
  const api = useMemo(() => new ApiClient(props.token), [props.token]);
  const [state, dispatch] = useReducer(appReducer, location.search, (search: string) =>
    initialAppState(readUrlState(search)),
  );
  const { info, infoError, preset, custom, utc, q, qInput, chips, tab, win } = state;
  const { openKey, cursor, auto, notice, toast } = state;
  const search = useRef<HTMLInputElement>(null);
  const session = useSession(api, dispatch);
  const s = state.session;
  const d = useDerived(s, q, chips, win, tab);
  const visible = d.view.visible;

  useEffect(() => {
    api.info().then(
      (info) => dispatch({ type: "info-loaded", info }),
      (e: unknown) =>
        dispatch({
          type: "info-failed",
          error: e instanceof ApiFailure ? e : new ApiFailure(0, "network", String(e)),
        }),
    );
  }, [api]);
  useEffect(() => {
    if (info) document.title = `Studio · ${info.source}`;
  }, [info]);
  // Search commits 150 ms after typing stops (Enter commits at once).
  useEffect(() => {
    const t = setTimeout(() => dispatch({ type: "query-committed" }), 150);
    return () => clearTimeout(t);
  }, [qInput]);
  // Mirror the state into the URL (the token stays: the link keeps working on this machine),
  // in the same commit as the DOM: a reload right after a click keeps what the page showed.
  useLayoutEffect(() => {
    history.replaceState(null, "", writeUrlState(urlStateOf(state), props.token));
  }, [preset, custom, q, chips, openKey, tab, win, utc]);

  const rangeProblem = rangeProblemOf(state);
  const openRow = useMemo(
    () => (openKey ? (d.rows.find((r) => r.key === openKey) ?? null) : null),
    [d.rows, openKey],
  );

  const doLoad = useCallback(() => {
    const r = loadRange({ preset, custom }, Date.now());
    if (r) void session.load(r.from, r.to);
  }, [preset, custom, session.load]);

  const doMore = useCallback(() => {
    if (s?.partial && !state.busy) void session.more();
  }, [s?.partial, state.busy, session.more]);

  const copy = useCallback((text: string, what: string) => {
    void copyText(text).then(() => dispatch({ type: "copied", what, chars: text.length }));
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
    (index: number, open: boolean) => dispatch({ type: "row-picked", rows: visible, index, open }),
    [visible],
  );
  const toggleChip = useCallback((term: Term) => dispatch({ type: "chip-toggled", term }), []);

  useKeys({
    focusSearch: () => search.current?.focus(),
    move: (delta) => dispatch({ type: "cursor-moved", rows: visible, delta }),
    open: () => dispatch({ type: "cursor-opened", rows: visible }),
    close: () => dispatch({ type: "drawer-closed" }),
    more: doMore,
  });

  useAutoRefresh(auto, session.refresh, (why) => dispatch({ type: "auto-stopped", why }));

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
        busy={state.busy}
        canMore={Boolean(s?.partial)}
        auto={autoState}
        onPreset={(preset) => dispatch({ type: "preset-chosen", preset })}
        onCustom={(range) => dispatch({ type: "custom-chosen", range })}
        onUtc={(utc) => dispatch({ type: "utc-set", utc })}
        onLoad={doLoad}
        onMore={doMore}
        onAuto={(on) => dispatch({ type: "auto-set", on })}
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
        busy={state.busy !== null}
      />
      <div>
        {state.error && (
          <Banner error={state.error} onClose={() => dispatch({ type: "error-closed" })} />
        )}
        {notice && <Banner notice={notice} onClose={() => dispatch({ type: "notice-closed" })} />}
        {s?.warning && !state.error && <Banner notice={s.warning} onClose={null} />}
      </div>
      <div class="body">
        <FacetRail facets={d.view.facets} chips={chips} onToggle={toggleChip} loaded={Boolean(s)} />
        <main class={`center${tab === "logs" ? "" : " no-hist"}`}>
          <Toolbar
            tab={tab}
            onTab={(tab) => dispatch({ type: "tab-chosen", tab })}
            logsCount={s ? visible.length : null}
            groups={d.groups}
            showHttp={d.hasHttp}
            query={qInput}
            onQuery={(text) => dispatch({ type: "query-typed", text })}
            onCommit={() => dispatch({ type: "query-committed" })}
            searchRef={search}
            window={win}
            onClearWindow={() => dispatch({ type: "window-set", window: null })}
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
                onWindow={(window) => dispatch({ type: "window-set", window })}
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
              onPick={(g) => dispatch({ type: "error-group-picked", id: g.id })}
            />
          )}
          {tab === "http" && d.http && <HttpView stats={d.http} loaded={Boolean(s)} />}
        </main>
        {openRow && (
          <DetailDrawer
            row={openRow}
            api={api}
            onClose={() => dispatch({ type: "drawer-closed" })}
            onFilter={toggleChip}
            onCopy={copy}
          />
        )}
      </div>
      {toast && <Toast text={toast} onDone={() => dispatch({ type: "toast-done" })} />}
    </div>
  );
}
