/**
 * Typed delivery events: what the sink reports to `onEvent` as it
 * happens — retries, rejected records, the failure latch, adopted spool work —
 * so retries and losses are visible without polling flush().
 */
import { notify } from "../shared/notify.js";
import type { DeliveryFailure } from "./sealed-batch.js";

/** Why a record was not accepted. */
export type RejectReason = "oversized" | "queueFull" | "spoolFull" | "closed";

export type DeliveryEvent =
  /** An upload attempt failed and will be retried after `delayMs`. */
  | {
      type: "retry";
      key: string;
      attempt: number;
      delayMs: number;
      error: { category: string; code: string; message: string };
    }
  /** A record was refused (and counted in `rejected`). */
  | { type: "rejected"; reason: RejectReason; bytes: number }
  /** The failure latch was set (first permanent failure or exhausted batch). */
  | { type: "latched"; failure: DeliveryFailure }
  /** Records left by a dead owner of the spool were taken over by this logger. */
  | { type: "adopted"; records: number };

/** A listener; exceptions it throws are swallowed (a listener never breaks delivery). */
export type DeliveryEventListener = (event: DeliveryEvent) => void;

/**
 * Calls `listener` with `event`, never throwing.
 * @example emit(onEvent, { type: "adopted", records: 12 });
 */
export function emit(listener: DeliveryEventListener | undefined, event: DeliveryEvent): void {
  notify(listener, event);
}
