/** A sealed, encoded batch ready for upload: one immutable v1 object (SPEC §3.4). */

export interface SealedBatch {
  /** Full object key (v1 layout). */
  key: string;
  /** gzip NDJSON body; every attempt sends exactly these bytes. */
  body: Uint8Array;
  records: number;
  decodedBytes: number;
  minMs: number;
  maxMs: number;
  /** x-amz-meta-* values (stowage-format, min-ms, max-ms, records, decoded-bytes). */
  metadata: Record<string, string>;
}

/** A latched delivery failure as reported in FlushResult (SPEC §3.2). */
export interface DeliveryFailure {
  category: string;
  code: string;
  message: string;
  /** ISO time the latch was set. */
  since: string;
  /** Batches that failed (permanently or after exhausting attempts). */
  batches: number;
}
