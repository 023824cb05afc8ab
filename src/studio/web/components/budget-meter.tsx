/** The budget meter under the top bar: per-grant usage, grants, Partial/Complete badge and why a grant stopped. */
import { Fragment } from "preact";
import type {
  GrantLimits,
  GrantUsage,
  LimitName,
  ReadStats,
  UnverifiedObject,
} from "../../api-types.js";
import { meterItems, stoppedWords } from "../lib/budget.js";
import { fmtCount } from "../lib/format.js";

export interface BudgetMeterProps {
  limits: GrantLimits;
  stats: ReadStats | null;
  lastGrant: GrantUsage | null;
  partial: boolean;
  stoppedBy: LimitName | null;
  loaded: number;
  showing: number;
  skipped: number;
  /** Objects whose records are shown but not proven intact. */
  unverified?: UnverifiedObject[];
  busy: boolean;
}

/** The hover text of the unverified count: each object, how many records, and why. */
function unverifiedTip(list: UnverifiedObject[]): string {
  const byKey = new Map<string, { records: number; problems: string[] }>();
  for (const u of list) {
    const seen = byKey.get(u.key);
    if (seen) seen.records += u.records;
    else byKey.set(u.key, { records: u.records, problems: u.problems });
  }
  return [
    "Records shown from objects that stowage verify would flag: not proven intact.",
    ...[...byKey].map(([k, v]) => `${k} (${v.records} records): ${v.problems.join("; ")}`),
  ].join("\n");
}

export function BudgetMeter(p: BudgetMeterProps) {
  const items = meterItems(p.lastGrant, p.stats, p.limits);
  const why = p.partial ? stoppedWords(p.stoppedBy, p.limits) : null;
  return (
    <div class="meter" data-testid="meter" aria-live="polite">
      {items.map((it, i) => (
        <Fragment key={it.id}>
          {i > 0 && <span class="dot">·</span>}
          <span
            class={`item ${it.ratio >= 1 ? "full" : ""}`}
            title={it.tip}
            data-testid={`meter-${it.id}`}
          >
            {it.label}
            <span class="bar">
              <i style={{ width: `${Math.min(100, it.ratio * 100)}%` }} />
            </span>
          </span>
        </Fragment>
      ))}
      <span style="width:8px" />
      {p.stats === null ? (
        <span
          class="badge idle"
          data-testid="badge"
          title="Nothing has been loaded yet; no storage request has been made."
        >
          Not loaded
        </span>
      ) : p.partial ? (
        <span
          class="badge partial"
          data-testid="badge"
          title="The last grant stopped at an allowance before the whole range was read. Load more resumes exactly where it stopped."
        >
          Partial
        </span>
      ) : (
        <span
          class="badge complete"
          data-testid="badge"
          title="Every object of the range has been read."
        >
          Complete
        </span>
      )}
      {why && (
        <span class="stopped" data-testid="stopped-by">
          {why}
        </span>
      )}
      <span class="right">
        {p.skipped > 0 && (
          <span title="Objects that were not loaded (too large, corrupt, foreign format). Details in the terminal/API response.">
            {p.skipped} skipped
          </span>
        )}
        {p.unverified && p.unverified.length > 0 && (
          <span class="unverified" data-testid="unverified" title={unverifiedTip(p.unverified)}>
            {new Set(p.unverified.map((u) => u.key)).size} unverified
          </span>
        )}
        {p.busy && <span class="spinner" />}
        {p.stats !== null && (
          <span data-testid="counts">
            {fmtCount(p.showing)} shown · {fmtCount(p.loaded)} loaded
          </span>
        )}
      </span>
    </div>
  );
}
