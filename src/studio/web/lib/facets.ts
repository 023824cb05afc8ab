/**
 * The filtered view and its facet counts in one pass. Facet counts for a
 * dimension ignore that dimension's own chips (so picking `level:error` still
 * shows how many `warning` rows there are), as log explorers do.
 */
import { compileTerms, type Term } from "./search.js";
import type { Row } from "./rows.js";

export interface FacetValue {
  value: string;
  count: number;
}

export interface DataKeyFacet {
  key: string;
  count: number;
  values: FacetValue[];
  /** Distinct scalar values seen (capped at MAX_DISTINCT + 1). */
  distinct: number;
}

export interface Facets {
  level: FacetValue[];
  service: FacetValue[];
  caller: FacetValue[];
  error: FacetValue[];
  dataKeys: DataKeyFacet[];
}

export interface ViewInput {
  rows: Row[];
  search: Term[];
  chips: Term[];
  /** Histogram brush: only rows in `[from, to)`. */
  window: { from: number; to: number } | null;
}

const MAX_DISTINCT = 200;

/** The dimension a chip belongs to: its field, or the tested field for `has:`. */
export function chipDimension(t: Term): string {
  return t.field === "has" ? t.value : (t.field ?? "");
}

type Counter = Map<string, number>;
const bump = (m: Counter, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
const top = (m: Counter, n = 50): FacetValue[] =>
  [...m]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value))
    .slice(0, n);

/** The fixed dimensions: [chip field, value of a row]. */
const SIMPLE: readonly [string, (r: Row) => unknown][] = [
  ["level", (r) => r.level],
  ["service", (r) => r.rec.service],
  ["caller", (r) => r.rec.caller],
  ["error.name", (r) => r.rec.error?.name],
];

/**
 * @example const { visible, facets } = deriveView({ rows, search: parseQuery(q), chips, window: null });
 */
export function deriveView(input: ViewInput): { visible: Row[]; facets: Facets } {
  const searchOk = compileTerms(input.search);
  const dims = new Map<string, Term[]>();
  for (const c of input.chips)
    dims.set(chipDimension(c), [...(dims.get(chipDimension(c)) ?? []), c]);
  const dimNames = [...dims.keys()];
  const dimPreds = dimNames.map((d) => compileTerms(dims.get(d)!));
  const bitOf = new Map(dimNames.map((d, i) => [d, 1 << i] as const));
  const counters: Counter[] = SIMPLE.map(() => new Map());
  const simpleBits = SIMPLE.map(([dim]) => bitOf.get(dim) ?? -1);
  const dataBits = new Map<string, number>();
  for (const [d, b] of bitOf) if (d.startsWith("data.")) dataBits.set(d.slice(5), b);
  const keyCount: Counter = new Map();
  const keyValues = new Map<string, Counter>();
  const visible: Row[] = [];
  const w = input.window;

  for (const row of input.rows) {
    if (w && (row.ts < w.from || row.ts >= w.to)) continue;
    if (!searchOk(row)) continue;
    let mask = 0;
    for (let i = 0; i < dimPreds.length; i++) if (!dimPreds[i]!(row)) mask |= 1 << i;
    if (mask === 0) visible.push(row);
    for (let i = 0; i < SIMPLE.length; i++) {
      if (mask !== 0 && mask !== simpleBits[i]) continue;
      const v = SIMPLE[i]![1](row);
      if (typeof v === "string" && v !== "") bump(counters[i]!, v);
    }
    const data = row.rec.data as Record<string, unknown> | undefined;
    if (data && typeof data === "object" && !Array.isArray(data)) {
      for (const k in data) {
        const v = data[k];
        if (mask !== 0 && mask !== dataBits.get(k)) continue;
        bump(keyCount, k);
        if (v === null || typeof v === "object") continue;
        let vals = keyValues.get(k);
        if (!vals) keyValues.set(k, (vals = new Map()));
        const s = String(v).slice(0, 80);
        if (vals.size <= MAX_DISTINCT || vals.has(s)) bump(vals, s);
      }
    }
  }
  const dataKeys = top(keyCount, 12).map(({ value: key, count }) => {
    const vals = keyValues.get(key) ?? new Map<string, number>();
    return { key, count, values: top(vals, 8), distinct: vals.size };
  });
  return {
    visible,
    facets: {
      level: top(counters[0]!),
      service: top(counters[1]!),
      caller: top(counters[2]!),
      error: top(counters[3]!),
      dataKeys,
    },
  };
}
