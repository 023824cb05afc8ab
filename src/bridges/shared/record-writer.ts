/**
 * The logger side of the logging-library bridges (pino, winston): hands mapped records to
 * `Logger.write` and turns the library's flush and close into the logger's, with a timeout. Keeps count of the writes still
 * being accepted (a flush waits for them) and of the records the logger refused,
 * and describes every failure (never secrets): how many of the records this
 * bridge accepted were not delivered, and why.
 *
 * Invariant: `write` never throws and never rejects; a refusal is counted and
 * reported at the next flush or close.
 */
import type { FlushResult } from "../../logger/flush-result.js";
import type { Logger } from "../../logger/logger.js";
import { LEVEL_VALUES } from "../../record/levels.js";
import type { LogRecord } from "../../record/record.js";

/** A record as a bridge maps it: any part of a LogRecord, written through `Logger.write`. */
export type BridgeRecord = Partial<LogRecord> & { message?: unknown };

/** A flush or close: the logger's result and what went wrong, one line each (empty when ok). */
export interface DeliveryOutcome {
  result: FlushResult;
  problems: string[];
}

export class BridgeRecordWriter {
  /** Records the logger accepted (below its level: not counted), and records it refused. */
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
    private readonly owned: boolean,
  ) {}

  /** Writes one record; never throws. */
  write(record: BridgeRecord): void {
    let pending: Promise<void>;
    try {
      // Below the logger's level write() resolves without keeping the record: not one of ours.
      if (LEVEL_VALUES[record.level ?? "info"] < LEVEL_VALUES[this.logger.level]) return;
      pending = this.logger.write(record);
    } catch (err) {
      this.refused(err);
      return;
    }
    this.inFlight++;
    pending.then(
      () => this.settle(true),
      (err: unknown) => {
        this.refused(err);
        this.settle(false);
      },
    );
  }

  /** Waits until every write has been accepted or refused, then flushes the logger. */
  async flush(timeoutMs: number): Promise<DeliveryOutcome> {
    await this.drained();
    return this.outcome(await this.logger.flush({ timeoutMs }), "flush");
  }

  /** Like flush, then closes the logger when the bridge owns it (an app's own logger stays open). */
  async close(timeoutMs: number): Promise<DeliveryOutcome> {
    await this.drained();
    const result = this.owned
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

  /** A record that could not be written (refused by the logger, or not mappable): reported at the next flush or close. */
  refused(err: unknown): void {
    this.rejected++;
    this.lastRejection = err instanceof Error ? err.message : String(err);
  }

  private outcome(result: FlushResult, what: string): DeliveryOutcome {
    const problems: string[] = [];
    if (this.rejected > 0) {
      problems.push(
        `${this.rejected} record(s) were refused by the logger (last: ${this.lastRejection})`,
      );
      this.rejected = 0;
    }
    if (!result.ok) problems.push(this.describeFailure(result, what));
    return { result, problems };
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
