/** The record field names of SPEC §3.1, in output order (one home: serialiser, paths, Studio). */
export const RECORD_FIELDS = [
  "timestamp",
  "level",
  "message",
  "service",
  "caller",
  "data",
  "bindings",
  "error",
  "traceId",
  "spanId",
] as const;
