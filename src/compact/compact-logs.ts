/**
 * `compactLogs()`: the sealed hours of a v1 log tree in a time range → Hive-partitioned
 * Parquet beside it, exactly once (docs/compaction.md). Per UTC day it sends one delimiter
 * LIST of the v1 day folder (which hours exist), one LIST of the day's compaction state, and
 * one LIST per existing hour; then each sealed hour is brought up to date (`compact-hour.ts`).
 */
import { COMPACT_RETRY } from "../config/retry-defaults.js";
import { hostname } from "node:os";
import { hourPrefix, normalizePrefix } from "../v1-format/object-key.js";
import type { ObjectLockSpec } from "../config/destination.js";
import { StowageError } from "../shared/errors.js";
import { ulid } from "../shared/ids.js";
import type { ListEntry, ObjectStore } from "../store/object-store.js";
import { ACTIVE_RUNS, compactHour, type HourReport } from "./compact-hour.js";
import { daysOf, HOUR_MS, parseStateKey, resolveDest, stateDayPrefix } from "./layout.js";
import type { CompactSettings, ManifestOutput, RunRef } from "./manifest.js";
import { resolveColumns, type PromotedColumnsOption } from "./schema.js";
import { compactRetryPolicy, listAll, storeCalls } from "./store-calls.js";
import { sliceMemory } from "./sorted-rows.js";

/** The write path's worst case before an hour's last object lands, with margin (docs/compaction.md). */
export const DEFAULT_SETTLE_MS = 15 * 60_000;
/** How far back a run looks for hours (and late objects in them) by default. */
export const DEFAULT_LOOKBACK_MS = 7 * 24 * HOUR_MS;
export const DEFAULT_LEASE_MS = 30 * 60_000;
/** 65,536 rows: ≈ 1 MiB compressed, 15 MiB encoded for 230-byte lines; 128 Ki rows passed the 256 MiB budget at 1M rows an hour. */
export const DEFAULT_ROW_GROUP_ROWS = 64 * 1024;
export const DEFAULT_FILE_ROWS = 32 * DEFAULT_ROW_GROUP_ROWS;
export const DEFAULT_SLICE_BYTES = 4 * 1024 * 1024;

export interface CompactOptions {
  store: ObjectStore;
  /** The log prefix (the folder holding `v1/`). */
  prefix: string;
  /** Where the partitions go; default `<prefix>/parquet/`. Never inside `<prefix>/v1/`. */
  dest?: string | undefined;
  /** Hours starting at or after this… (default: now − 7 days). */
  fromMs?: number | undefined;
  /** …and before this (default: now); only sealed hours are compacted. */
  toMs?: number | undefined;
  /** Clock (tests). */
  nowMs?: number | undefined;
  /** An hour is sealed once now ≥ its end + this (default 15 min). */
  settleMs?: number | undefined;
  /** Columns promoted from `data`: `{ route: "string", status: { type: "int64", path: "http.status" } }`. */
  columns?: PromotedColumnsOption | undefined;
  /** Object Lock for every file written (as the log destination's). */
  objectLock?: ObjectLockSpec | undefined;
  /** Attempts per storage call (default 5). */
  maxAttempts?: number | undefined;
  leaseMs?: number | undefined;
  rowGroupRows?: number | undefined;
  fileRows?: number | undefined;
  /** Decoded log bytes one time slice of an hour may hold while it is sorted (default 32 MiB). */
  sliceBytes?: number | undefined;
  signal?: AbortSignal | undefined;
  /** After each hour (progress). */
  onHour?: (report: HourReport) => void;
  onPart?: (part: ManifestOutput, existed: boolean) => void;
}

export interface CompactSummary {
  ok: boolean;
  runId: string;
  dest: string;
  fromMs: number;
  toMs: number;
  /** Hours ending before this (minus the settle time) were sealed. */
  sealedBeforeMs: number;
  hours: HourReport[];
  totals: {
    hours: number;
    compacted: number;
    upToDate: number;
    inProgress: number;
    failed: number;
    generations: number;
    sources: number;
    lines: number;
    rows: number;
    rejected: number;
    parts: number;
    bytes: number;
    foreign: number;
    retries: number;
  };
}

const positive = (v: number | undefined, fallback: number, what: string): number => {
  const n = v ?? fallback;
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new StowageError("config", `${what} must be a positive integer, not ${String(v)}`);
  return n;
};

/**
 * @example
 * const summary = await compactLogs({ store, prefix: "logs/api", columns: { route: "string" } });
 * summary.totals.rows // rows written this run
 */
export async function compactLogs(options: CompactOptions): Promise<CompactSummary> {
  const prefix = normalizePrefix(options.prefix);
  const dest = resolveDest(prefix, options.dest);
  const nowMs = options.nowMs ?? Date.now();
  const settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
  if (!Number.isSafeInteger(settleMs) || settleMs < 0)
    throw new StowageError("config", `settle time must be ≥ 0 ms, not ${String(options.settleMs)}`);
  const rowGroupRows = positive(options.rowGroupRows, DEFAULT_ROW_GROUP_ROWS, "rowGroupRows");
  const settings: CompactSettings = {
    rowGroupRows,
    rowGroupBytes: 256 * 1024 * 1024,
    fileRows: positive(options.fileRows, DEFAULT_FILE_ROWS, "fileRows"),
    compression: "zstd",
    columns: resolveColumns(options.columns),
  };
  const sealedBeforeMs = nowMs - settleMs;
  const fromMs = options.fromMs ?? nowMs - DEFAULT_LOOKBACK_MS;
  const toMs = Math.min(options.toMs ?? nowMs, sealedBeforeMs);
  const run: RunRef = {
    id: ulid(nowMs),
    host: hostname(),
    pid: process.pid,
    at: new Date(nowMs).toISOString(),
  };
  let retries = 0;
  const calls = storeCalls(
    options.store,
    compactRetryPolicy(positive(options.maxAttempts, COMPACT_RETRY.maxAttempts, "maxAttempts")),
    options.signal,
    () => retries++,
  );
  const sliceBytes = positive(options.sliceBytes, DEFAULT_SLICE_BYTES, "sliceBytes");
  const ctx = {
    calls,
    dest,
    prefix,
    settings,
    objectLock: options.objectLock,
    nowMs,
    run,
    leaseMs: positive(options.leaseMs, DEFAULT_LEASE_MS, "leaseMs"),
    sliceBytes,
    memory: sliceMemory(sliceBytes), // hours are compacted one after another
    ...(options.onPart ? { onPart: options.onPart } : {}),
  };
  const hours: HourReport[] = [];
  ACTIVE_RUNS.add(run.id);
  try {
    for (const dayMs of daysOf(fromMs, toMs)) {
      const dayFolder = hourPrefix(prefix, dayMs).slice(0, -3);
      const { folders } = await listAll(calls, dayFolder, "/");
      const state = await listAll(calls, stateDayPrefix(dest, dayMs));
      for (const folder of folders) {
        const hourMs = hourOfFolder(dayMs, folder, dayFolder);
        if (hourMs === null || hourMs < fromMs - (fromMs % HOUR_MS) || hourMs + HOUR_MS > toMs)
          continue;
        const { entries } = await listAll(calls, folder);
        const report = await compactHour(
          ctx,
          hourMs,
          entries,
          stateOf(state.entries, dest, hourMs),
        );
        hours.push(report);
        options.onHour?.(report);
      }
    }
  } finally {
    ACTIVE_RUNS.delete(run.id);
  }
  return summarize(run.id, dest, fromMs, toMs, sealedBeforeMs, hours, retries);
}

function hourOfFolder(dayMs: number, folder: string, dayFolder: string): number | null {
  const m = /^(\d{2})\/$/.exec(folder.slice(dayFolder.length));
  if (!m) return null;
  const hourMs = dayMs + Number(m[1]) * HOUR_MS;
  return Number(m[1]) < 24 ? hourMs : null;
}

function stateOf(entries: readonly ListEntry[], dest: string, hourMs: number): ListEntry[] {
  return entries.filter((e) => parseStateKey(e.key, dest)?.hourMs === hourMs);
}

function summarize(
  runId: string,
  dest: string,
  fromMs: number,
  toMs: number,
  sealedBeforeMs: number,
  hours: HourReport[],
  retries: number,
): CompactSummary {
  const gens = hours.flatMap((h) => h.generations);
  const sum = (f: (g: (typeof gens)[number]) => number) => gens.reduce((n, g) => n + f(g), 0);
  const count = (s: HourReport["status"]) => hours.filter((h) => h.status === s).length;
  return {
    ok: hours.every((h) => h.status !== "failed"),
    runId,
    dest,
    fromMs,
    toMs,
    sealedBeforeMs,
    hours,
    totals: {
      hours: hours.length,
      compacted: count("compacted"),
      upToDate: count("up-to-date"),
      inProgress: count("in-progress"),
      failed: count("failed"),
      generations: gens.length,
      sources: sum((g) => g.sources),
      lines: sum((g) => g.lines),
      rows: sum((g) => g.rows),
      rejected: sum((g) => g.rejected),
      parts: sum((g) => g.parts),
      bytes: sum((g) => g.bytes),
      foreign: hours.reduce((n, h) => n + h.foreign.length, 0),
      retries,
    },
  };
}
