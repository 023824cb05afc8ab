/**
 * What the stream phase of a run hands each mode (full/incremental, chunked,
 * keyset) and what a mode hands back. Modes depend on this module only, never on
 * the runner, so the runner → mode direction has no cycle.
 */
import type { ObjectStore } from "../../store/object-store.js";
import type { RetryPolicyOptions } from "../../store/retry-policy.js";
import type { ResolvedExport, ResolvedTuning } from "../config.js";
import type { Format } from "../../encoders/format.js";
import type { Manifest } from "../manifest.js";
import type { RunKeys } from "../naming.js";
import type { PartRecord, RotatingOutput } from "../rotating-output.js";
import type { ColumnSpec, QueryOptions, Source } from "../sources/source.js";

/** One run's stream phase: where rows go and what it may use. */
export interface StreamContext {
  exp: ResolvedExport;
  /** The destination, every call retried under `policy`. */
  store: ObjectStore;
  policy: RetryPolicyOptions;
  tuning: ResolvedTuning;
  signal?: AbortSignal | undefined;
  format: Format;
  keys: RunKeys;
  runId: string;
  startedAt: Date;
  /** The run's resolved folder ("" for the bucket root). */
  prefix: string;
  /** The connection prepare opened (the source answered before `_SUCCESS` was touched). */
  source: Source;
  /** Further connections (chunked workers). */
  openSource: () => Promise<Source>;
  /** A new series of objects; its keys are recorded in the in-progress marker before upload. */
  output(columns: ColumnSpec[], keyFor: (n: number) => string, chunk?: number): RotatingOutput;
  /** Counts rows handed to an output (progress). */
  rowsDone(n: number): void;
}

/** What a mode produced: its objects, the schema and the mode's manifest section. */
export interface StreamResult {
  parts: PartRecord[];
  columns: ColumnSpec[];
  cursor?: Manifest["cursor"];
  chunks?: Manifest["chunks"];
  keyset?: Manifest["keyset"];
}

/**
 * Batch options for `source.query` from a context. Text formats take integers, dates
 * and timestamps as the database's text; `typedColumns` (a cursor or keyset key the
 * run compares) stay typed.
 */
export function queryOptions(ctx: StreamContext, typedColumns: string[] = []): QueryOptions {
  return {
    batchSize: ctx.tuning.batchSize,
    signal: ctx.signal,
    textValues: ctx.format.name !== "parquet",
    typedColumns,
    // CSV lines straight from the source when this thread encodes (typed columns kept beside them).
    csvLines: ctx.format.name === "csv" && !ctx.tuning.encoderThread,
  };
}
