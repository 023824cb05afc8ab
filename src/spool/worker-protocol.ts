/**
 * Messages between the sqlite sink (main thread) and the spool worker. Every
 * main → worker message that expects an answer carries a sequence number; the
 * worker answers in order (one MessagePort, FIFO).
 */
import type { BatchFailure, SpoolBatchInput } from "./spool.js";

/** workerData of the spool worker. */
export interface SpoolWorkerConfig {
  path: string;
  /** Key prefix of the destination (v1 layout). */
  prefix: string;
  leaseMs: number;
  maxBatchBytes: number;
  maxBatchRecords: number;
  flushIntervalMs: number;
  gzipLevel?: number;
  /** Batches handed to the main thread and not yet completed, at most. */
  window: number;
  /** The destination identity the spool is bound to (spool-destination.ts). */
  destination?: string;
  /** The sqlite buffer's writer id: its group marks (exit-commit.ts). */
  writer?: string;
}

/** Records accepted on the main thread, in one group (`seq`: 1, 2, 3… per writer). */
export interface RecordsMessage {
  t: "rec";
  seq: number;
  lines: string[];
  ts: number[];
}

export type ToWorker =
  | RecordsMessage
  /** Commit, seal every open batch, hand out batches; answered by "synced". */
  | { t: "sync"; id: number }
  /** A batch's delivery ended; answered by "doneAck". */
  | { t: "done"; id: string; ok: boolean; failure?: BatchFailure }
  /** Release leases, close the database; answered by "closed". */
  | { t: "close" };

/** A leased batch handed to the main thread for upload: the stored batch, as is. */
export type WireBatch = SpoolBatchInput;

export interface WireError {
  code: string;
  message: string;
  hint?: string;
}

export type FromWorker =
  | { t: "ready"; bytes: number }
  /** Every record group up to `seq` is committed; `bytes` is the spool's logical payload now. */
  | { t: "ack"; seq: number; bytes: number }
  /** The group `seq` could not be committed (e.g. disk full): its records are lost, counted. */
  | { t: "nack"; seq: number; error: WireError }
  | { t: "bytes"; bytes: number }
  /** `backlog`: the batch was claimed from the spool (not sealed from this logger's records). */
  | { t: "batch"; batch: WireBatch; backlog: boolean }
  /** Records adopted from dead owners: this logger now delivers them too. */
  | { t: "adopted"; records: number }
  /**
   * Records no longer ours to deliver: adopted by another owner (after a long stall), or groups
   * the process-end commit stored under an owner row of their own (adopted like any other).
   */
  | { t: "transferred"; records: number }
  /** `held`: records in the spool another live owner holds (not deliverable by this logger yet). */
  | { t: "synced"; id: number; busy: boolean; held: number }
  | { t: "doneAck"; count: number }
  | { t: "closed" }
  | { t: "fatal"; error: WireError };

export function toWireError(err: unknown): WireError {
  const e = err as { code?: unknown; message?: unknown; hint?: unknown } | null;
  return {
    code: typeof e?.code === "string" ? e.code : "SpoolError",
    message: typeof e?.message === "string" ? e.message : String(err),
    ...(typeof e?.hint === "string" ? { hint: e.hint } : {}),
  };
}
