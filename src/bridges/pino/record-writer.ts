/**
 * The part shared by the pino worker transport and the main-thread destination:
 * hands mapped records to `Logger.write`, keeps count of the writes still being
 * accepted and of the rejected ones, and turns pino's flush/close into the
 * logger's flush/close with a timeout, reporting failures (never secrets) to `onError`.
 */
import type { FlushResult } from "../../logger/flush-result.js";
import type { Logger } from "../../logger/logger.js";
import { mapPinoLine, type PinoFieldOptions } from "./map-record.js";

/** What the writer reports: a line that is not JSON, a rejected record, a failed flush. */
export type BridgeErrorReporter = (message: string) => void;

/** Writes to stderr: the default reporter of the pino bridges. */
export const stderrReporter: BridgeErrorReporter = (message) => {
  process.stderr.write(`stowage/pino: ${message}\n`);
};

export class PinoRecordWriter {
  /** Records accepted by the logger, and records it refused (queue/spool full, oversized). */
  accepted = 0;
  rejected = 0;
  private inFlight = 0;
  private idle: (() => void)[] = [];
  private lastRejection = "";

  constructor(
    readonly logger: Logger,
    private readonly fields: PinoFieldOptions,
    private readonly report: BridgeErrorReporter,
  ) {}

  /** Maps one parsed pino line and writes it; never throws. */
  write(line: Record<string, unknown>): void {
    let pending: Promise<void>;
    try {
      pending = this.logger.write(mapPinoLine(line, this.fields));
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
    if (!result.ok) {
      const problems = Object.values(result.destinations)
        .map((d) => {
          const why = d.failure
            ? `${d.failure.category} ${d.failure.code}: ${d.failure.message}`
            : "";
          return `${d.kind}: ${d.pending} record(s) pending${why ? `, ${why}` : ""}`;
        })
        .join("; ");
      this.report(`${what} ${result.timedOut ? "timed out" : "failed"} (${problems})`);
    }
    return result;
  }
}
