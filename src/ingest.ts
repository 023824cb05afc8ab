/** `stowage/ingest`: the server ingestion endpoint for browser and edge clients. Re-exports only. */
export { createIngestHandler, type IngestHandler } from "./bridges/ingest/create-handler.js";
export type { IngestOptions, IngestRequestInfo } from "./bridges/ingest/options.js";
export type {
  IngestAnswer,
  IngestCounts,
  IngestRefusals,
  IngestRejections,
} from "./bridges/ingest/counts.js";
