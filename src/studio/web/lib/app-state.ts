/**
 * Studio's page state in one place and the one reducer that changes it: what the
 * user chose (range, search, chips, tab, zoom, selection, auto-refresh), what the
 * server sent (info, the loaded session, busy, error) and the passing notice and
 * toast. Every user event and every server answer is one `AppAction`.
 *
 * Pure (no DOM, no fetch): App and use-session dispatch, this module decides.
 * Invariants: a new load clears the zoom, the cursor, auto-refresh and its notice;
 * a filter change clears the cursor; the keyboard moves only on the Logs tab.
 */
import type {
  GrantUsage,
  InfoResponse,
  LimitName,
  ReadStats,
  UnverifiedObject,
} from "../../api-types.js";
import type { ApiFailure } from "./api-client.js";
import { fmtCount, fmtSpan } from "./format.js";
import type { Row } from "./rows.js";
import type { Term } from "./search.js";
import { PRESETS, type Preset, type Tab, type UrlState } from "./url-state.js";

export interface TimeRange {
  from: number;
  to: number;
}

/** The loaded snapshot of the reader session, as use-session merges it. */
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

/** The request in flight, if any (a refresh runs in the background and is not shown as busy). */
export type Busy = null | "load" | "more" | "refresh";

export interface AppState {
  info: InfoResponse | null;
  infoError: ApiFailure | null;
  preset: Preset | null;
  custom: TimeRange | null;
  utc: boolean;
  /** The committed search: what filters the rows. */
  q: string;
  /** What the search box holds; committed 150 ms after typing stops, or on Enter. */
  qInput: string;
  chips: Term[];
  tab: Tab;
  /** The histogram's zoom over loaded rows (it loads nothing). */
  win: TimeRange | null;
  /** The key of the record open in the drawer. */
  openKey: string | null;
  /** The keyboard cursor in the visible list; -1 for none. */
  cursor: number;
  auto: boolean;
  session: SessionState | null;
  busy: Busy;
  error: ApiFailure | null;
  notice: string | null;
  toast: string | null;
}

/** The visible list, newest first, as the cursor actions need it. */
type Listed = readonly { key: string }[];

/** What the user does to the view: range, search, filters, tab, zoom, drawer, notices. */
type ViewAction =
  | { type: "info-loaded"; info: InfoResponse }
  | { type: "info-failed"; error: ApiFailure }
  | { type: "preset-chosen"; preset: Preset }
  | { type: "custom-chosen"; range: TimeRange }
  | { type: "utc-set"; utc: boolean }
  | { type: "query-typed"; text: string }
  | { type: "query-committed" }
  | { type: "chip-toggled"; term: Term }
  /** An error group clicked: filter the Logs tab to its fingerprint. */
  | { type: "error-group-picked"; id: string }
  | { type: "tab-chosen"; tab: Tab }
  | { type: "window-set"; window: TimeRange | null }
  | { type: "drawer-closed" }
  | { type: "notice-closed" }
  | { type: "copied"; what: string; chars: number }
  | { type: "toast-done" };

/** The keyboard cursor and clicks over the visible list. */
type CursorAction =
  | { type: "row-picked"; rows: Listed; index: number; open: boolean }
  | { type: "cursor-moved"; rows: Listed; delta: number }
  | { type: "cursor-opened"; rows: Listed };

/** Requests, their answers, and auto-refresh. */
type SessionAction =
  | { type: "request-started"; kind: Exclude<Busy, null> }
  | { type: "request-failed"; error: ApiFailure }
  /** A load or load more answered (the request is over). */
  | { type: "session-received"; session: SessionState }
  /** An auto-refresh tick answered (it never showed as busy). */
  | { type: "session-refreshed"; session: SessionState }
  | { type: "error-closed" }
  | { type: "auto-set"; on: boolean }
  | { type: "auto-stopped"; why: string };

export type AppAction = ViewAction | CursorAction | SessionAction;

/** The page's state on arrival: what the URL says, nothing loaded. */
export function initialAppState(url: UrlState): AppState {
  return {
    info: null,
    infoError: null,
    preset: url.preset,
    custom: url.from !== null && url.to !== null ? { from: url.from, to: url.to } : null,
    utc: url.utc,
    q: url.q,
    qInput: url.q,
    chips: url.chips,
    tab: url.tab,
    win: url.view,
    openKey: url.sel,
    cursor: -1,
    auto: false,
    session: null,
    busy: null,
    error: null,
    notice: null,
    toast: null,
  };
}

/** What the URL mirrors (range, filters, tab, zoom, selection, time zone). */
export function urlStateOf(s: AppState): UrlState {
  return {
    preset: s.preset,
    from: s.custom?.from ?? null,
    to: s.custom?.to ?? null,
    q: s.q,
    chips: s.chips,
    sel: s.openKey,
    tab: s.tab,
    view: s.win,
    utc: s.utc,
  };
}

/** Why Load logs is disabled for the chosen range, or null when it may load. */
export function rangeProblemOf(s: Pick<AppState, "preset" | "custom">): string | null {
  if (s.preset) return null;
  if (!s.custom) return "choose a custom range";
  const span = s.custom.to - s.custom.from;
  if (!(span > 0)) return "the range is empty: the end must be after the start";
  if (span > PRESETS["7d"])
    return `${fmtSpan(span)} selected: Studio loads at most 7 days at a time`;
  return null;
}

/** The range Load logs reads: a preset ends now; a custom range is taken as chosen. */
export function loadRange(s: Pick<AppState, "preset" | "custom">, now: number): TimeRange | null {
  if (rangeProblemOf(s)) return null;
  return s.preset ? { from: now - PRESETS[s.preset], to: now } : s.custom;
}

/** Adds a chip, replaces its opposite (same field and value), or removes it when clicked again. */
function toggleChip(chips: Term[], t: Term): Term[] {
  const same = chips.findIndex((c) => c.field === t.field && c.value === t.value);
  if (same >= 0 && chips[same]!.negate === t.negate) return chips.filter((_, i) => i !== same);
  return [...(same >= 0 ? chips.filter((_, i) => i !== same) : chips), t];
}

/** The cursor actions: they act on the visible list. */
function cursorAction(s: AppState, a: CursorAction): AppState {
  switch (a.type) {
    case "row-picked": {
      const row = a.rows[a.index];
      if (!row) return s;
      return { ...s, cursor: a.index, openKey: a.open ? row.key : s.openKey };
    }
    case "cursor-moved": {
      if (!a.rows.length || s.tab !== "logs") return s;
      const next = Math.max(0, Math.min(a.rows.length - 1, s.cursor + a.delta));
      return { ...s, cursor: next, openKey: s.openKey ? a.rows[next]!.key : s.openKey };
    }
    case "cursor-opened": {
      const row = a.rows[s.cursor];
      return row ? { ...s, openKey: row.key } : s;
    }
  }
}

/** The loading actions: requests, their answers, auto-refresh. */
function sessionAction(s: AppState, a: SessionAction): AppState {
  switch (a.type) {
    case "request-started":
      return a.kind === "load"
        ? { ...s, busy: a.kind, error: null, auto: false, notice: null, win: null, cursor: -1 }
        : { ...s, busy: a.kind, error: null };
    case "request-failed":
      return { ...s, busy: null, error: a.error };
    case "session-received":
      return { ...s, busy: null, session: a.session };
    case "session-refreshed":
      return { ...s, session: a.session };
    case "error-closed":
      return { ...s, error: null };
    case "auto-set":
      return { ...s, auto: a.on, notice: null };
    case "auto-stopped":
      return { ...s, auto: false, notice: `Auto-refresh stopped: ${a.why}.` };
  }
}

/**
 * The page's one reducer.
 * @example const [state, dispatch] = useReducer(appReducer, initialAppState(readUrlState(location.search)));
 */
export function appReducer(s: AppState, a: AppAction): AppState {
  switch (a.type) {
    case "info-loaded":
      return { ...s, info: a.info };
    case "info-failed":
      return { ...s, infoError: a.error };
    case "preset-chosen":
      return { ...s, preset: a.preset };
    case "custom-chosen":
      return { ...s, custom: a.range, preset: null };
    case "utc-set":
      return { ...s, utc: a.utc };
    case "query-typed":
      return { ...s, qInput: a.text };
    case "query-committed":
      return s.q === s.qInput ? s : { ...s, q: s.qInput };
    case "chip-toggled":
      return { ...s, chips: toggleChip(s.chips, a.term), cursor: -1 };
    case "error-group-picked":
      return {
        ...s,
        chips: toggleChip(s.chips, { field: "fp", value: a.id, negate: false }),
        cursor: -1,
        tab: "logs",
      };
    case "tab-chosen":
      return { ...s, tab: a.tab };
    case "window-set":
      return { ...s, win: a.window };
    case "drawer-closed":
      return { ...s, openKey: null };
    case "notice-closed":
      return { ...s, notice: null };
    case "copied":
      return { ...s, toast: `Copied ${a.what} (${fmtCount(a.chars)} characters)` };
    case "toast-done":
      return { ...s, toast: null };
    case "row-picked":
    case "cursor-moved":
    case "cursor-opened":
      return cursorAction(s, a);
    default:
      return sessionAction(s, a);
  }
}
