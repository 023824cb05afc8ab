/**
 * The URL as the page's shareable state: range (preset or absolute), search,
 * filter chips, selected record, tab, histogram zoom and time zone. The token
 * stays in the URL so the link works again on this machine while Studio runs.
 */
import { parseQuery, termToString, type Term } from "./search.js";

export const PRESETS = {
  "15m": 15 * 60_000,
  "1h": 3600_000,
  "6h": 6 * 3600_000,
  "24h": 24 * 3600_000,
  "7d": 7 * 24 * 3600_000,
} as const;
export type Preset = keyof typeof PRESETS;
export type Tab = "logs" | "errors" | "http";

export interface UrlState {
  preset: Preset | null;
  from: number | null;
  to: number | null;
  q: string;
  chips: Term[];
  sel: string | null;
  tab: Tab;
  view: { from: number; to: number } | null;
  utc: boolean;
}

const isPreset = (v: string | null): v is Preset => v !== null && Object.hasOwn(PRESETS, v);

/** Reads the state from `location.search`. */
export function readUrlState(search: string): UrlState {
  const p = new URLSearchParams(search);
  const num = (k: string) => {
    const v = p.get(k);
    if (v === null) return null;
    const n = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
    return Number.isFinite(n) ? n : null;
  };
  const range = p.get("range");
  const from = num("from");
  const to = num("to");
  const view = p
    .get("view")
    ?.split("~")
    .map((x) => Date.parse(x));
  const tab = p.get("tab");
  return {
    preset: isPreset(range) ? range : from !== null && to !== null ? null : "1h",
    from,
    to,
    q: p.get("q") ?? "",
    chips: p.getAll("f").flatMap((f) => parseQuery(f).slice(0, 1)),
    sel: p.get("sel"),
    tab: tab === "errors" || tab === "http" ? tab : "logs",
    view:
      view && view.length === 2 && view.every(Number.isFinite)
        ? { from: view[0]!, to: view[1]! }
        : null,
    utc: p.get("tz") !== "local",
  };
}

/** Writes the state (and the token) as a query string. */
export function writeUrlState(s: UrlState, token: string | null): string {
  const p = new URLSearchParams();
  if (token) p.set("token", token);
  if (s.preset) p.set("range", s.preset);
  else if (s.from !== null && s.to !== null) {
    p.set("from", new Date(s.from).toISOString());
    p.set("to", new Date(s.to).toISOString());
  }
  if (s.q) p.set("q", s.q);
  for (const c of s.chips) p.append("f", termToString(c));
  if (s.tab !== "logs") p.set("tab", s.tab);
  if (s.view)
    p.set("view", `${new Date(s.view.from).toISOString()}~${new Date(s.view.to).toISOString()}`);
  if (s.sel) p.set("sel", s.sel);
  if (!s.utc) p.set("tz", "local");
  return `?${p.toString()}`;
}
