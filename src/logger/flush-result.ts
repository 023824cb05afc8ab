/** The FlushResult shape (SPEC §3.2): what flush()/close() report, per destination. */
import type { DestinationResult } from "../delivery/sink.js";

export type { DestinationResult, RejectedCounts, Sink } from "../delivery/sink.js";

export interface FlushResult {
  ok: boolean;
  timedOut: boolean;
  /** One entry, `sink` (SPEC §3.2); its `kind` says s3 or local. */
  destinations: { sink: DestinationResult };
}
