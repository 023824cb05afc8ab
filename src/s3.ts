/** `stowage/s3`: tools for the durable S3 spool (§4). Re-exports only. */
export {};
