/**
 * Wiring for a loaded export file: the store of each export's destination and
 * the source connection factory. The CLI (`run`, `validate`, `doctor`) and
 * library callers share it, so every path opens things the same way.
 */
import type { Env } from "../config/env.js";
import { openStore } from "../store/open-store.js";
import type { ObjectStore } from "../store/object-store.js";
import type { ResolvedExport, ResolvedExportConfig } from "./config.js";
import { cleanupFailedRuns, type CleanupResult } from "./in-progress.js";
import { abortDangling } from "./prepare.js";
import { retryingStore } from "../store/retrying-store.js";
import { exportRetryPolicy } from "./retrying-store.js";
import { runExport, type ExportProgress, type RunExportResult } from "./runner.js";
import { openSource } from "./sources/open-source.js";
import type { Source } from "./sources/source.js";

/** Opens the ObjectStore an export writes to (request timeout sized for 8 MiB+ parts). */
export function openExportStore(
  cfg: ResolvedExportConfig,
  exp: ResolvedExport,
  env: Env,
): ObjectStore {
  return openStore(exp.destination, { env, requestTimeoutMs: cfg.tuning.requestTimeoutMs }).store;
}

/** A factory for connections to the file's source database. */
export function sourceOpener(cfg: ResolvedExportConfig): () => Promise<Source> {
  return () =>
    openSource({
      type: cfg.source.type,
      url: cfg.source.url,
      connectTimeoutMs: cfg.tuning.connectTimeoutMs,
    });
}

/**
 * Runs one export of a loaded file end to end (opens and closes its store).
 * @example const r = await runConfiguredExport(cfg, cfg.exports[0], { env: process.env });
 */
export async function runConfiguredExport(
  cfg: ResolvedExportConfig,
  exp: ResolvedExport,
  options: {
    env: Env;
    signal?: AbortSignal | undefined;
    onProgress?: (p: ExportProgress) => void;
    store?: ObjectStore;
  },
): Promise<RunExportResult> {
  const store = options.store ?? openExportStore(cfg, exp, options.env);
  try {
    return await runExport(exp, {
      store,
      openSource: sourceOpener(cfg),
      sourceType: cfg.source.type,
      tuning: cfg.tuning,
      signal: options.signal,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  } finally {
    if (!options.store) store.close();
  }
}

/**
 * `stowage run --cleanup`: aborts the export's dangling uploads and deletes the
 * objects of failed runs (their in-progress markers); never touches the database.
 * @example const r = await cleanupConfiguredExport(cfg, exp, { env: process.env });
 */
export async function cleanupConfiguredExport(
  cfg: ResolvedExportConfig,
  exp: ResolvedExport,
  options: { env: Env; signal?: AbortSignal | undefined; store?: ObjectStore },
): Promise<CleanupResult & { abortedUploads: number }> {
  const raw = options.store ?? openExportStore(cfg, exp, options.env);
  const policy = exportRetryPolicy(cfg.tuning.maxAttempts);
  const signal = options.signal;
  const store = retryingStore(raw, policy, { signal });
  try {
    const abortedUploads = await abortDangling(store, exp, signal);
    const r = await cleanupFailedRuns(store, exp, policy, { signal });
    return { ...r, abortedUploads };
  } finally {
    if (!options.store) raw.close();
  }
}

/** Connects to the source and runs `SELECT 1`: doctor's `Source auth (…)` check. */
export async function checkSourceAuth(cfg: ResolvedExportConfig): Promise<void> {
  const source = await sourceOpener(cfg)();
  try {
    const rows = await source.query("SELECT 1", [], { batchSize: 1 });
    for await (const _ of rows) void _;
  } finally {
    await source.close();
  }
}

/** Display name of a source type for messages: Postgres, MySQL, SQLite. */
export function sourceLabel(type: Source["type"]): string {
  return { postgres: "Postgres", mysql: "MySQL", sqlite: "SQLite" }[type];
}
