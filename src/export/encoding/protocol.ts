/**
 * Messages between a run's encoding thread (thread.ts) and its worker
 * (worker.ts). Rows travel column-wise (one array per column, structured-cloned:
 * cheaper to copy than one small array per row); encoded bytes come back as
 * transferred ArrayBuffers, in order, before the answer to the request that made them.
 */
import type { StowageErrorCode } from "../../shared/errors.js";
import type { FormatOptions } from "../formats/format.js";
import type { ColumnSpec } from "../sources/source.js";

export type ToWorker =
  | { t: "open"; id: number; seq: number; format: FormatOptions; columns: ColumnSpec[] }
  | { t: "rows"; id: number; seq: number; count: number; cols: unknown[][] }
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

/** Rows → one array per column (the wire form of a batch). */
export function toColumns(rows: unknown[][], width: number): unknown[][] {
  const cols: unknown[][] = [];
  for (let c = 0; c < width; c++) {
    const col = new Array<unknown>(rows.length);
    for (let r = 0; r < rows.length; r++) col[r] = rows[r]![c] ?? null;
    cols.push(col);
  }
  return cols;
}

/** The wire form back to rows. */
export function toRows(cols: unknown[][], count: number): unknown[][] {
  const rows: unknown[][] = new Array<unknown[]>(count);
  const width = cols.length;
  for (let r = 0; r < count; r++) {
    const row = new Array<unknown>(width);
    for (let c = 0; c < width; c++) row[c] = cols[c]![r];
    rows[r] = row;
  }
  return rows;
}
