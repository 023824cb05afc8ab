/**
 * `stowage/otel`: a `LogRecordExporter` for `@opentelemetry/sdk-logs` (mapping in
 * map-record.ts). `export` writes every record of the batch it can, and answers
 * SUCCESS once the logger accepted all of them (committed, with the sqlite buffer)
 * or FAILED naming how many were not exported and why; the valid records are written
 * either way (issue 30 row 8: one bad timestamp used to lose its whole batch).
 * `forceFlush`/`shutdown` are the logger's flush/close and reject when delivery did
 * not complete or when any record was lost (loss-counts.ts). OpenTelemetry is
 * referenced by type only.
 */
import { checkBridgeOptions } from "../shared/bridge-options.js";
import type { ExportResult } from "@opentelemetry/core";
import type { LogRecordExporter, ReadableLogRecord } from "@opentelemetry/sdk-logs";
import type { FlushResult } from "../../logger/flush-result.js";
import type { Logger } from "../../logger/logger.js";
import { StowageError } from "../../shared/errors.js";
import { LossCounts, type OtelExportCounts } from "./loss-counts.js";
import { InvalidOtelRecord, mapOtelRecord } from "./map-record.js";

/** ExportResultCode of @opentelemetry/core (SUCCESS = 0, FAILED = 1), without loading it. */
const SUCCESS = 0;
const FAILED = 1;

export interface StowageOtelExporterOptions {
  /** How long forceFlush/shutdown wait for delivery (default 30,000 ms). */
  timeoutMs?: number;
  /** Close the logger on shutdown (default true); false when the app keeps using it. */
  closeLogger?: boolean;
}

/**
 * @example
 * const provider = new LoggerProvider({ resource,
 *   processors: [new BatchLogRecordProcessor({ exporter: new StowageLogExporter(createLogger()) })] });
 * provider.getLogger("checkout").emit({ severityNumber: SeverityNumber.INFO, body: "paid" });
 * await provider.shutdown(); // delivers, or rejects saying why not
 */
export class StowageLogExporter implements LogRecordExporter {
  private readonly timeoutMs: number;
  private readonly closeLogger: boolean;
  private shutDown = false;
  /** Exports whose writes are still being accepted. */
  private readonly writing = new Set<Promise<unknown>>();
  private readonly losses = new LossCounts();

  constructor(
    private readonly logger: Logger,
    options: StowageOtelExporterOptions = {},
  ) {
    checkBridgeOptions("stowage/otel", options, ["timeoutMs", "closeLogger"]);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.closeLogger = options.closeLogger ?? true;
  }

  /** Records exported, invalid and refused since the exporter was built. */
  get counts(): OtelExportCounts {
    return this.losses.snapshot();
  }

  export(logs: ReadableLogRecord[], resultCallback: (result: ExportResult) => void): void {
    if (this.shutDown)
      return resultCallback({
        code: FAILED,
        error: new StowageError("rejected", "the exporter is shut down"),
      });
    const batch = new LossCounts();
    const writes: Promise<void>[] = [];
    for (const r of logs) {
      try {
        writes.push(this.logger.write(mapOtelRecord(r)));
      } catch (err) {
        const reason = err instanceof InvalidOtelRecord ? err.reason : "invalid record";
        batch.invalidRecord(reason);
        this.losses.invalidRecord(reason);
      }
    }
    const done = Promise.allSettled(writes).then((results) => {
      for (const x of results) {
        if (x.status === "fulfilled") continue;
        batch.refusedRecord(x.reason);
        this.losses.refusedRecord(x.reason);
      }
      const { lost } = batch.snapshot();
      this.losses.accepted(logs.length - lost);
      if (lost === 0) return resultCallback({ code: SUCCESS });
      resultCallback({
        code: FAILED,
        error: new StowageError(
          "rejected",
          `${lost} of ${logs.length} records were not exported: ${batch.describe()}`,
        ),
      });
    });
    this.writing.add(done);
    void done.finally(() => this.writing.delete(done));
  }

  async forceFlush(): Promise<void> {
    this.throwIfLost(await this.settle(false), "forceFlush");
  }

  async shutdown(): Promise<void> {
    this.shutDown = true;
    this.throwIfLost(await this.settle(this.closeLogger), "shutdown");
  }

  /**
   * The SDK calls forceFlush while an export may still be writing (its batch
   * processor "speeds up" an in-flight export that way), so records can be
   * accepted during the flush and still be pending when it returns. Flush again
   * until nothing is pending, a failure latched, or the time is up.
   */
  private async settle(close: boolean): Promise<FlushResult> {
    const deadline = Date.now() + this.timeoutMs;
    const left = () => Math.max(1, deadline - Date.now());
    for (;;) {
      await Promise.allSettled([...this.writing]);
      const result = await this.logger.flush({ timeoutMs: left() });
      const failed = Object.values(result.destinations).some((d) => d.failure !== null);
      if (result.ok || failed || result.timedOut || Date.now() >= deadline) {
        if (!close) return result;
        const closed = await this.logger.close({ timeoutMs: left() });
        return result.ok ? closed : result;
      }
    }
  }

  /** Rejects when delivery did not complete or any record was lost before it (never forgotten). */
  private throwIfLost(result: FlushResult, what: string): void {
    const { lost } = this.losses.snapshot();
    if (result.ok && lost === 0) return;
    const problems: string[] = [];
    if (lost > 0) problems.push(`${lost} record(s) lost: ${this.losses.describe()}`);
    if (!result.ok) {
      const why = Object.values(result.destinations)
        .map(
          (d) =>
            `${d.kind}: ${d.pending} pending${d.failure ? `, ${d.failure.category} ${d.failure.code}` : ""}`,
        )
        .join("; ");
      problems.push(`${result.timedOut ? "timed out" : "delivery failed"} (${why})`);
    }
    throw new StowageError("storage", `stowage ${what}: ${problems.join("; ")}`);
  }
}
