/** `stowage/otel`: the OpenTelemetry logs exporter. Re-exports only. */
export { StowageLogExporter, type StowageOtelExporterOptions } from "./bridges/otel/exporter.js";
export { mapOtelRecord, otelLevel } from "./bridges/otel/map-record.js";
export type { OtelExportCounts } from "./bridges/otel/loss-counts.js";
