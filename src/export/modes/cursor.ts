/**
 * Incremental cursor values: which column kinds can be a cursor, the text form
 * stored in the bucket, the bound parameter for `cursor_column > ?`, and
 * tracking the greatest value seen while rows stream by.
 */
import { StowageError } from "../../shared/errors.js";
import { compareValues, formatDate, formatTimestamp } from "../../encoders/values.js";
import type { ColumnKind, QueryParam, SourceType } from "../sources/source.js";

/** Column kinds that can order rows (incremental cursors, keyset keys). */
export const CURSOR_KINDS: readonly ColumnKind[] = [
  "int32",
  "int64",
  "float64",
  "decimal",
  "string",
  "date",
  "timestamp",
  "timestamptz",
];

/** Throws a config error unless `kind` can order rows. */
export function checkCursorKind(column: string, kind: ColumnKind): void {
  if (!CURSOR_KINDS.includes(kind)) {
    throw new StowageError(
      "config",
      `cursor_column "${column}" is ${kind}; a cursor must be a number, decimal, text, date or timestamp`,
      {
        hint: "pick a column that only grows, e.g. an id or an updated_at timestamp",
      },
    );
  }
}

/** The stored text form of a cursor value (exact for bigints/decimals; timestamps keep microseconds). */
export function cursorText(kind: ColumnKind, v: unknown): string {
  if (kind === "date") return formatDate(v as number);
  if (kind === "timestamp" || kind === "timestamptz")
    return formatTimestamp(v as bigint, kind === "timestamptz");
  return String(v);
}

/** The query parameter for a stored cursor text, in the form each database compares correctly. */
export function cursorParam(kind: ColumnKind, text: string, source: SourceType): QueryParam {
  switch (kind) {
    case "int64":
      return source === "sqlite" ? BigInt(text) : text;
    case "int32":
    case "float64":
      return Number(text);
    case "timestamp":
    case "timestamptz": {
      const spaced = text.replace("T", " ").replace(/Z$/, "");
      return kind === "timestamptz" && source === "postgres" ? `${spaced}+00:00` : spaced;
    }
    default:
      return text;
  }
}

/** Keeps the greatest non-NULL value of one column across batches. */
export class MaxTracker {
  max: unknown = null;
  constructor(
    /** The column's index in a row. */
    readonly index: number,
    private readonly kind: ColumnKind,
  ) {}

  /** Sees a batch's values of the column. */
  see(values: readonly unknown[]): void {
    const decimal = this.kind === "decimal";
    for (const v of values) {
      if (v === null || v === undefined) continue;
      if (this.max === null || compareValues(v, this.max, decimal) > 0) this.max = v;
    }
  }
}
