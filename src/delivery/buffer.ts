/**
 * The buffer interface behind the one DeliverySink (delivery-sink.ts): where
 * accepted records wait until they are sealed into v1 batches. Two
 * implementations: the memory buffer (delivery/memory-buffer.ts) and the
 * sqlite spool (spool/sqlite-buffer.ts).
 *
 * The sink owns every rule about records — admission, counting, the latch,
 * dispatch, flush, close and the result. A buffer only stores, seals and hands
 * out batches, keeps its own byte accounting, and reports through BufferHost
 * what only it can know (records it lost, adopted or gave away).
 */
import type { SealedBatch } from "./sealed-batch.js";
import type { StowageError } from "../shared/errors.js";

/** A failure as the latch records it (SPEC §3.2 `failure`, without time and count). */
export interface FailureCause {
  category: string;
  code: string;
  message: string;
}

/** What a buffer tells the sink that drives it. Every call is synchronous and never throws. */
export interface BufferHost {
  /** A sealed batch, ready to upload; its outcome comes back through `DeliveryBuffer.outcome`. */
  batch(batch: SealedBatch): void;
  /**
   * Records this sink accepted (or adopted) that will never be delivered — a batch that
   * could not be encoded, a record group the spool could not commit: counted failed, and
   * the latch is set. `records` may be 0 (the buffer failed with nothing of ours in flight).
   */
  lost(records: number, cause: FailureCause): void;
  /** Records taken over from a dead owner of shared storage: this sink now owes them too. */
  adopted(records: number): void;
  /** Records another owner took over from this sink: no longer owed here. */
  transferred(records: number): void;
}

export interface DeliveryBuffer {
  /** Bytes of accepted records the buffer holds in memory now (checked against maxQueueBytes). */
  readonly queuedBytes: number;
  /** Bytes in durable storage (checked with queuedBytes against maxSpoolBytes); undefined: no such limit. */
  readonly spoolBytes: number | undefined;
  /** Set once the buffer can take no more records (its storage failed); never cleared. */
  readonly error: StowageError | null;
  /** Records in shared storage held by another live owner (last count), when the buffer has shared storage. */
  readonly heldByOthers: number | undefined;
  /**
   * Takes one admitted record. `size` is its UTF-8 bytes + newline when the sink measured
   * it; undefined when it did not need to (the line fits every limit whatever its
   * encoding): the buffer then counts the bytes it actually keeps. Synchronous, no I/O
   * inline. Throws only for a malformed line, before keeping anything.
   */
  add(line: string, timestampMs: number, size: number | undefined): void;
  /**
   * Like add; resolves once the record is durable (sqlite: committed), rejects with `error`
   * if it is lost. Returns undefined when the record is as durable as it gets at once
   * (memory: kept), so a caller needs no promise.
   */
  addDurable(
    line: string,
    timestampMs: number,
    size: number | undefined,
  ): Promise<void> | undefined;
  /**
   * Seals everything open and resolves once every sealed batch was handed to the host
   * (or lost). Resolves `true` while the buffer may still hold deliverable work it has not
   * handed out yet (spool backlog, adoption under way, a full window): the sink asks again.
   * Never rejects.
   */
  sealAll(): Promise<boolean>;
  /** The upload of a batch from `host.batch` ended (delivered, or failed for good). */
  outcome(batch: SealedBatch, ok: boolean, failure?: FailureCause): void;
  /** Releases timers, threads and storage; batches still with the sink stay owed (sqlite: back to the spool). */
  close(): Promise<void>;
}
