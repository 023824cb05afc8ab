/** `stowage/s3`: the former name of `stowage/spool`, kept as an alias exporting the same. Re-exports only. */
export * from "./spool.js";
