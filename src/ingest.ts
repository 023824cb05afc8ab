/** `stowage/ingest`: the server ingestion endpoint for browser and edge clients. Re-exports only. */
export { createIngestHandler, type IngestHandler } from "./bridges/ingest/create-handler.js";
export type { IngestOptions, IngestRequestInfo } from "./bridges/ingest/options.js";
export type { IngestCounts, IngestRejections } from "./bridges/ingest/ingest-core.js";
