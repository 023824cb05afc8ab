/** `stowage/otel`: the OpenTelemetry logs exporter. Re-exports only. */
export {
  StowageLogExporter,
  mapOtelRecord,
  otelLevel,
  type StowageOtelExporterOptions,
} from "./bridges/otel/exporter.js";
