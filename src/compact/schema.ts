/**
 * The one stable schema of compacted logs (docs/compaction.md): the v1 record fields as
 * typed columns, the JSON fields as JSON text, provenance, and the `columns:` promoted from
 * `data` with declared types. Column order and kinds never change within a layout version.
 */
import type { ColumnSpec } from "../encoders/columns.js";
import { StowageError } from "../shared/errors.js";

/** Declared types of promoted columns and the Parquet kind each is written as. */
export const PROMOTED_TYPES = ["string", "int64", "double", "bool", "timestamp"] as const;
export type PromotedType = (typeof PROMOTED_TYPES)[number];

/** A column copied out of `data`: `name`, from the path `data.<path…>`, of `type`. */
export interface PromotedColumn {
  name: string;
  type: PromotedType;
  path: string[];
}

/** What callers give: `{ route: "string" }` or `{ status: { type: "int64", path: "http.status" } }`. */
export type PromotedColumnsOption = Record<
  string,
  PromotedType | { type: PromotedType; path?: string }
>;

/** The base columns, in file order. Indexes are used by the row mapper (`ROW`). */
export const BASE_COLUMNS: readonly ColumnSpec[] = Object.freeze([
  { name: "timestamp", kind: "timestamptz", sourceType: "timestamp", unit: "millis" },
  { name: "level", kind: "string", sourceType: "level" },
  { name: "message", kind: "string", sourceType: "message" },
  { name: "service", kind: "string", sourceType: "service" },
  { name: "caller", kind: "string", sourceType: "caller" },
  { name: "traceId", kind: "string", sourceType: "traceId", dictionary: false },
  { name: "spanId", kind: "string", sourceType: "spanId", dictionary: false },
  { name: "data", kind: "json", sourceType: "data", dictionary: false },
  { name: "bindings", kind: "json", sourceType: "bindings", dictionary: false },
  { name: "error", kind: "json", sourceType: "error", dictionary: false },
  { name: "extra", kind: "json", sourceType: "other top-level fields", dictionary: false },
  { name: "sourceKey", kind: "string", sourceType: "v1 object key" },
  { name: "sourceLine", kind: "int32", sourceType: "line number (1-based)" },
]);

/** Row slots of the base columns. */
export const ROW = Object.freeze({
  timestamp: 0,
  level: 1,
  message: 2,
  service: 3,
  caller: 4,
  traceId: 5,
  spanId: 6,
  data: 7,
  bindings: 8,
  error: 9,
  extra: 10,
  sourceKey: 11,
  sourceLine: 12,
});

const KIND: Record<PromotedType, Pick<ColumnSpec, "kind" | "unit">> = {
  string: { kind: "string" },
  int64: { kind: "int64" },
  double: { kind: "float64" },
  bool: { kind: "bool" },
  timestamp: { kind: "timestamptz", unit: "millis" },
};

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Names a promoted column may not take: the base columns and the Hive partition columns. */
const RESERVED = new Set([...BASE_COLUMNS.map((c) => c.name.toLowerCase()), "dt", "hour"]);

/**
 * Validates promoted columns (names, types, paths); sorted by name so the schema does not
 * depend on the order they were given in.
 * @example resolveColumns({ route: "string", status: { type: "int64", path: "http.status" } })
 */
export function resolveColumns(option: PromotedColumnsOption | undefined): PromotedColumn[] {
  const out: PromotedColumn[] = [];
  for (const [name, spec] of Object.entries(option ?? {})) {
    const type = typeof spec === "string" ? spec : spec?.type;
    const path = typeof spec === "string" || spec?.path === undefined ? name : spec.path;
    if (!NAME.test(name))
      throw new StowageError(
        "config",
        `promoted column "${name.slice(0, 80)}": a name is letters, digits and _ (not first), at most 64`,
      );
    if (RESERVED.has(name.toLowerCase()))
      throw new StowageError(
        "config",
        `promoted column "${name}" collides with a base or partition column (${[...RESERVED].join(", ")})`,
      );
    if (!PROMOTED_TYPES.includes(type as PromotedType))
      throw new StowageError(
        "config",
        `promoted column "${name}": type must be one of ${PROMOTED_TYPES.join(", ")}, not "${String(type)}"`,
      );
    const segments = path.split(".");
    if (segments.some((s) => s === ""))
      throw new StowageError(
        "config",
        `promoted column "${name}": path "${path}" has an empty part`,
      );
    out.push({ name, type: type as PromotedType, path: segments });
  }
  const seen = new Set<string>();
  for (const c of out) {
    if (seen.has(c.name.toLowerCase()))
      throw new StowageError("config", `promoted column "${c.name}" is declared twice`);
    seen.add(c.name.toLowerCase());
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * `--column` flags: `name:type` (from `data.name`) or `name=a.b:type` (from `data.a.b`).
 * @example parseColumnFlags(["route:string", "status=http.status:int64"])
 */
export function parseColumnFlags(flags: readonly string[]): PromotedColumnsOption {
  const out: PromotedColumnsOption = {};
  for (const flag of flags) {
    const m = /^([^=:]+)(?:=([^:]+))?:([a-z0-9]+)$/.exec(flag);
    if (!m)
      throw new StowageError(
        "usage",
        `--column "${flag}" is not name:type or name=path:type (types: ${PROMOTED_TYPES.join(", ")})`,
      );
    out[m[1]!] = { type: m[3] as PromotedType, ...(m[2] ? { path: m[2] } : {}) };
  }
  return out;
}

/** The file schema: base columns, then the promoted ones. */
export function compactSchema(promoted: readonly PromotedColumn[]): ColumnSpec[] {
  return [
    ...BASE_COLUMNS.map((c) => ({ ...c })),
    ...promoted.map((c) => ({
      name: c.name,
      ...KIND[c.type],
      sourceType: `data.${c.path.join(".")} as ${c.type}`,
    })),
  ];
}
