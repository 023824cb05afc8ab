/**
 * Runs one export and commits it (SPEC §7.2). Commit order, which `validate`
 * and every consumer rely on:
 *   1. abort multipart uploads a crashed run left under the export's prefix;
 *   2. delete `_SUCCESS` (a stale marker never vouches for new data);
 *   3. stream rows → encoder → multipart parts (objects complete one by one);
 *   4. `manifest-<run_id>.json` (create-only), then `manifest.json`;
 *   5. `_SUCCESS` holding the manifest's SHA-256;
 *   6. incremental only: the cursor object, advanced only now.
 * A failure anywhere before 5 aborts open uploads, deletes the objects this run
 * completed, and leaves no `_SUCCESS`.
 */
import { throwIfAborted } from "../shared/abort.js";
import { StowageError, isStowageError } from "../shared/errors.js";
import type { ObjectStore } from "../store/object-store.js";
import { runChunked } from "./chunked.js";
import { runSingle } from "./single.js";
import type { ResolvedExport, ResolvedTuning } from "./config.js";
import { createFormat, type Format } from "./formats/format.js";
import {
  encodeCursor,
  encodeManifest,
  manifestSchema,
  type CursorState,
  type Manifest,
} from "./manifest.js";
import {
  cursorKey,
  isDataKey,
  newRunId,
  resolvePrefix,
  runKeys,
  stablePrefix,
  stamp,
  type RunKeys,
} from "./naming.js";
import { RotatingOutput, type PartRecord } from "./rotating-output.js";
import type { ColumnSpec, Source } from "./sources/source.js";

export interface ExportProgress {
  export: string;
  runId: string;
  rows: number;
  bytes: number;
  parts: number;
  elapsedMs: number;
}

export interface RunExportOptions {
  store: ObjectStore;
  /** Opens a database connection (chunked runs open one per worker). */
  openSource: () => Promise<Source>;
  sourceType: Source["type"];
  tuning: ResolvedTuning;
  signal?: AbortSignal;
  now?: () => Date;
  onProgress?: (p: ExportProgress) => void;
}

export interface RunExportResult {
  export: string;
  runId: string;
  mode: ResolvedExport["mode"];
  rows: number;
  bytes: number;
  parts: PartRecord[];
  manifestKey: string;
  successKey: string;
  manifestSha256: string;
  durationMs: number;
  abortedUploads: number;
  cursor?: Manifest["cursor"];
  /** Peak bytes held by any encoder / multipart writer (memory is bounded by these). */
  peakEncoderBytes: number;
  peakWriterBytes: number;
}

/** Shared state of one run, handed to the mode implementations. */
export interface RunContext {
  exp: ResolvedExport;
  options: RunExportOptions;
  format: Format;
  keys: RunKeys;
  runId: string;
  progress: ExportProgress;
  outputs: RotatingOutput[];
  report(): void;
  output(columns: ColumnSpec[], keyFor: (n: number) => string, chunk?: number): RotatingOutput;
  baseSql(source: Source): string;
}

/**
 * @example
 * const result = await runExport(cfg.exports[0], { store, openSource, sourceType: "postgres", tuning: cfg.tuning });
 */
export async function runExport(
  exp: ResolvedExport,
  options: RunExportOptions,
): Promise<RunExportResult> {
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const runId = newRunId(startedAt);
  const prefix = resolvePrefix(exp.prefixTemplate, exp.name, stamp(startedAt).date);
  const { store, tuning, signal } = options;
  const format = await createFormat({
    format: exp.format,
    compression: exp.compression,
    rowGroupRows: tuning.rowGroupRows,
    rowGroupBytes: tuning.rowGroupBytes,
  });
  const keys = runKeys(prefix, exp.name, runId, startedAt, format.extension);
  const progress: ExportProgress = {
    export: exp.name,
    runId,
    rows: 0,
    bytes: 0,
    parts: 0,
    elapsedMs: 0,
  };
  const ctx: RunContext = {
    exp,
    options,
    format,
    keys,
    runId,
    progress,
    outputs: [],
    report() {
      progress.elapsedMs = now().getTime() - startedAt.getTime();
      options.onProgress?.({ ...progress });
    },
    output(columns, keyFor, chunk) {
      const out = new RotatingOutput({
        store,
        format,
        columns,
        keyFor,
        ...(exp.maxFileBytes !== undefined ? { maxFileBytes: exp.maxFileBytes } : {}),
        ...(chunk !== undefined ? { chunk } : {}),
        writer: {
          partSize: tuning.partSize,
          queueSize: tuning.queueSize,
          maxAttempts: tuning.maxAttempts,
          ...(signal ? { signal } : {}),
        },
        onBytes: (d) => void (progress.bytes += d),
        onPart: () => void progress.parts++,
      });
      ctx.outputs.push(out);
      return out;
    },
    baseSql(source) {
      return (
        exp.query ??
        `SELECT * FROM ${exp
          .table!.split(".")
          .map((p) => source.quoteIdent(p))
          .join(".")}`
      );
    },
  };

  const abortedUploads = await abortDangling(store, exp, signal);
  await store.delete(keys.success, signal ? { signal } : {});
  let parts: PartRecord[] = [];
  let columns: ColumnSpec[] = [];
  let cursor: Manifest["cursor"];
  let chunks: Manifest["chunks"];
  try {
    if (exp.mode === "chunked") ({ parts, columns, chunks } = await runChunked(ctx));
    else ({ parts, columns, cursor } = await runSingle(ctx));
    throwIfAborted(signal); // an interrupted stream must never be committed as complete
  } catch (err) {
    await Promise.allSettled(ctx.outputs.map((o) => o.abort()));
    const done = ctx.outputs.flatMap((o) => o.parts.map((p) => p.path));
    await Promise.allSettled(done.map((k) => store.delete(k)));
    throw inExport(exp.name, err);
  }

  const finishedAt = now();
  const totals = {
    rows: parts.reduce((a, p) => a + p.rows, 0),
    bytes: parts.reduce((a, p) => a + p.bytes, 0),
    parts: parts.length,
  };
  const manifest: Manifest = {
    version: 1,
    run_id: runId,
    export: exp.name,
    mode: exp.mode,
    format: exp.format,
    compression: format.compression,
    source: { type: options.sourceType },
    schema: manifestSchema(columns),
    parts,
    totals,
    started_at: startedAt.toISOString(),
    finished_at: finishedAt.toISOString(),
    duration_ms: finishedAt.getTime() - startedAt.getTime(),
    ...(cursor ? { cursor } : {}),
    ...(chunks ? { chunks } : {}),
  };
  const { bytes, sha256 } = encodeManifest(manifest);
  const json = { contentType: "application/json", ...(signal ? { signal } : {}) };
  let stage = "manifest";
  try {
    await store.put(keys.runManifest, bytes, { ...json, ifNoneMatch: "*" });
    await store.put(keys.manifest, bytes, json);
    stage = "success";
    await store.put(keys.success, `${sha256}\n`, { ...json, contentType: "text/plain" });
  } catch (err) {
    // Before the _SUCCESS attempt nothing vouches for this run: remove what it wrote.
    // A failed _SUCCESS PUT may still have landed, so then everything stays.
    if (stage === "manifest") {
      await Promise.allSettled(
        [...parts.map((p) => p.path), keys.runManifest].map((k) => store.delete(k)),
      );
    }
    throw inExport(exp.name, err, "the run was not committed (no _SUCCESS); re-run the export");
  }
  if (exp.mode === "incremental" && cursor?.to != null && cursor.to !== cursor.from) {
    const state: CursorState = {
      version: 1,
      export: exp.name,
      column: cursor.column,
      kind: cursor.kind,
      value: cursor.to,
      run_id: runId,
      updated_at: finishedAt.toISOString(),
    };
    await store
      .put(cursorKey(exp.prefixTemplate, exp.name), encodeCursor(state), json)
      .catch((err: unknown) => {
        throw inExport(
          exp.name,
          err,
          "the run committed but the cursor did not advance; the next run will export these rows again",
        );
      });
  }
  ctx.report();
  return {
    export: exp.name,
    runId,
    mode: exp.mode,
    rows: totals.rows,
    bytes: totals.bytes,
    parts,
    manifestKey: keys.manifest,
    successKey: keys.success,
    manifestSha256: sha256,
    durationMs: manifest.duration_ms,
    abortedUploads,
    ...(cursor ? { cursor } : {}),
    peakEncoderBytes: Math.max(0, ...ctx.outputs.map((o) => o.peakEncoderBytes)),
    peakWriterBytes: Math.max(0, ...ctx.outputs.map((o) => o.peakWriterBytes)),
  };
}

/** Aborts multipart uploads of this export's data keys (any run) left by a crashed process. */
export async function abortDangling(
  store: ObjectStore,
  exp: ResolvedExport,
  signal?: AbortSignal,
): Promise<number> {
  const head = stablePrefix(exp.prefixTemplate, exp.name);
  const uploads = await store.listMultipartUploads(
    head ? `${head}/` : "",
    signal ? { signal } : {},
  );
  const mine = uploads.filter((u) => isDataKey(u.key, head, exp.name));
  for (const u of mine) await store.abortMultipart(u, signal ? { signal } : {});
  return mine.length;
}

function inExport(name: string, err: unknown, hint?: string): StowageError {
  if (isStowageError(err)) {
    const h = hint ?? err.hint;
    return new StowageError(err.code, `export "${name}": ${err.message}`, {
      cause: err.cause ?? err,
      ...(h ? { hint: h } : {}),
    });
  }
  return new StowageError(
    "internal",
    `export "${name}": ${(err as Error)?.message ?? String(err)}`,
    { cause: err, ...(hint ? { hint } : {}) },
  );
}
