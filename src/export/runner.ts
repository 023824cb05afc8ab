/**
 * Runs one export in three phases (SPEC §7.2):
 *   prepare (prepare.ts) — run id or keyset resume, source reachable, dangling uploads
 *     aborted, failed runs cleaned up, in-progress marker written, `_SUCCESS` removed;
 *   stream (modes/: single.ts, chunked.ts, keyset.ts) — rows → encoder → multipart parts;
 *   commit (commit.ts) — run manifest, folder `manifest.json`, `_SUCCESS`, cursor.
 * Every storage call goes through a `retryingStore` with the export's `max_attempts`.
 * A failure before `_SUCCESS` aborts open uploads, deletes this run's objects, puts
 * back the `_SUCCESS` it removed (the folder's previous commit is untouched) and
 * leaves the marker only if something could not be deleted. A keyset run keeps its
 * completed pages instead: the next start resumes it.
 */
import type { ResolvedDestination } from "../config/destination.js";
import { lockOption } from "../store/object-lock.js";
import { throwIfAborted } from "../shared/abort.js";
import { StowageError, isStowageError } from "../shared/errors.js";
import type { ObjectStore } from "../store/object-store.js";
import { runChunked } from "./modes/chunked.js";
import { commitRun, CommitUncertain, CursorNotAdvanced } from "./commit.js";
import type { ResolvedExport, ResolvedTuning } from "./config.js";
import { runKeyset } from "./modes/keyset.js";
import { manifestSchema, type Manifest } from "./manifest.js";
import { EncoderThread, workerFormat, type EncoderThreadOptions } from "./encoding/thread.js";
import type { Format } from "../encoders/format.js";
import { formatOptions, prepareRun, type Prepared } from "./prepare.js";
import { exportRetryPolicy, retryingStore } from "./retrying-store.js";
import { RotatingOutput, type PartRecord } from "./rotating-output.js";
import type { StreamContext, StreamResult } from "./modes/run-context.js";
import { runSingle } from "./modes/single.js";
import type { Source } from "./sources/source.js";

export { abortDangling } from "./prepare.js";

export interface ExportProgress {
  export: string;
  runId: string;
  rows: number;
  bytes: number;
  parts: number;
  elapsedMs: number;
}

export interface RunExportOptions {
  /** The destination; the runner wraps it in the retry policy itself. */
  store: ObjectStore;
  /** Opens a database connection (chunked runs open one per worker). */
  openSource: () => Promise<Source>;
  sourceType: Source["type"];
  tuning: ResolvedTuning;
  signal?: AbortSignal | undefined;
  now?: () => Date;
  onProgress?: (p: ExportProgress) => void;
  /** The encoding thread's limits (when `tuning.encoderThread` puts the encoding there). */
  encoderThread?: EncoderThreadOptions;
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
  /** Failed earlier runs whose objects this run deleted. */
  cleanedRuns: string[];
  cursor?: Manifest["cursor"];
  keyset?: Manifest["keyset"];
  /** Peak bytes held by any encoder / multipart writer (memory is bounded by these). */
  peakEncoderBytes: number;
  peakWriterBytes: number;
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
  const { tuning, signal } = options;
  const policy = exportRetryPolicy(tuning.maxAttempts);
  const store = retryingStore(options.store, policy, { signal });
  const p = await prepareRun(exp, {
    store,
    policy,
    openSource: options.openSource,
    tuning,
    now,
    signal,
  }).catch((err: unknown) => {
    throw inExport(exp.name, err);
  });
  const progress: ExportProgress = {
    export: exp.name,
    runId: p.runId,
    rows: 0,
    bytes: 0,
    parts: 0,
    elapsedMs: 0,
  };
  const report = () => {
    progress.elapsedMs = now().getTime() - p.startedAt.getTime();
    options.onProgress?.({ ...progress });
  };
  const outputs: RotatingOutput[] = [];
  // Encoding beside the reading (tuning.encoder_thread): one worker thread per run,
  // started with the first output.
  let thread: EncoderThread | undefined;
  const encoding = (): Format => {
    if (tuning.encoderThread !== true) return p.format;
    thread ??= EncoderThread.start(options.encoderThread);
    return workerFormat(formatOptions(exp, tuning), p.format, thread, {
      strict: exp.maxFileBytes !== undefined, // size checks need the encoder's exact figure
    });
  };
  const ctx: StreamContext = {
    exp,
    store,
    policy,
    tuning,
    signal,
    format: p.format,
    keys: p.keys,
    runId: p.runId,
    startedAt: p.startedAt,
    prefix: p.prefix,
    source: p.source,
    openSource: options.openSource,
    output(columns, keyFor, chunk) {
      const out = new RotatingOutput({
        store,
        format: encoding(),
        columns,
        keyFor,
        ...(exp.maxFileBytes !== undefined ? { maxFileBytes: exp.maxFileBytes } : {}),
        ...(chunk !== undefined ? { chunk } : {}),
        writer: {
          partSize: tuning.partSize,
          queueSize: tuning.queueSize,
          signal,
          ...runObjectLock(exp.destination, p.startedAt),
        },
        onBytes: (d) => void (progress.bytes += d),
        onPart: () => void progress.parts++,
        onOpen: (key) => p.marker.add(key),
      });
      outputs.push(out);
      return out;
    },
    rowsDone(n) {
      progress.rows += n;
      report();
    },
  };

  let streamed: StreamResult;
  // What the source returned: this run's rows, plus the pages a resumed keyset run kept.
  let sourceRows = 0;
  try {
    streamed = await streamPhase(ctx, p);
    throwIfAborted(signal); // an interrupted stream must never be committed as complete
    sourceRows = progress.rows + (p.resume?.parts.reduce((a, x) => a + x.rows, 0) ?? 0);
    checkParts(streamed.parts, sourceRows);
  } catch (err) {
    await Promise.allSettled(outputs.map((o) => o.abort()));
    if (exp.mode !== "keyset")
      await undo(
        store,
        p,
        outputs.flatMap((o) => o.parts.map((x) => x.path)),
      );
    else await restoreSuccess(store, p);
    throw inExport(exp.name, err);
  } finally {
    await thread?.terminate().catch(() => undefined);
    await p.source.close().catch(() => undefined);
  }

  const finishedAt = now();
  const parts = streamed.parts;
  const run: Manifest = {
    version: 1,
    run_id: p.runId,
    export: exp.name,
    mode: exp.mode,
    format: exp.format,
    compression: p.format.compression,
    source: { type: options.sourceType, rows: sourceRows },
    schema: manifestSchema(streamed.columns),
    parts,
    totals: {
      rows: parts.reduce((a, x) => a + x.rows, 0),
      bytes: parts.reduce((a, x) => a + x.bytes, 0),
      parts: parts.length,
    },
    started_at: p.startedAt.toISOString(),
    finished_at: finishedAt.toISOString(),
    duration_ms: finishedAt.getTime() - p.startedAt.getTime(),
    ...(streamed.cursor ? { cursor: streamed.cursor } : {}),
    ...(streamed.chunks ? { chunks: streamed.chunks } : {}),
    ...(streamed.keyset ? { keyset: streamed.keyset } : {}),
  };
  let sha256: string;
  try {
    sha256 = await commitRun({
      store,
      exp,
      keys: p.keys,
      run,
      previous: p.previous,
      marker: p.marker,
      policy,
      resumed: p.resume !== undefined,
      signal,
    });
  } catch (err) {
    if (err instanceof CommitUncertain)
      throw inExport(
        exp.name,
        err.cause,
        "the run may not be committed (no _SUCCESS confirmed); re-run the export",
      );
    if (err instanceof CursorNotAdvanced) throw inExport(exp.name, err);
    // Before the _SUCCESS attempt nothing vouches for this run: remove what it wrote.
    await undo(store, p, [...parts.map((x) => x.path), p.keys.runManifest]);
    throw inExport(exp.name, err, "the run was not committed (no _SUCCESS); re-run the export");
  }
  report();
  return {
    export: exp.name,
    runId: p.runId,
    mode: exp.mode,
    rows: run.totals.rows,
    bytes: run.totals.bytes,
    parts,
    manifestKey: p.keys.manifest,
    successKey: p.keys.success,
    manifestSha256: sha256,
    durationMs: run.duration_ms,
    abortedUploads: p.abortedUploads,
    cleanedRuns: p.cleaned.runs,
    ...(streamed.cursor ? { cursor: streamed.cursor } : {}),
    ...(streamed.keyset ? { keyset: streamed.keyset } : {}),
    peakEncoderBytes: Math.max(0, ...outputs.map((o) => o.peakEncoderBytes)),
    peakWriterBytes: Math.max(0, ...outputs.map((o) => o.peakWriterBytes)),
  };
}

/**
 * Never commit a duplicate (issue 31 §4): every object once, and the parts hold exactly
 * the rows the source returned.
 */
function checkParts(parts: readonly PartRecord[], sourceRows: number): void {
  const seen = new Set<string>();
  for (const x of parts) {
    if (seen.has(x.path))
      throw new StowageError("integrity", `the run would list ${x.path} twice in its manifest`);
    seen.add(x.path);
  }
  const rows = parts.reduce((a, x) => a + x.rows, 0);
  if (rows !== sourceRows)
    throw new StowageError(
      "integrity",
      `the run's objects hold ${rows} rows but the source returned ${sourceRows}; nothing was committed`,
    );
}

function streamPhase(ctx: StreamContext, p: Prepared): Promise<StreamResult> {
  if (ctx.exp.mode === "chunked") return runChunked(ctx);
  if (ctx.exp.mode === "keyset") return runKeyset(ctx, p.resume);
  return runSingle(ctx);
}

/** Deletes this run's objects, puts the previous `_SUCCESS` back, drops the marker if all went. */
async function undo(store: ObjectStore, p: Prepared, keys: string[]): Promise<void> {
  const deleted = await Promise.allSettled(keys.map((k) => store.delete(k)));
  await restoreSuccess(store, p);
  if (deleted.every((r) => r.status === "fulfilled"))
    await p.marker.remove().catch(() => undefined);
}

/** The folder's previous commit is untouched by a failed run: its `_SUCCESS` goes back. */
async function restoreSuccess(store: ObjectStore, p: Prepared): Promise<void> {
  if (p.previous.success)
    await store
      .put(p.keys.success, p.previous.success, { contentType: "text/plain" })
      .catch(() => undefined);
}

function inExport(name: string, err: unknown, hint?: string): StowageError {
  if (isStowageError(err)) {
    const h = hint ?? err.hint;
    return new StowageError(err.code, `export "${name}": ${err.message}`, {
      cause: err.cause ?? err,
      hint: h,
    });
  }
  return new StowageError(
    "internal",
    `export "${name}": ${(err as Error)?.message ?? String(err)}`,
    { cause: err, hint },
  );
}

/**
 * Object Lock for a run's data files (docs/retention.md): the run's start plus the
 * configured days, rounded up to a second — one date for every file and retry of the run.
 */
function runObjectLock(
  dest: ResolvedDestination,
  startedAt: Date,
): { objectLock?: { mode: "GOVERNANCE" | "COMPLIANCE"; retainUntil: Date } } {
  return lockOption(startedAt.getTime(), dest.type === "s3" ? dest.objectLock : undefined);
}
