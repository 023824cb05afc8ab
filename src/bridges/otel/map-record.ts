/**
 * One OpenTelemetry SDK log record → the record handed to `Logger.write`:
 * severity → level, body → message, attributes → data, resource attributes →
 * service (`service.name`) and bindings, trace and span ids kept. A record that
 * cannot be mapped (its time is not a time) throws an `InvalidOtelRecord`, so the
 * exporter can count it and export the rest of its batch (issue 30 row 8).
 */
import type { ReadableLogRecord } from "@opentelemetry/sdk-logs";
import type { Logger } from "../../logger/logger.js";
import type { Level } from "../../record/levels.js";
import { StowageError } from "../../shared/errors.js";

/** The largest time a JavaScript Date holds (±100,000,000 days from 1970), in ms. */
const MAX_DATE_MS = 8.64e15;

/** A record the exporter cannot store; `reason` is the category it is counted under. */
export class InvalidOtelRecord extends StowageError {
  constructor(
    readonly reason: string,
    detail: string,
  ) {
    super("usage", `${reason}: ${detail}`);
  }
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
 * `hrTime` → epoch ms. `new Date("not a date")` as a timestamp gives hrTime [NaN, NaN]
 * (the SDK does not check it): that is refused here, not turned into a RangeError mid-batch.
 */
function timeOf(r: ReadableLogRecord): number {
  const [seconds, nanos] = r.hrTime;
  const ms = seconds * 1000 + Math.floor(nanos / 1e6);
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_DATE_MS)
    throw new InvalidOtelRecord("invalid timestamp", `hrTime [${seconds}, ${nanos}] is not a time`);
  return ms;
}

/**
 * One SDK log record → the record handed to `Logger.write`. Throws InvalidOtelRecord.
 * @example mapOtelRecord(record).level // "warning" for severityNumber 13
 */
export function mapOtelRecord(r: ReadableLogRecord): Parameters<Logger["write"]>[0] {
  const rec: Parameters<Logger["write"]>[0] = {
    timestamp: new Date(timeOf(r)).toISOString(),
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
