/**
 * `stowage/spool`: tools for the durable spool (§4) — its status and the retry of
 * failed batches, as `stowage spool status|retry` does. Re-exports only.
 */
export { getS3SpoolStatus, retryS3Spool } from "./spool/sqlite-status.js";
export type { SpoolStatus } from "./spool/spool.js";
