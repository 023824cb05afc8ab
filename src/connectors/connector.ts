/**
 * The Connector role (docs/connectors.md): an outbound channel beside the destination
 * that receives the same redacted record lines, and the result it reports under
 * `flush().destinations.<name>`. A connector never delays, fails or counts against the
 * destination: its queue, its retries and its failures are its own.
 */
import type { ErrorCategory } from "../store/classify-error.js";

/** Records a connector refused at the door (counted, never thrown). */
export interface ConnectorRejectedCounts {
  /** A record larger than the connector's `maxBatchBytes`. */
  oversized: number;
  /** A record that would push the queue past `maxQueueBytes`. */
  queueFull: number;
}

/** The first failure of a connector, latched for its lifetime (like the sink's). */
export interface ConnectorFailure {
  category: ErrorCategory;
  code: string;
  /** Never holds a header value (secrets are scrubbed before it is kept). */
  message: string;
  /** ISO time of the first failure. */
  since: string;
  /** Batches given up since then (attempts exhausted, a permanent answer, records refused). */
  batches: number;
}

/** `flush().destinations.<name>` for a connector: the sink's shape, with its own counts. */
export interface ConnectorResult {
  kind: "otlp-http";
  /** No latched failure and nothing pending. */
  ok: boolean;
  /** Records the receiver accepted. */
  delivered: number;
  /** Records offered and neither delivered nor failed yet. */
  pending: number;
  /** Records given up: attempts exhausted, a permanent answer, or refused by the receiver. */
  failed: number;
  /** Requests the receiver answered with success. */
  requests: number;
  /** Attempts that failed and were retried through the retry policy. */
  retries: number;
  /** This connector's own bounded wait (`flushTimeoutMs`) ended with work pending. */
  timedOut: boolean;
  rejected: ConnectorRejectedCounts;
  failure: ConnectorFailure | null;
}

/** What the logger needs of a connector. */
export interface Connector {
  readonly name: string;
  /** Least severe level value (record/levels LEVEL_VALUES) this connector takes. */
  readonly minLevel: number;
  /** One redacted record line (no newline). Never throws, never does I/O inline. */
  offer(line: string): void;
  /** Sends what is queued; waits at most min(timeoutMs, its flushTimeoutMs). Never rejects. */
  flush(timeoutMs: number | undefined): Promise<ConnectorResult>;
  /** flush, then abort what is in flight and release timers and sockets. Never rejects. */
  close(timeoutMs: number | undefined): Promise<ConnectorResult>;
}

/** The error an event carries (classified; never a header value). */
export interface ConnectorEventError {
  category: string;
  code: string;
  message: string;
}

/** What a connector reports to the logger's `onEvent` as it happens (docs/connectors.md). */
export type ConnectorEvent =
  /** A POST failed and will be retried after `delayMs` (also counted in `retries`). */
  | {
      type: "connector-retry";
      connector: string;
      attempt: number;
      delayMs: number;
      error: ConnectorEventError;
    }
  /** Records were given up (also counted in `failed`): attempts exhausted, a permanent answer, refused by the receiver, or left at exit. */
  | {
      type: "connector-failed";
      connector: string;
      records: number;
      error: ConnectorEventError;
    };

/** A listener; what it throws is swallowed (a listener never breaks a connector). */
export type ConnectorEventListener = (event: ConnectorEvent) => void;
