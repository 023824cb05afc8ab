/** The HTTP tab: status distribution and per-route latency (p50/p95/max), slowest first. */
import type { HttpStats } from "../lib/http-stats.js";
import { fmtCount, fmtMs } from "../lib/format.js";

export function HttpView(props: { stats: HttpStats; loaded: boolean }) {
  const s = props.stats;
  if (!s.total) {
    return (
      <div class="empty-state">
        <div class="card">
          <h2>{props.loaded ? "No HTTP records in view" : "Nothing loaded yet"}</h2>
          <p>
            Records that carry a method, a status and a duration (for example{" "}
            <code>data.method</code>, <code>data.status</code>, <code>data.durationMs</code>) are
            summarised here.
          </p>
        </div>
      </div>
    );
  }
  const pct = (n: number) => `${((n / s.total) * 100).toFixed(n / s.total < 0.1 ? 1 : 0)}%`;
  return (
    <div class="pane" data-testid="http">
      <div class="http-summary">
        <div class="stat">
          <div class="v">{fmtCount(s.total)}</div>
          <div class="k">requests</div>
        </div>
        {s.byClass.map((c) => (
          <div class="stat" key={c.cls}>
            <div class="v">{fmtCount(c.count)}</div>
            <div class="k">
              <span class={`lv s${c.cls}`} /> {c.cls} · {pct(c.count)}
            </div>
          </div>
        ))}
      </div>
      <div class="statusbar" title={s.byStatus.map((x) => `${x.status}: ${x.count}`).join("\n")}>
        {s.byClass.map(
          (c) =>
            c.count > 0 && (
              <i
                key={c.cls}
                class={`s${c.cls}`}
                style={{ width: `${(c.count / s.total) * 100}%` }}
              />
            ),
        )}
      </div>
      <table class="grid">
        <thead>
          <tr>
            <th>Route</th>
            <th class="num">Requests</th>
            <th class="num">5xx</th>
            <th class="num">p50</th>
            <th class="num">p95</th>
            <th class="num">Max</th>
          </tr>
        </thead>
        <tbody>
          {s.routes.slice(0, 200).map((r) => (
            <tr key={r.route}>
              <td class="mono">{r.route}</td>
              <td class="num">{fmtCount(r.count)}</td>
              <td class="num" style={r.errors5xx ? "color:var(--err-fg)" : undefined}>
                {r.errors5xx ? fmtCount(r.errors5xx) : "—"}
              </td>
              <td class="num">{fmtMs(r.p50)}</td>
              <td class="num">
                <b>{fmtMs(r.p95)}</b>
              </td>
              <td class="num">{fmtMs(r.max)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
