/** The FlushResult shape (SPEC §3.2): what flush()/close() report, per destination. */
import type { ConnectorResult } from "../connectors/connector.js";
import type { ConnectorResults } from "../connectors/connector-set.js";
import type { DestinationResult } from "../delivery/sink.js";

export type { DestinationResult, RejectedCounts, Sink } from "../delivery/sink.js";
export type {
  ConnectorFailure,
  ConnectorRejectedCounts,
  ConnectorResult,
} from "../connectors/connector.js";

export interface FlushResult {
  /** The destination's (`sink`) verdict and timeout; a connector's failure never changes it. */
  ok: boolean;
  timedOut: boolean;
  /**
   * `sink` (SPEC §3.2; its `kind` says s3 or local), and one entry per configured
   * connector under its name (docs/connectors.md), each with its own `ok`.
   */
  destinations: {
    sink: DestinationResult;
    [connector: string]: DestinationResult | ConnectorResult;
  };
}

/** The result of a flush or close: the sink's outcome, with the connectors' results beside it. */
export function flushResult(
  sink: { result: DestinationResult; timedOut: boolean },
  connectors: ConnectorResults | undefined,
): FlushResult {
  return {
    ok: sink.result.ok && !sink.timedOut,
    timedOut: sink.timedOut,
    destinations: { sink: sink.result, ...connectors },
  };
}
