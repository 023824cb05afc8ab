/**
 * The Sink contract between the logger and its delivery pipeline (implemented
 * once, by DeliverySink in delivery-sink.ts, over the memory or sqlite buffer),
 * and the per-destination result it reports (SPEC §3.2 FlushResult).
 */
import type { DeliveryFailure } from "./sealed-batch.js";

export interface RejectedCounts {
  /** Records over `maxRecordBytes` (including the newline). */
  oversized: number;
  /** Records refused because `maxQueueBytes` was reached. */
  queueFull: number;
  /** Records refused because `maxSpoolBytes` was reached (sqlite buffer). */
  spoolFull: number;
}

export interface DestinationResult {
  kind: "s3" | "local";
  /** No latched failure and nothing pending. */
  ok: boolean;
  /** Records confirmed in the bucket since the logger was created. */
  delivered: number;
  /** Accepted records not yet delivered or failed. */
  pending: number;
  /** Objects written (or confirmed existing after an ambiguous success). */
  objects: number;
  /** Upload attempts that failed and were retried (each is also an `onEvent` "retry"). */
  retries: number;
  /** sqlite buffer: records in the spool held by another live owner, not deliverable by this logger yet. */
  heldByOthers?: number;
  rejected: RejectedCounts;
  /** The latch: set by the first permanent failure or exhausted batch; never cleared. */
  failure: DeliveryFailure | null;
}

/** What the logger needs from its delivery pipeline (DeliverySink, either buffer). */
export interface Sink {
  readonly kind: "s3" | "local";
  /**
   * Accepts one serialised record (no newline). Returns null when accepted, or
   * the rejection reason (already counted). Never throws, never does I/O inline.
   */
  accept(line: string, timestampMs: number): keyof RejectedCounts | "closed" | null;
  /**
   * Like accept, but resolves when the record is durable in the buffer (sqlite: committed);
   * returns the outcome itself when it is known at once (memory, or a rejection).
   */
  acceptDurable(
    line: string,
    timestampMs: number,
  ): keyof RejectedCounts | "closed" | null | Promise<keyof RejectedCounts | "closed" | null>;
  /** Seals open batches and waits for delivery, failure, a pause, or the timeout. Never rejects. */
  flush(timeoutMs: number | undefined): Promise<{ result: DestinationResult; timedOut: boolean }>;
  /** flush, then release timers, sockets and workers. */
  close(timeoutMs: number | undefined): Promise<{ result: DestinationResult; timedOut: boolean }>;
}
