/** The left rail: facets with counts (level, service, caller, error name, top data keys); click includes, Alt-click excludes. */
import { useState } from "preact/hooks";
import type { Facets, FacetValue } from "../lib/facets.js";
import { LEVEL_RANK } from "../lib/rows.js";
import type { Term } from "../lib/search.js";
import { fmtCount } from "../lib/format.js";

export interface FacetRailProps {
  facets: Facets;
  chips: Term[];
  onToggle(term: Term): void;
  loaded: boolean;
}

function state(chips: Term[], field: string, value: string): "on" | "off" | "" {
  const c = chips.find((t) => t.field === field && t.value === value);
  return c ? (c.negate ? "off" : "on") : "";
}

function Values(props: {
  field: string;
  values: FacetValue[];
  chips: Term[];
  onToggle(t: Term): void;
  levelDots?: boolean;
  limit?: number;
  mono?: boolean;
}) {
  const [all, setAll] = useState(false);
  const limit = props.limit ?? 6;
  const shown = all ? props.values : props.values.slice(0, limit);
  const max = Math.max(1, ...props.values.map((v) => v.count));
  return (
    <>
      <ul>
        {shown.map((v) => {
          const st = state(props.chips, props.field, v.value);
          return (
            <li key={v.value}>
              <button
                type="button"
                class={`fv ${st}`}
                title={`${props.field}:${v.value} — click to include, Alt-click to exclude`}
                data-facet={props.field}
                data-value={v.value}
                onClick={(e) =>
                  props.onToggle({ field: props.field, value: v.value, negate: e.altKey })
                }
              >
                {props.levelDots && <span class={`lv lv-${v.value}`} />}
                <span
                  class="name"
                  style={props.mono ? "font-family:var(--mono);font-size:12px" : undefined}
                >
                  {v.value}
                </span>
                <span class="spark">
                  <i style={{ width: `${(v.count / max) * 100}%` }} />
                </span>
                <span class="count">{fmtCount(v.count)}</span>
              </button>
            </li>
          );
        })}
      </ul>
      {props.values.length > limit && (
        <button type="button" class="more-link" onClick={() => setAll(!all)}>
          {all ? "show fewer" : `+${props.values.length - limit} more`}
        </button>
      )}
    </>
  );
}

export function FacetRail(p: FacetRailProps) {
  const [openKey, setOpenKey] = useState<string | null>(null);
  const levels = [...p.facets.level].sort(
    (a, b) => (LEVEL_RANK[b.value] ?? -1) - (LEVEL_RANK[a.value] ?? -1),
  );
  const section = (
    title: string,
    field: string,
    values: FacetValue[],
    extra: Partial<Parameters<typeof Values>[0]> = {},
  ) => (
    <section class="facet" data-testid={`facet-${field}`}>
      <h3>{title}</h3>
      {values.length ? (
        <Values field={field} values={values} chips={p.chips} onToggle={p.onToggle} {...extra} />
      ) : (
        <div class="empty">{p.loaded ? "none in view" : "—"}</div>
      )}
    </section>
  );
  return (
    <nav class="rail" aria-label="Facets">
      {section("Level", "level", levels, { levelDots: true, limit: 7 })}
      {section("Service", "service", p.facets.service)}
      {section("Error", "error.name", p.facets.error)}
      {section("Caller", "caller", p.facets.caller, { mono: true, limit: 5 })}
      <section class="facet" data-testid="facet-data">
        <h3>Data keys</h3>
        {p.facets.dataKeys.length === 0 && (
          <div class="empty">{p.loaded ? "none in view" : "—"}</div>
        )}
        <ul>
          {p.facets.dataKeys.map((k) => {
            const st = state(p.chips, "has", `data.${k.key}`);
            return (
              <li key={k.key} class="datakey">
                <button
                  type="button"
                  class={`fv ${st}`}
                  title={`Show values of data.${k.key}. Alt-click: only records without it; Shift-click: only records with it`}
                  onClick={(e) => {
                    if (e.altKey || e.shiftKey)
                      p.onToggle({ field: "has", value: `data.${k.key}`, negate: e.altKey });
                    else setOpenKey(openKey === k.key ? null : k.key);
                  }}
                >
                  <span class="name">
                    {openKey === k.key ? "▾" : "▸"} {k.key}
                  </span>
                  <span class="count">{fmtCount(k.count)}</span>
                </button>
                {openKey === k.key &&
                  (k.values.length ? (
                    <Values
                      field={`data.${k.key}`}
                      values={k.values}
                      chips={p.chips}
                      onToggle={p.onToggle}
                      mono
                      limit={8}
                    />
                  ) : (
                    <div class="empty" style="margin-left:16px">
                      objects only
                    </div>
                  ))}
              </li>
            );
          })}
        </ul>
      </section>
      <div class="tip">
        Click includes · <kbd>Alt</kbd>-click excludes
      </div>
    </nav>
  );
}
