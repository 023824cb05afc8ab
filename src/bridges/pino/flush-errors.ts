/**
 * `withFlushErrors(transport)`: on the app's (main) thread, hands pino's
 * `logger.flush(cb)` the delivery error of the stowage/pino transport.
 *
 * Why a wrapper: thread-stream (pino's worker plumbing) has no way to fail one flush —
 * any error from the worker's destination ends the worker and emits 'error' on the
 * app's stream (issue 30 row 2). So the worker always completes the flush and first
 * posts its outcome as a `stowage:flush` event, which thread-stream re-emits on the
 * transport stream before it calls the flush callback. Worker flushes run one at a
 * time and in order, so the last outcome received when a callback runs is its own.
 * Without the wrapper the callback gets no error; the failure is still on stderr.
 */
import { StowageError } from "../../shared/errors.js";

/** The event the worker posts after each flush. */
export const FLUSH_EVENT = "stowage:flush";

/** A flush's outcome as it crosses from the worker: plain data. */
export type FlushOutcome = { ok: true } | { ok: false; message: string };

/** The part of pino's transport stream (thread-stream) that the wrapper uses. */
export interface FlushableTransport {
  flush(cb?: (err?: Error | null) => void): void;
  on(event: string, listener: (outcome: FlushOutcome) => void): unknown;
}

/**
 * @example
 * const transport = withFlushErrors(pino.transport({ target: "stowage/pino", options }));
 * const log = pino(transport);
 * log.flush((err) => { if (err) console.error(err.message); }); // delivery failed or timed out
 */
export function withFlushErrors<T extends FlushableTransport>(transport: T): T {
  let last: FlushOutcome = { ok: true };
  transport.on(FLUSH_EVENT, (outcome) => {
    last = outcome;
  });
  const flush = transport.flush.bind(transport);
  transport.flush = (cb) => {
    flush((err) => {
      if (err) return cb?.(err);
      const outcome = last;
      last = { ok: true };
      cb?.(outcome.ok ? null : new StowageError("storage", outcome.message));
    });
  };
  return transport;
}
