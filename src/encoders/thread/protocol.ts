/**
 * Messages between a run's encoding thread (thread.ts) and its worker
 * (worker.ts). Rows travel column-wise (`WireColumn`: typed arrays and joined
 * strings, far cheaper to post than one small array per row); encoded bytes come back as
 * transferred ArrayBuffers, in order, before the answer to the request that made them.
 */
import type { StowageErrorCode } from "../../shared/errors.js";
import type { FormatOptions } from "../format.js";
import type { ColumnSpec } from "../columns.js";

export type ToWorker =
  | { t: "open"; id: number; seq: number; format: FormatOptions; columns: ColumnSpec[] }
  | { t: "rows"; id: number; seq: number; count: number; cols: WireColumn[] }
  | { t: "finish"; id: number; seq: number };

export interface WireError {
  code: StowageErrorCode;
  message: string;
  hint?: string;
}

export type FromWorker =
  | { t: "bytes"; id: number; chunk: Uint8Array }
  /** The request `seq` is done; the encoder's buffered figures after it. */
  | { t: "done"; id: number; seq: number; buffered: number; peak: number; bound: number }
  | { t: "error"; id: number; seq: number; error: WireError };

/**
 * One column of a batch on the wire: numbers, bigints and booleans in a typed array
 * (transferred, not copied), strings joined into one string plus their lengths (one
 * copy instead of one per value), anything else (bytes, mixed values) as an array.
 * `nulls[i]` is 1 for NULL.
 */
export type WireColumn =
  | { k: "f64"; v: Float64Array; nulls: Uint8Array }
  | { k: "i64"; v: BigInt64Array; nulls: Uint8Array }
  | { k: "bool"; v: Uint8Array; nulls: Uint8Array }
  | { k: "str"; v: string; lengths: Uint32Array; nulls: Uint8Array }
  | { k: "any"; v: unknown[] };

const I64_MIN = -(2n ** 63n);
/** Characters joined into one string per column at most (V8 caps strings near 2^29). */
const MAX_JOINED = 1 << 24;
const I64_MAX = 2n ** 63n - 1n;

function packColumn(rows: unknown[][], c: number): WireColumn {
  const n = rows.length;
  let first: unknown = null;
  for (let r = 0; r < n && first === null; r++) first = rows[r]![c] ?? null;
  const nulls = new Uint8Array(n);
  const t = typeof first;
  if (t === "string") {
    const lengths = new Uint32Array(n);
    const parts = new Array<string>(n);
    let ok = true;
    let total = 0;
    for (let r = 0; r < n; r++) {
      const v = rows[r]![c];
      if (v === null || v === undefined) {
        nulls[r] = 1;
        parts[r] = "";
      } else if (typeof v === "string") {
        parts[r] = v;
        lengths[r] = v.length;
        total += v.length;
      } else ok = false;
    }
    ok &&= total <= MAX_JOINED; // far below V8's string limit; huge values go one by one
    if (ok) return { k: "str", v: parts.join(""), lengths, nulls };
  } else if (t === "number" || t === "boolean") {
    const v = t === "number" ? new Float64Array(n) : new Uint8Array(n);
    let ok = true;
    for (let r = 0; r < n; r++) {
      const x = rows[r]![c];
      if (x === null || x === undefined) nulls[r] = 1;
      else if (typeof x === t) v[r] = x as number;
      else ok = false;
    }
    if (ok)
      return t === "number"
        ? { k: "f64", v: v as Float64Array, nulls }
        : { k: "bool", v: v as Uint8Array, nulls };
  } else if (t === "bigint") {
    const v = new BigInt64Array(n);
    let ok = true;
    for (let r = 0; r < n; r++) {
      const x = rows[r]![c];
      if (x === null || x === undefined) nulls[r] = 1;
      else if (typeof x === "bigint" && x >= I64_MIN && x <= I64_MAX) v[r] = x;
      else ok = false;
    }
    if (ok) return { k: "i64", v, nulls };
  }
  const v = new Array<unknown>(n);
  for (let r = 0; r < n; r++) v[r] = rows[r]![c] ?? null;
  return { k: "any", v };
}

/** Rows → wire columns, and the buffers to transfer with them. */
export function packRows(
  rows: unknown[][],
  width: number,
): { cols: WireColumn[]; transfer: ArrayBuffer[] } {
  const cols: WireColumn[] = [];
  const transfer: ArrayBuffer[] = [];
  for (let c = 0; c < width; c++) {
    const col = packColumn(rows, c);
    cols.push(col);
    if (col.k !== "any") transfer.push(col.nulls.buffer as ArrayBuffer);
    if (col.k === "f64" || col.k === "i64" || col.k === "bool")
      transfer.push(col.v.buffer as ArrayBuffer);
    if (col.k === "str") transfer.push(col.lengths.buffer as ArrayBuffer);
  }
  return { cols, transfer };
}

function unpackColumn(col: WireColumn, n: number): unknown[] {
  if (col.k === "any") return col.v;
  const out = new Array<unknown>(n);
  const nulls = col.nulls;
  if (col.k === "str") {
    let at = 0;
    for (let r = 0; r < n; r++) {
      if (nulls[r]) out[r] = null;
      else {
        const len = col.lengths[r]!;
        out[r] = col.v.slice(at, at + len);
        at += len;
      }
    }
    return out;
  }
  if (col.k === "bool") {
    for (let r = 0; r < n; r++) out[r] = nulls[r] ? null : col.v[r] === 1;
    return out;
  }
  for (let r = 0; r < n; r++) out[r] = nulls[r] ? null : col.v[r];
  return out;
}

/** Wire columns back to rows. */
export function unpackRows(cols: WireColumn[], count: number): unknown[][] {
  const values = cols.map((c) => unpackColumn(c, count));
  const rows: unknown[][] = new Array<unknown[]>(count);
  const width = values.length;
  for (let r = 0; r < count; r++) {
    const row = new Array<unknown>(width);
    for (let c = 0; c < width; c++) row[c] = values[c]![r];
    rows[r] = row;
  }
  return rows;
}
