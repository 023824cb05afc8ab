/** The bar over the center: tabs (Logs · Errors · HTTP), the search box (`/` focuses it) and the active filter chips. */
import type { Ref } from "preact";
import type { ErrorGroup } from "../lib/error-groups.js";
import { fmtCount, fmtMinute } from "../lib/format.js";
import { termToString, type Term } from "../lib/search.js";
import type { Tab } from "../lib/url-state.js";

export interface ToolbarProps {
  tab: Tab;
  onTab(t: Tab): void;
  logsCount: number | null;
  groups: ErrorGroup[] | null;
  showHttp: boolean;
  query: string;
  onQuery(q: string): void;
  onCommit(): void;
  searchRef: Ref<HTMLInputElement>;
  window: { from: number; to: number } | null;
  onClearWindow(): void;
  chips: Term[];
  onToggle(t: Term): void;
  utc: boolean;
}

function groupLabel(groups: ErrorGroup[] | null, id: string): string {
  const g = groups?.find((x) => x.id === id);
  return g ? [g.name, g.message].filter(Boolean).join(": ").slice(0, 60) : id;
}

function TabButton(props: {
  id: Tab;
  tab: Tab;
  onTab(t: Tab): void;
  label: string;
  n?: number | null;
}) {
  return (
    <button
      type="button"
      role="tab"
      aria-selected={props.tab === props.id}
      onClick={() => props.onTab(props.id)}
      data-testid={`tab-${props.id}`}
    >
      {props.label}
      {props.n !== undefined && <span class="n">{props.n === null ? "" : fmtCount(props.n)}</span>}
    </button>
  );
}

export function Toolbar(p: ToolbarProps) {
  return (
    <div class="toolbar">
      <div class="tabs" role="tablist">
        <TabButton id="logs" tab={p.tab} onTab={p.onTab} label="Logs" n={p.logsCount} />
        <TabButton
          id="errors"
          tab={p.tab}
          onTab={p.onTab}
          label="Errors"
          n={p.groups ? p.groups.length : null}
        />
        {(p.showHttp || p.tab === "http") && (
          <TabButton id="http" tab={p.tab} onTab={p.onTab} label="HTTP" />
        )}
      </div>
      <div class="search">
        <svg
          class="icon"
          width="14"
          height="14"
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          stroke-width="2.2"
          aria-hidden="true"
        >
          <circle cx="11" cy="11" r="7" />
          <path d="m20 20-3.5-3.5" />
        </svg>
        <input
          ref={p.searchRef}
          value={p.query}
          data-testid="search"
          placeholder='Search: text, "a phrase", field:value, -field:value, level:>=warning'
          aria-label="Search loaded records"
          onInput={(e) => p.onQuery(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") p.onCommit();
            if (e.key === "Escape") e.currentTarget.blur();
          }}
        />
        {!p.query && <kbd>/</kbd>}
      </div>
      <div class="chips" data-testid="chips">
        {p.window && (
          <span class="chip" title="Histogram zoom (loaded data only)">
            {fmtMinute(p.window.from, p.utc)} → {fmtMinute(p.window.to, p.utc)}
            <button type="button" onClick={p.onClearWindow} aria-label="Clear zoom">
              ×
            </button>
          </span>
        )}
        {p.chips.map((c) => {
          const text = termToString(c);
          return (
            <span class={`chip${c.negate ? " neg" : ""}`} key={text} data-chip={text}>
              {c.field === "fp"
                ? `${c.negate ? "not " : ""}group ${groupLabel(p.groups, c.value)}`
                : text}
              <button type="button" onClick={() => p.onToggle(c)} aria-label={`Remove ${text}`}>
                ×
              </button>
            </span>
          );
        })}
      </div>
      <div class="grow" />
      <div class="help">
        <kbd>j</kbd>
        <kbd>k</kbd> move <kbd>↵</kbd> open <kbd>l</kbd> more
      </div>
    </div>
  );
}
