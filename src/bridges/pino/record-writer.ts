/**
 * The part shared by the pino worker transport and the main-thread destination:
 * hands mapped records to `Logger.write`, keeps count of the writes still being
 * accepted and of the rejected ones, and turns pino's flush/close into the
 * logger's flush/close with a timeout, reporting failures (never secrets) to `onError`:
 * how many of the records this bridge accepted were not delivered, and why.
 */
import type { FlushResult } from "../../logger/flush-result.js";
import type { Logger } from "../../logger/logger.js";
import { LEVEL_VALUES } from "../../record/levels.js";
import { mapPinoLine, type PinoFieldOptions } from "./map-record.js";
import type { BridgeErrorReporter } from "../shared/stderr-report.js";

export { stderrReporter, type BridgeErrorReporter } from "../shared/stderr-report.js";

export class PinoRecordWriter {
  /** Records accepted by the logger (below its level: not counted), and records it refused (queue/spool full, oversized). */
  accepted = 0;
  rejected = 0;
  private inFlight = 0;
  private idle: (() => void)[] = [];
  private lastRejection = "";

  /**
   * @param owned the bridge created the logger, so every record it delivered came
   * through this writer and `accepted − delivered` is the number not delivered.
   */
  constructor(
    readonly logger: Logger,
    private readonly fields: PinoFieldOptions,
    private readonly report: BridgeErrorReporter,
    private readonly owned = false,
  ) {}

  /** Maps one parsed pino line and writes it; never throws. */
  write(line: Record<string, unknown>): void {
    let pending: Promise<void>;
    try {
      const record = mapPinoLine(line, this.fields);
      // Below the logger's level write() resolves without keeping the record: not one of ours.
      if (LEVEL_VALUES[record.level ?? "info"] < LEVEL_VALUES[this.logger.level]) return;
      pending = this.logger.write(record);
    } catch (err) {
      this.onRejected(err);
      return;
    }
    this.inFlight++;
    pending.then(
      () => this.settle(true),
      (err: unknown) => {
        this.onRejected(err);
        this.settle(false);
      },
    );
  }

  /** Waits until every write has been accepted or refused, then flushes the logger. */
  async flush(timeoutMs: number): Promise<FlushResult> {
    await this.drained();
    return this.outcome(await this.logger.flush({ timeoutMs }), "flush");
  }

  /** Like flush, then closes the logger when the bridge owns it. */
  async close(timeoutMs: number, owned: boolean): Promise<FlushResult> {
    await this.drained();
    const result = owned
      ? await this.logger.close({ timeoutMs })
      : await this.logger.flush({ timeoutMs });
    return this.outcome(result, "close");
  }

  private drained(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private settle(ok: boolean): void {
    if (ok) this.accepted++;
    if (--this.inFlight === 0) for (const wake of this.idle.splice(0)) wake();
  }

  private onRejected(err: unknown): void {
    this.rejected++;
    this.lastRejection = err instanceof Error ? err.message : String(err);
  }

  private outcome(result: FlushResult, what: string): FlushResult {
    if (this.rejected > 0) {
      this.report(
        `${this.rejected} record(s) were refused by the logger (last: ${this.lastRejection})`,
      );
      this.rejected = 0;
    }
    if (!result.ok) this.report(this.describeFailure(result, what));
    return result;
  }

  /** Says why, and — when the bridge owns the logger — how many of its records did not arrive. */
  describeFailure(result: FlushResult, what: string): string {
    const sink = result.destinations.sink;
    const why = sink.failure
      ? `, ${sink.failure.category} ${sink.failure.code}: ${sink.failure.message}`
      : "";
    const message = `${what} ${result.timedOut ? "timed out" : "failed"} (${sink.kind}: ${sink.pending} record(s) pending${why})`;
    if (!this.owned) return message;
    const lost = Math.max(0, this.accepted - sink.delivered);
    return `${message}; ${lost} of ${this.accepted} record(s) not delivered`;
  }
}
