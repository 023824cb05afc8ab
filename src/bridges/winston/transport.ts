/**
 * `StowageTransport`: a winston ≥ 3 transport (winston-transport) that hands each
 * `info` to a Stowage logger; batching, redaction, retries, the spool and
 * `FlushResult` are that logger's.
 *
 * Invariants:
 * - `log()` never throws into winston and calls back at once: the record is in the
 *   logger's buffer (memory) or on its way into the spool, counted until accepted.
 * - `logger.end()`: winston ends every transport and emits its own 'finish' only after
 *   theirs. This transport's `_final` waits for the writes still being accepted, then
 *   closes the logger it owns (flushes one it was given) within `flushTimeoutMs`, so
 *   winston's 'finish' means every record is delivered — or the failure was reported.
 * - The stream never fails: an error passed to a stream callback would become winston's
 *   'error' event, which crashes an app without a listener. A failure is written to
 *   stderr (`onError`) and emitted as 'warn' (winston re-emits it as the logger's
 *   `'warn'` (err, transport)), and it is kept in `lastResult`.
 */
import TransportStream from "winston-transport";
import type { FlushResult } from "../../logger/flush-result.js";
import type { Logger } from "../../logger/logger.js";
import { StowageError } from "../../shared/errors.js";
import { openBridgeLogger } from "../shared/open-logger.js";
import { tagChildBindings, type ChildMaker } from "./child-bindings.js";
import { LevelMapper, type WinstonLevels } from "./levels.js";
import { mapWinstonInfo, type WinstonInfo } from "./map-info.js";
import { resolveWinstonOptions, type WinstonTransportOptions } from "./options.js";
import { BridgeRecordWriter, type DeliveryOutcome } from "../shared/record-writer.js";
import type { BridgeErrorReporter as WinstonErrorReporter } from "../shared/stderr-report.js";

/** The delivery error a 'warn' event carries: the message, and the logger's FlushResult. */
export class StowageDeliveryError extends StowageError {
  constructor(
    message: string,
    readonly result: FlushResult,
  ) {
    super("storage", message);
  }
}

/** What winston-transport keeps about the logger it is piped from. */
interface PipedState {
  levels?: WinstonLevels;
  parent?: (ChildMaker & { defaultMeta?: unknown }) | null;
  _ending?: boolean;
}

/**
 * @example
 * import winston from "winston";
 * import { StowageTransport } from "stowage/winston";
 * const logger = winston.createLogger({
 *   format: winston.format.errors({ stack: true }),
 *   transports: [new StowageTransport({ config: "stowage.config.yaml" })],
 * });
 * logger.child({ requestId: "r-1" }).info("paid", { orderId: 7 });
 * logger.on("finish", () => process.exit(0)); // every record delivered (or the failure reported)
 * logger.end();
 */
export class StowageTransport extends TransportStream {
  /** The Stowage logger the records go to. */
  readonly stowage: Logger;
  /** The result of the last `flushDelivery()` or of the close at `end()`; undefined before either. */
  lastResult: FlushResult | undefined;
  private readonly writer: BridgeRecordWriter;
  private readonly mapper: LevelMapper;
  private readonly timeoutMs: number;
  private readonly report: WinstonErrorReporter;
  private closing: Promise<FlushResult | undefined> | undefined;

  constructor(options: WinstonTransportOptions = {}) {
    const resolved = resolveWinstonOptions(options);
    super(resolved.stream);
    const { logger, owned } = openBridgeLogger(resolved.logger, "stowage/winston");
    this.stowage = logger;
    this.writer = new BridgeRecordWriter(logger, owned);
    this.mapper = new LevelMapper(resolved.levelMap);
    this.timeoutMs = resolved.flushTimeoutMs;
    this.report = resolved.report;
    // winston pipes each logger it is added to into its transports: tag that logger's children.
    this.on("pipe", (source: ChildMaker) => tagChildBindings(source));
  }

  /** winston-transport calls this for each record at this transport's level. */
  override log(info: WinstonInfo, next: () => void): void {
    const state = this as PipedState;
    try {
      this.writer.write(mapWinstonInfo(info, this.mapper, state.levels, state.parent?.defaultMeta));
    } catch (err) {
      // mapWinstonInfo guards its reads; this is the last line of "never throw into the app".
      this.report(
        `a record could not be mapped: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    if (this.listenerCount("logged") > 0) setImmediate(() => this.emit("logged", info));
    next();
    // winston's exception and rejection handlers mark their transports ending and exit on
    // their 'finish' (or after 3 s): deliver the record now rather than lose it at exit.
    if (state._ending === true && !this.writableEnded) this.end();
  }

  /**
   * Waits for the records logged so far to be delivered (or the timeout); never rejects.
   * A failure is also reported (stderr, 'warn').
   * @example const r = await transport.flushDelivery(); if (!r.ok) …
   */
  async flushDelivery(): Promise<FlushResult> {
    return this.settle(await this.writer.flush(this.timeoutMs));
  }

  /** Node's Writable calls this at `end()`, before 'finish'. Never fails the stream. */
  override _final(callback: (error?: Error | null) => void): void {
    void this.shutdown().finally(() => callback());
  }

  /** winston calls this when the transport is removed (`logger.remove`, `clear`, `close`). */
  override close(): void {
    void this.shutdown();
  }

  /** Closes (or flushes) the logger once; resolves undefined when that itself failed. Never rejects. */
  private shutdown(): Promise<FlushResult | undefined> {
    this.closing ??= this.writer.close(this.timeoutMs).then(
      (outcome) => this.settle(outcome),
      (err: unknown) => {
        // The logger's flush and close never reject; should one, it is still only reported.
        this.report(`close failed: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      },
    );
    return this.closing;
  }

  private settle({ result, problems }: DeliveryOutcome): FlushResult {
    this.lastResult = result;
    for (const problem of problems) {
      this.report(problem);
      try {
        this.emit("warn", new StowageDeliveryError(`stowage/winston: ${problem}`, result));
      } catch {
        // A throwing 'warn' listener is the app's; delivery has already been reported.
      }
    }
    return result;
  }
}
