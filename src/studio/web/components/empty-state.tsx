/** The list's empty states: before any load (what one load may spend), and after one (why nothing shows). */
import type { GrantLimits } from "../../api-types.js";
import { allowanceSentence } from "../lib/budget.js";
import { fmtMinute } from "../lib/format.js";

export interface LogsEmptyProps {
  limits: GrantLimits;
  loaded: { from: number; to: number; rows: number; partial: boolean } | null;
  utc: boolean;
}

export function LogsEmpty(p: LogsEmptyProps) {
  const l = p.loaded;
  if (!l) {
    return (
      <div class="empty-state" data-testid="empty">
        <div class="card">
          <h2>Nothing loaded yet</h2>
          <p>
            Choose a range and <b>Load logs</b>. No storage request is made until then.
          </p>
          <p>One load (a grant) may spend at most</p>
          <div class="allow">{allowanceSentence(p.limits)}</div>
          <p>
            and a session allows {p.limits.maxGrants} grants. Every number is shown above while you
            work.
          </p>
        </div>
      </div>
    );
  }
  const why = l.rows
    ? "Clear a filter or the search to see more."
    : l.partial
      ? "Load more to continue reading the range."
      : `Nothing was logged between ${fmtMinute(l.from, p.utc)} and ${fmtMinute(l.to, p.utc)}${p.utc ? " UTC" : ""}.`;
  return (
    <div class="empty-state" data-testid="empty">
      <div class="card">
        <h2>{l.rows ? "No records match" : "No records in this range"}</h2>
        <p>{why}</p>
      </div>
    </div>
  );
}
