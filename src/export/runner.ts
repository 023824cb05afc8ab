/**
 * Runs one export in three phases (SPEC §7.2), the steps of an `ExportRun`:
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
import { throwIfAborted } from "../shared/abort.js";
import { StowageError, isStowageError } from "../shared/errors.js";
import type { ObjectStore } from "../store/object-store.js";
import type { RetryPolicyOptions } from "../store/retry-policy.js";
import { runChunked } from "./modes/chunked.js";
import { commitRun, CommitUncertain, CursorNotAdvanced } from "./commit.js";
import type { ResolvedExport, ResolvedTuning } from "./config.js";
import { runKeyset } from "./modes/keyset.js";
import type { Manifest } from "./manifest.js";
import type { EncoderThreadOptions } from "../encoders/thread/thread.js";
import { prepareRun, type Prepared } from "./prepare.js";
import { retryingStore } from "../store/retrying-store.js";
import { exportRetryPolicy } from "./retrying-store.js";
import type { PartRecord } from "./rotating-output.js";
import { checkParts, runManifest } from "./run-manifest.js";
import { RunOutputs } from "./run-outputs.js";
import type { StreamContext, StreamResult } from "./modes/run-context.js";
import { runSingle } from "./modes/single.js";
import type { Source } from "./sources/source.js";

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
  const run = await ExportRun.prepare(exp, options);
  return run.commit(await run.stream());
}

/**
 * One run of one export after its prepare phase: `stream()`, then `commit()`, once each.
 * It owns what the run opened (the source connection, the encoding thread, the outputs)
 * and its progress.
 */
class ExportRun {
  private readonly progress: ExportProgress;
  private readonly outputs: RunOutputs;

  private constructor(
    private readonly exp: ResolvedExport,
    private readonly options: RunExportOptions,
    /** The destination, every call retried under `policy`. */
    private readonly store: ObjectStore,
    private readonly policy: RetryPolicyOptions,
    private readonly now: () => Date,
    /** What the prepare phase found and opened. */
    private readonly prepared: Prepared,
  ) {
    const runId = prepared.runId;
    this.progress = { export: exp.name, runId, rows: 0, bytes: 0, parts: 0, elapsedMs: 0 };
    this.outputs = new RunOutputs({
      exp,
      tuning: options.tuning,
      signal: options.signal,
      store,
      prepared,
      encoderThread: options.encoderThread,
      onBytes: (d) => void (this.progress.bytes += d),
      onPart: () => void this.progress.parts++,
    });
  }

  /** The prepare phase (prepare.ts): nothing in the bucket changes unless the source answers. */
  static async prepare(exp: ResolvedExport, options: RunExportOptions): Promise<ExportRun> {
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
    return new ExportRun(exp, options, store, policy, now, p);
  }

  /** The stream phase: the mode writes the run's objects; if it fails they are undone. */
  async stream(): Promise<StreamResult> {
    try {
      const streamed = await runMode(this.context(), this.prepared.resume);
      throwIfAborted(this.options.signal); // an interrupted stream must never be committed as complete
      checkParts(streamed.parts, this.sourceRows());
      return streamed;
    } catch (err) {
      await this.outputs.abort();
      if (this.exp.mode !== "keyset") await this.undo(this.outputs.completedKeys());
      else await this.restoreSuccess();
      throw inExport(this.exp.name, err);
    } finally {
      await this.outputs.close();
      await this.prepared.source.close().catch(() => undefined);
    }
  }

  /** The commit phase (commit.ts): manifests, `_SUCCESS`, cursor; resolves with what the run did. */
  async commit(streamed: StreamResult): Promise<RunExportResult> {
    const p = this.prepared;
    const run = runManifest({
      exp: this.exp,
      prepared: p,
      streamed,
      sourceType: this.options.sourceType,
      sourceRows: this.sourceRows(),
      finishedAt: this.now(),
    });
    const sha256 = await this.commitFiles(run);
    this.report();
    return {
      export: this.exp.name,
      runId: p.runId,
      mode: this.exp.mode,
      rows: run.totals.rows,
      bytes: run.totals.bytes,
      parts: run.parts,
      manifestKey: p.keys.manifest,
      successKey: p.keys.success,
      manifestSha256: sha256,
      durationMs: run.duration_ms,
      abortedUploads: p.abortedUploads,
      cleanedRuns: p.cleaned.runs,
      ...(streamed.cursor ? { cursor: streamed.cursor } : {}),
      ...(streamed.keyset ? { keyset: streamed.keyset } : {}),
      ...this.outputs.peaks(),
    };
  }

  /** What the mode is handed: where rows go and what it may use. */
  private context(): StreamContext {
    const { exp, prepared: p } = this;
    const { tuning, signal } = this.options;
    return {
      exp,
      store: this.store,
      policy: this.policy,
      tuning,
      signal,
      format: p.format,
      keys: p.keys,
      runId: p.runId,
      startedAt: p.startedAt,
      prefix: p.prefix,
      source: p.source,
      openSource: this.options.openSource,
      output: (columns, keyFor, chunk) => this.outputs.open(columns, keyFor, chunk),
      rowsDone: (n) => {
        this.progress.rows += n;
        this.report();
      },
    };
  }

  private report(): void {
    this.progress.elapsedMs = this.now().getTime() - this.prepared.startedAt.getTime();
    this.options.onProgress?.({ ...this.progress });
  }

  /** What the source returned: this run's rows, plus the pages a resumed keyset run kept. */
  private sourceRows(): number {
    return this.progress.rows + (this.prepared.resume?.parts.reduce((a, x) => a + x.rows, 0) ?? 0);
  }

  /** Writes the commit files; resolves with the SHA-256 `_SUCCESS` holds. */
  private async commitFiles(run: Manifest): Promise<string> {
    const { exp, prepared: p } = this;
    try {
      return await commitRun({
        store: this.store,
        exp,
        keys: p.keys,
        run,
        previous: p.previous,
        marker: p.marker,
        policy: this.policy,
        resumed: p.resume !== undefined,
        signal: this.options.signal,
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
      await this.undo([...run.parts.map((x) => x.path), p.keys.runManifest]);
      throw inExport(exp.name, err, "the run was not committed (no _SUCCESS); re-run the export");
    }
  }

  /** Deletes this run's objects, puts the previous `_SUCCESS` back, drops the marker if all went. */
  private async undo(keys: string[]): Promise<void> {
    const deleted = await Promise.allSettled(keys.map((k) => this.store.delete(k)));
    await this.restoreSuccess();
    if (deleted.every((r) => r.status === "fulfilled"))
      await this.prepared.marker.remove().catch(() => undefined);
  }

  /** The folder's previous commit is untouched by a failed run: its `_SUCCESS` goes back. */
  private async restoreSuccess(): Promise<void> {
    const { success } = this.prepared.previous;
    if (success)
      await this.store
        .put(this.prepared.keys.success, success, { contentType: "text/plain" })
        .catch(() => undefined);
  }
}

/** The stream phase's mode (modes/): full and incremental, chunked, or keyset. */
function runMode(ctx: StreamContext, resume: Prepared["resume"]): Promise<StreamResult> {
  if (ctx.exp.mode === "chunked") return runChunked(ctx);
  if (ctx.exp.mode === "keyset") return runKeyset(ctx, resume);
  return runSingle(ctx);
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
