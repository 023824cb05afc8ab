/** The page's one reducer: every transition App relies on, without a browser. */
import { describe, expect, it } from "vitest";
import { ApiFailure } from "./api-client.js";
import {
  appReducer,
  initialAppState,
  loadRange,
  rangeProblemOf,
  urlStateOf,
  type AppAction,
  type AppState,
  type SessionState,
} from "./app-state.js";
import { termToString } from "./search.js";
import { readUrlState, writeUrlState } from "./url-state.js";

const T0 = Date.UTC(2025, 5, 12, 10, 0, 0);
const HOUR = 3_600_000;
const fresh = (search = "?range=1h") => initialAppState(readUrlState(search));
const run = (s: AppState, ...actions: AppAction[]) => actions.reduce(appReducer, s);
const list = (...keys: string[]) => keys.map((key) => ({ key }));
const session = { loadId: 1, from: T0, to: T0 + HOUR, rows: [] } as unknown as SessionState;

describe("state from and to the URL (§5.4 shareable URL)", () => {
  it("§5.4 starts from what the URL says, nothing loaded, and mirrors it back", () => {
    const search =
      "?range=6h&q=timeout&f=level%3Aerror&tab=errors&sel=abc&view=2025-06-12T10:00:00.000Z~2025-06-12T10:30:00.000Z&tz=local";
    const s = fresh(search);
    expect(s).toMatchObject({
      preset: "6h",
      custom: null,
      q: "timeout",
      qInput: "timeout",
      tab: "errors",
      openKey: "abc",
      win: { from: T0, to: T0 + HOUR / 2 },
      utc: false,
      cursor: -1,
      auto: false,
      session: null,
      busy: null,
    });
    expect(s.chips.map(termToString)).toEqual(["level:error"]);
    expect(urlStateOf(s)).toEqual(readUrlState(search));
    expect(readUrlState(writeUrlState(urlStateOf(s), "t0k"))).toEqual(readUrlState(search));
  });

  it("§5.4 a custom range in the URL is kept as chosen", () => {
    const s = fresh("?from=2025-06-12T10:00:00.000Z&to=2025-06-12T12:00:00.000Z");
    expect(s).toMatchObject({ preset: null, custom: { from: T0, to: T0 + 2 * HOUR } });
    expect(urlStateOf(s)).toMatchObject({ preset: null, from: T0, to: T0 + 2 * HOUR });
  });
});

describe("range (§5.2 at most 7 days)", () => {
  it("§5.2 a preset ends now; a custom range loads as chosen", () => {
    expect(rangeProblemOf(fresh())).toBeNull();
    expect(loadRange(fresh(), T0)).toEqual({ from: T0 - HOUR, to: T0 });
    const custom = run(fresh(), { type: "custom-chosen", range: { from: T0, to: T0 + HOUR } });
    expect(custom.preset).toBeNull();
    expect(loadRange(custom, 0)).toEqual({ from: T0, to: T0 + HOUR });
    expect(run(custom, { type: "preset-chosen", preset: "15m" }).preset).toBe("15m");
  });

  it("§5.2 an empty, missing or over-7-day custom range is refused with the reason", () => {
    const at = (from: number, to: number) =>
      run(fresh(), { type: "custom-chosen", range: { from, to } });
    expect(rangeProblemOf({ preset: null, custom: null })).toBe("choose a custom range");
    expect(rangeProblemOf(at(T0, T0))).toBe("the range is empty: the end must be after the start");
    expect(rangeProblemOf(at(T0, T0 + 8 * 24 * HOUR))).toBe(
      "8 days selected: Studio loads at most 7 days at a time",
    );
    expect(loadRange(at(T0, T0 + 8 * 24 * HOUR), T0)).toBeNull();
  });
});

describe("search and filters (§5.4 facets)", () => {
  it("§5.4 typing changes the box only; a commit applies it", () => {
    const typed = run(fresh(), { type: "query-typed", text: "boom" });
    expect(typed).toMatchObject({ qInput: "boom", q: "" });
    const committed = appReducer(typed, { type: "query-committed" });
    expect(committed.q).toBe("boom");
    expect(appReducer(committed, { type: "query-committed" })).toBe(committed);
  });

  it("§5.4 a chip toggles on and off, replaces its opposite, and resets the cursor", () => {
    const on = run(
      fresh(),
      { type: "row-picked", rows: list("a", "b"), index: 1, open: false },
      { type: "chip-toggled", term: { field: "level", value: "error", negate: false } },
    );
    expect(on.chips.map(termToString)).toEqual(["level:error"]);
    expect(on.cursor).toBe(-1);
    const opposite = appReducer(on, {
      type: "chip-toggled",
      term: { field: "level", value: "error", negate: true },
    });
    expect(opposite.chips.map(termToString)).toEqual(["-level:error"]);
    const off = appReducer(opposite, {
      type: "chip-toggled",
      term: { field: "level", value: "error", negate: true },
    });
    expect(off.chips).toEqual([]);
  });

  it("§5.4 an error group opens the Logs tab filtered to its fingerprint", () => {
    const s = run(fresh("?tab=errors"), { type: "error-group-picked", id: "f00d" });
    expect(s.tab).toBe("logs");
    expect(s.chips.map(termToString)).toEqual(["fp:f00d"]);
  });
});

describe("keyboard and selection (§5.4 j/k, Enter, Esc)", () => {
  const rows = list("a", "b", "c");

  it("§5.4 j/k move within the list; the open drawer follows the cursor", () => {
    const moved = run(
      fresh(),
      { type: "cursor-moved", rows, delta: -1 },
      { type: "cursor-moved", rows, delta: 1 },
    );
    expect(moved).toMatchObject({ cursor: 1, openKey: null });
    const opened = appReducer(moved, { type: "cursor-opened", rows });
    expect(opened.openKey).toBe("b");
    const follow = run(
      opened,
      { type: "cursor-moved", rows, delta: 1 },
      { type: "cursor-moved", rows, delta: 1 },
    );
    expect(follow).toMatchObject({ cursor: 2, openKey: "c" });
    expect(appReducer(follow, { type: "drawer-closed" }).openKey).toBeNull();
  });

  it("§5.4 the keys do nothing off the Logs tab or on an empty list", () => {
    const errors = run(fresh(), { type: "tab-chosen", tab: "errors" });
    expect(appReducer(errors, { type: "cursor-moved", rows, delta: 1 })).toBe(errors);
    expect(appReducer(fresh(), { type: "cursor-moved", rows: [], delta: 1 }).cursor).toBe(-1);
    expect(appReducer(fresh(), { type: "cursor-opened", rows }).openKey).toBeNull();
  });

  it("§5.4 a click moves the cursor and opens the row only when asked", () => {
    const picked = appReducer(fresh(), { type: "row-picked", rows, index: 2, open: false });
    expect(picked).toMatchObject({ cursor: 2, openKey: null });
    expect(appReducer(picked, { type: "row-picked", rows, index: 0, open: true })).toMatchObject({
      cursor: 0,
      openKey: "a",
    });
    expect(appReducer(picked, { type: "row-picked", rows, index: 9, open: true })).toBe(picked);
  });
});

describe("loading and auto-refresh (§5.2, §5.4)", () => {
  it("§5.2 a load clears the zoom, cursor, auto-refresh and notice; load more keeps them", () => {
    const busy = run(
      fresh(),
      { type: "window-set", window: { from: T0, to: T0 + 60_000 } },
      { type: "row-picked", rows: list("a"), index: 0, open: false },
      { type: "auto-set", on: true },
      { type: "auto-stopped", why: "no grants left" },
    );
    expect(busy.notice).toBe("Auto-refresh stopped: no grants left.");
    expect(appReducer(busy, { type: "request-started", kind: "more" })).toMatchObject({
      busy: "more",
      win: { from: T0, to: T0 + 60_000 },
      cursor: 0,
      notice: "Auto-refresh stopped: no grants left.",
    });
    expect(appReducer(busy, { type: "request-started", kind: "load" })).toMatchObject({
      busy: "load",
      win: null,
      cursor: -1,
      auto: false,
      notice: null,
    });
  });

  it("§5.4 an answer ends the request; a failure shows until closed or the next request", () => {
    const error = new ApiFailure(403, "auth", "access denied");
    const failed = run(
      fresh(),
      { type: "request-started", kind: "load" },
      { type: "request-failed", error },
    );
    expect(failed).toMatchObject({ busy: null, error });
    expect(appReducer(failed, { type: "error-closed" }).error).toBeNull();
    expect(appReducer(failed, { type: "request-started", kind: "load" }).error).toBeNull();
    const loaded = run(
      fresh(),
      { type: "request-started", kind: "load" },
      { type: "session-received", session },
    );
    expect(loaded).toMatchObject({ busy: null, session });
    const ticking = run(fresh(), { type: "request-started", kind: "more" });
    expect(appReducer(ticking, { type: "session-refreshed", session })).toMatchObject({
      busy: "more",
      session,
    });
  });

  it("§5.4 turning auto-refresh on or off clears its notice; a stop says why", () => {
    const stopped = run(
      fresh(),
      { type: "auto-set", on: true },
      { type: "auto-stopped", why: "the refresh hit an allowance" },
    );
    expect(stopped).toMatchObject({
      auto: false,
      notice: "Auto-refresh stopped: the refresh hit an allowance.",
    });
    expect(appReducer(stopped, { type: "auto-set", on: true })).toMatchObject({
      auto: true,
      notice: null,
    });
    expect(appReducer(stopped, { type: "notice-closed" }).notice).toBeNull();
  });

  it("§5.4 a copy says what and how much was copied, until the toast is done", () => {
    const copied = appReducer(fresh(), { type: "copied", what: "AI context", chars: 12_345 });
    expect(copied.toast).toBe("Copied AI context (12,345 characters)");
    expect(appReducer(copied, { type: "toast-done" }).toast).toBeNull();
  });
});
