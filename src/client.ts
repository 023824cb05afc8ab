/** `stowage/client`: the browser batcher for the ingestion endpoint (no Node modules). Re-exports only. */
export {
  createClient,
  type ClientLevel,
  type ClientOptions,
  type ClientStats,
  type StowageClient,
} from "./bridges/client/batcher.js";
