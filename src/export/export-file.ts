/**
 * An export file's exports, one after another: open the file and pick the exports,
 * then run, clean up or validate each (`stowage run`, `run --cleanup`, `validate`,
 * `verify`). Each step yields one outcome per export as it finishes, so a caller
 * prints while the next export works. One export failing is an outcome and the
 * next one still runs; a config or usage error is thrown (exit 2 in the CLI).
 */
import type { Env } from "../config/env.js";
import type { CleanupResult } from "./in-progress.js";
import {
  loadExportConfig,
  selectExports,
  type LoadExportOptions,
  type ResolvedExport,
  type ResolvedExportConfig,
} from "./config.js";
import type { ExportProgress, RunExportResult } from "./runner.js";
import { cleanupConfiguredExport, openExportStore, runConfiguredExport } from "./session.js";
import { validateExport, type ValidateDepth, type ValidateResult } from "./validate.js";

/** A loaded export file and the exports picked from it. */
export interface ExportFile {
  cfg: ResolvedExportConfig;
  exports: ResolvedExport[];
}

/** Why one export failed, as the CLI reports it. */
export interface ExportFailure {
  /** The StowageError code, or `internal` for anything else. */
  code: string;
  message: string;
  hint?: string;
}

/** One export's result, or why it failed. */
export type ExportOutcome<T> =
  | { export: ResolvedExport; result: T; error?: undefined }
  | { export: ResolvedExport; result?: undefined; error: ExportFailure };

function failureOf(err: unknown): ExportFailure {
  const e = err as { code?: string; message?: string; hint?: string };
  return {
    code: e.code ?? "internal",
    message: e.message ?? String(err),
    ...(e.hint ? { hint: e.hint } : {}),
  };
}

/**
 * Loads an export file and picks the exports to act on (`only`: `--export NAME`).
 * @example const file = await openExportFile("export.yaml", { env: process.env, cwd: process.cwd() });
 */
export async function openExportFile(
  path: string,
  options: LoadExportOptions & { only?: string | undefined },
): Promise<ExportFile> {
  const { only, ...load } = options;
  const cfg = await loadExportConfig(path, load);
  return { cfg, exports: selectExports(cfg, only) };
}

/**
 * Runs each export in turn. Once `signal` aborts (SIGINT/SIGTERM in the CLI), the
 * export that fails says it was interrupted (the abort reason's message) and nothing
 * after it runs.
 * @example for await (const o of runExportFile(file, { env })) console.log(o.result?.runId ?? o.error.message);
 */
export async function* runExportFile(
  file: ExportFile,
  options: { env: Env; signal?: AbortSignal; onProgress?: (p: ExportProgress) => void },
): AsyncGenerator<ExportOutcome<RunExportResult>> {
  const { signal } = options;
  for (const exp of file.exports) {
    let outcome: ExportOutcome<RunExportResult>;
    try {
      outcome = { export: exp, result: await runConfiguredExport(file.cfg, exp, options) };
    } catch (err) {
      const e = err as { code?: string; message?: string; hint?: string };
      if (signal?.aborted) {
        const why = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
        e.message = `export "${exp.name}": ${why}; its open uploads were aborted and nothing was committed`;
        e.hint =
          "re-run the export; a second signal stops at once (the next run aborts what is left)";
      }
      if (e.code === "config" || e.code === "usage") throw err;
      outcome = { export: exp, error: failureOf(err) };
    }
    yield outcome;
    if (outcome.error && signal?.aborted) return;
  }
}

/**
 * `run --cleanup`: for each export, aborts dangling uploads and deletes the objects
 * of failed runs; never connects to the database.
 * @example for await (const o of cleanupExportFile(file, { env })) console.log(o.result?.deletedObjects);
 */
export async function* cleanupExportFile(
  file: ExportFile,
  options: { env: Env },
): AsyncGenerator<ExportOutcome<CleanupResult & { abortedUploads: number }>> {
  for (const exp of file.exports) {
    let outcome: ExportOutcome<CleanupResult & { abortedUploads: number }>;
    try {
      outcome = { export: exp, result: await cleanupConfiguredExport(file.cfg, exp, options) };
    } catch (err) {
      outcome = { export: exp, error: failureOf(err) };
    }
    yield outcome;
  }
}

/**
 * Validates each export's last committed run against its manifest (`retention`:
 * also each part's Object Lock retention, as `verify` checks it).
 * @example for await (const o of validateExportFile(file, { env, depth: "full" })) console.log(o.result?.status);
 */
export async function* validateExportFile(
  file: ExportFile,
  options: { env: Env; depth: ValidateDepth; date?: Date | undefined; retention?: boolean },
): AsyncGenerator<ExportOutcome<ValidateResult>> {
  for (const exp of file.exports) {
    const store = openExportStore(file.cfg, exp, options.env);
    let outcome: ExportOutcome<ValidateResult>;
    try {
      const result = await validateExport(exp, {
        store,
        depth: options.depth,
        maxAttempts: file.cfg.tuning.maxAttempts,
        ...(options.date ? { date: options.date } : {}),
        ...(options.retention ? { retention: true } : {}),
      });
      outcome = { export: exp, result };
    } catch (err) {
      outcome = { export: exp, error: failureOf(err) };
    } finally {
      store.close();
    }
    yield outcome;
  }
}
