/**
 * `stowage/otel`: a `LogRecordExporter` for `@opentelemetry/sdk-logs`.
 * Severity → level, body → message, attributes → data, resource attributes
 * → service (`service.name`) and bindings, trace and span ids kept. `export`
 * reports success once the logger accepted every record (committed, with the
 * sqlite buffer); `forceFlush`/`shutdown` are the logger's flush/close and
 * reject when delivery did not complete. OpenTelemetry is referenced by type only.
 */
import type { ExportResult } from "@opentelemetry/core";
import type { LogRecordExporter, ReadableLogRecord } from "@opentelemetry/sdk-logs";
import type { FlushResult } from "../../logger/flush-result.js";
import type { Logger } from "../../logger/logger.js";
import type { Level } from "../../record/levels.js";
import { StowageError } from "../../shared/errors.js";

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
 * OpenTelemetry severity numbers (1–24, six bands of four) → Stowage levels.
 * @example otelLevel(13, undefined) // "warning"
 */
export function otelLevel(
  severityNumber: number | undefined,
  severityText: string | undefined,
): Level {
  if (severityNumber !== undefined && severityNumber > 0) {
    const bands: Level[] = ["trace", "debug", "info", "warning", "error", "critical"];
    return bands[Math.min(5, Math.floor((severityNumber - 1) / 4))]!;
  }
  const t = severityText?.toLowerCase();
  if (t === "warn" || t === "warning") return "warning";
  if (t === "fatal" || t === "critical") return "critical";
  if (t === "trace" || t === "debug" || t === "error") return t;
  return "info";
}

/**
 * One SDK log record → the record handed to `Logger.write`.
 * @example mapOtelRecord(record).level // "warning" for severityNumber 13
 */
export function mapOtelRecord(r: ReadableLogRecord): Parameters<Logger["write"]>[0] {
  const ms = r.hrTime[0] * 1000 + Math.floor(r.hrTime[1] / 1e6);
  const rec: Parameters<Logger["write"]>[0] = {
    timestamp: new Date(ms).toISOString(),
    level: otelLevel(r.severityNumber, r.severityText),
    message: typeof r.body === "string" ? r.body : "",
  };
  const data: Record<string, unknown> = { ...r.attributes };
  if (r.body !== undefined && typeof r.body !== "string") data.body = r.body;
  if (r.eventName) data["event.name"] = r.eventName;
  if (Object.keys(data).length > 0) rec.data = data;
  const { "service.name": service, ...resource } = r.resource.attributes;
  if (typeof service === "string") rec.service = service;
  const bindings: Record<string, unknown> = { ...resource };
  if (r.instrumentationScope?.name) bindings["otel.scope.name"] = r.instrumentationScope.name;
  if (Object.keys(bindings).length > 0) rec.bindings = bindings;
  if (r.spanContext?.traceId) rec.traceId = r.spanContext.traceId;
  if (r.spanContext?.spanId) rec.spanId = r.spanContext.spanId;
  return rec;
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

  constructor(
    private readonly logger: Logger,
    options: StowageOtelExporterOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.closeLogger = options.closeLogger ?? true;
  }

  export(logs: ReadableLogRecord[], resultCallback: (result: ExportResult) => void): void {
    if (this.shutDown)
      return resultCallback({
        code: FAILED,
        error: new StowageError("rejected", "the exporter is shut down"),
      });
    const writes = logs.map((r) => this.logger.write(mapOtelRecord(r)));
    const all = Promise.allSettled(writes);
    this.writing.add(all);
    void all.then((results) => {
      this.writing.delete(all);
      const failed = results.filter((x) => x.status === "rejected");
      if (failed.length === 0) return resultCallback({ code: SUCCESS });
      const first = (failed[0] as PromiseRejectedResult).reason as Error;
      resultCallback({
        code: FAILED,
        error: new StowageError(
          "rejected",
          `${failed.length} of ${logs.length} records were refused: ${first.message}`,
        ),
      });
    });
  }

  async forceFlush(): Promise<void> {
    throwIfUndelivered(await this.settle(false), "forceFlush");
  }

  async shutdown(): Promise<void> {
    this.shutDown = true;
    throwIfUndelivered(await this.settle(this.closeLogger), "shutdown");
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
}

function throwIfUndelivered(result: FlushResult, what: string): void {
  if (result.ok) return;
  const why = Object.values(result.destinations)
    .map(
      (d) =>
        `${d.kind}: ${d.pending} pending${d.failure ? `, ${d.failure.category} ${d.failure.code}` : ""}`,
    )
    .join("; ");
  throw new StowageError(
    "storage",
    `stowage ${what}: ${result.timedOut ? "timed out" : "delivery failed"} (${why})`,
  );
}
