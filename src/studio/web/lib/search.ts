/**
 * The search language: plain words and "quoted phrases" match the message and
 * values; `field:value` (exact, case-insensitive, `*` wildcards), `-field:value`
 * excludes, `field:>=500` compares numbers, `level:>=warning` compares levels,
 * `has:field` tests presence. Fields resolve on the record, then `data`, then `bindings`.
 */
import { fieldValue, fingerprint, haystack, LEVEL_RANK, shortHash, type Row } from "./rows.js";

export interface Term {
  /** null for plain text. */
  field: string | null;
  value: string;
  negate: boolean;
}

const TOKEN = /(-)?(?:([A-Za-z_$@][\w.$@-]*):)?(?:"((?:[^"\\]|\\.)*)"|(\S+))/g;
const LEVEL_ALIASES: Record<string, string> = { warn: "warning", fatal: "critical", err: "error" };

/** `level:error -service:api "time out"` → three terms. */
export function parseQuery(q: string): Term[] {
  const terms: Term[] = [];
  for (const m of q.matchAll(TOKEN)) {
    const value = m[3] !== undefined ? m[3].replace(/\\(.)/g, "$1") : (m[4] ?? "");
    if (!value && m[3] === undefined) continue;
    terms.push({ field: m[2] ?? null, value, negate: m[1] === "-" });
  }
  return terms;
}

/** The canonical text of a term (chips, URL, AI context). */
export function termToString(t: Term): string {
  const v =
    /[\s"]/.test(t.value) || t.value === "" ? `"${t.value.replace(/(["\\])/g, "\\$1")}"` : t.value;
  return `${t.negate ? "-" : ""}${t.field ? `${t.field}:` : ""}${v}`;
}

function glob(pattern: string): RegExp {
  const esc = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${esc}$`, "is");
}

function compare(op: string, a: number, b: number): boolean {
  return op === ">" ? a > b : op === ">=" ? a >= b : op === "<" ? a < b : a <= b;
}

function scalarMatch(actual: unknown, value: string, exact: (s: string) => boolean): boolean {
  if (Array.isArray(actual)) return actual.some((v) => scalarMatch(v, value, exact));
  if (actual === undefined || actual === null) return value === "null" && actual === null;
  if (typeof actual === "object") return false;
  return exact(String(actual));
}

/** A predicate for one term (negation applied). */
export function compileTerm(t: Term): (row: Row) => boolean {
  const test = positive(t);
  return t.negate ? (r) => !test(r) : test;
}

function positive(t: Term): (row: Row) => boolean {
  const v = t.value.toLowerCase();
  if (t.field === null) return (r) => haystack(r).includes(v);
  const field = t.field;
  if (field === "has") return (r) => fieldValue(r.rec, t.value) !== undefined;
  if (field === "fp")
    return (r) => {
      const fp = fingerprint(r.rec);
      return fp !== null && shortHash(fp) === t.value;
    };
  const cmp = /^(>=|<=|>|<)(.+)$/.exec(t.value);
  if (field === "level") {
    if (cmp) {
      const rank = LEVEL_RANK[LEVEL_ALIASES[cmp[2]!.toLowerCase()] ?? cmp[2]!.toLowerCase()];
      if (rank === undefined) return () => false;
      return (r) => compare(cmp[1]!, LEVEL_RANK[r.level] ?? -1, rank);
    }
    const want = LEVEL_ALIASES[v] ?? v;
    return (r) => r.level === want;
  }
  if (cmp && Number.isFinite(Number(cmp[2]))) {
    const n = Number(cmp[2]);
    return (r) => {
      const a = fieldValue(r.rec, field);
      const num =
        typeof a === "number" ? a : typeof a === "string" && a.trim() !== "" ? Number(a) : NaN;
      return Number.isFinite(num) && compare(cmp[1]!, num, n);
    };
  }
  if (field === "message" || field === "msg") {
    return (r) => typeof r.rec.message === "string" && r.rec.message.toLowerCase().includes(v);
  }
  const exact = t.value.includes("*")
    ? (
        (re) => (s: string) =>
          re.test(s)
      )(glob(t.value))
    : (s: string) => s.toLowerCase() === v;
  return (r) => scalarMatch(fieldValue(r.rec, field), t.value, exact);
}

/**
 * One predicate for a list of terms: includes on the same field are OR'd
 * (facet values), everything else is AND'd.
 * @example compileTerms(parseQuery("level:error timeout"))(row)
 */
export function compileTerms(terms: Term[]): (row: Row) => boolean {
  const ors = new Map<string, ((r: Row) => boolean)[]>();
  const ands: ((r: Row) => boolean)[] = [];
  for (const t of terms) {
    if (t.field !== null && !t.negate && !/^[<>]/.test(t.value)) {
      const list = ors.get(t.field) ?? [];
      list.push(compileTerm(t));
      ors.set(t.field, list);
    } else {
      ands.push(compileTerm(t));
    }
  }
  for (const list of ors.values())
    ands.push(list.length === 1 ? list[0]! : (r) => list.some((p) => p(r)));
  if (ands.length === 0) return () => true;
  return (r) => {
    for (const p of ands) if (!p(r)) return false;
    return true;
  };
}
