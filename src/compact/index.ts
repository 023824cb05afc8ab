/** Compaction (docs/compaction.md): sealed v1 hours → Hive-partitioned Parquet, exactly once. */
export {
  compactLogs,
  DEFAULT_FILE_ROWS,
  DEFAULT_LEASE_MS,
  DEFAULT_LOOKBACK_MS,
  DEFAULT_ROW_GROUP_ROWS,
  DEFAULT_SETTLE_MS,
  DEFAULT_SLICE_BYTES,
} from "./compact-logs.js";
export type { CompactOptions, CompactSummary } from "./compact-logs.js";
export type { GenerationReport, HourReport } from "./compact-hour.js";
export {
  DEFAULT_DEST_DIR,
  STATE_DIR,
  LAYOUT_VERSION,
  partitionPrefix,
  parseOutputKey,
  parseStateKey,
  resolveDest,
  stateDayPrefix,
} from "./layout.js";
export type { Claim, Manifest, ManifestOutput, ManifestSource } from "./manifest.js";
export { parseManifest } from "./manifest.js";
export {
  BASE_COLUMNS,
  PROMOTED_TYPES,
  compactSchema,
  parseColumnFlags,
  resolveColumns,
} from "./schema.js";
export type { PromotedColumn, PromotedColumnsOption, PromotedType } from "./schema.js";
