/** `stowage/s3`: tools for the durable S3 spool (§4). Re-exports only. */
export { getS3SpoolStatus, retryS3Spool } from "./spool/sqlite-status.js";
export type { SpoolStatus } from "./spool/spool.js";
