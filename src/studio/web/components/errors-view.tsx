/** The Errors tab: groups by fingerprint (error name + first message line + caller) with count, first/last seen and a sparkline. */
import type { ErrorGroup } from "../lib/error-groups.js";
import { fmtCount, fmtRowTime } from "../lib/format.js";

function Sparkline(props: { buckets: number[] }) {
  const w = 96;
  const h = 22;
  const max = Math.max(1, ...props.buckets);
  const n = props.buckets.length;
  const pts = props.buckets.map(
    (c, i) => [(i / Math.max(1, n - 1)) * w, h - 1 - (c / max) * (h - 3)] as const,
  );
  const line = pts.map(([x, y], i) => `${i ? "L" : "M"}${x.toFixed(1)},${y.toFixed(1)}`).join("");
  return (
    <svg class="sparkline" width={w} height={h} viewBox={`0 0 ${w} ${h}`} aria-hidden="true">
      <path class="area" d={`${line}L${w},${h}L0,${h}Z`} />
      <path d={line} />
    </svg>
  );
}

export function ErrorsView(props: {
  groups: ErrorGroup[];
  utc: boolean;
  withDate: boolean;
  loaded: boolean;
  onPick(g: ErrorGroup): void;
}) {
  if (!props.groups.length) {
    return (
      <div class="empty-state">
        <div class="card">
          <h2>{props.loaded ? "No errors in view" : "Nothing loaded yet"}</h2>
          <p>
            {props.loaded
              ? "Records at level error or critical, or carrying an error, are grouped here by name, first message line and caller."
              : "Choose a range and Load logs."}
          </p>
        </div>
      </div>
    );
  }
  return (
    <div class="pane" data-testid="errors">
      <table class="grid">
        <thead>
          <tr>
            <th>Trend</th>
            <th class="num">Count</th>
            <th>Error</th>
            <th>Caller</th>
            <th class="num">First seen</th>
            <th class="num">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {props.groups.map((g) => (
            <tr
              key={g.id}
              class="click"
              onClick={() => props.onPick(g)}
              title="Show these records"
              data-testid="error-group"
              data-fp={g.id}
            >
              <td>
                <Sparkline buckets={g.buckets} />
              </td>
              <td class="num">
                <b>{fmtCount(g.count)}</b>
              </td>
              <td>
                <div class="grp-title">
                  <span class={`lv lv-${g.level}`} style="margin-right:6px" />
                  {g.name || g.message}
                </div>
                <div class="grp-msg">
                  {g.name ? g.message : `logged at ${g.level} level, no error object`}
                </div>
              </td>
              <td class="mono">{g.caller || "—"}</td>
              <td class="num mono">{fmtRowTime(g.firstSeen, props.utc, props.withDate)}</td>
              <td class="num mono">{fmtRowTime(g.lastSeen, props.utc, props.withDate)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
