/** `stowage/compact`: sealed v1 hours → Hive-partitioned Parquet, exactly once (docs/compaction.md). Re-exports only. */
export * from "./compact/index.js";
