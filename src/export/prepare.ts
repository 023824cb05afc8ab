/**
 * The prepare phase of a run: pick the run id (or resume a
 * keyset run), connect to the source *before* touching the bucket's commit
 * files, abort dangling uploads, clean up failed runs, remember the folder's
 * committed state, record the in-progress marker, then remove `_SUCCESS`.
 * Every storage call goes through the caller's retrying store.
 */
import type { MultipartUpload, ObjectStore } from "../store/object-store.js";
import type { RetryPolicyOptions } from "../store/retry-policy.js";
import type { Previous } from "./commit.js";
import type { ResolvedExport, ResolvedTuning } from "./config.js";
import { createFormat, type Format, type FormatOptions } from "../encoders/format.js";
import { cleanupFailedRuns, listMarkers, RunMarker, type CleanupResult } from "./in-progress.js";
import { readKeysetState, type KeysetState } from "./modes/keyset.js";
import { parseManifest, parseSuccess, sha256Hex } from "./manifest.js";
import {
  isDataKey,
  markerKey,
  newRunId,
  resolvePrefix,
  runKeys,
  stablePrefix,
  stamp,
  type RunKeys,
} from "./naming.js";
import { readObject } from "./retrying-store.js";
import { StowageError } from "../shared/errors.js";
import type { Source } from "./sources/source.js";

export interface PrepareOptions {
  store: ObjectStore;
  policy: RetryPolicyOptions;
  openSource: () => Promise<Source>;
  tuning: ResolvedTuning;
  signal?: AbortSignal | undefined;
  now: () => Date;
}

/** Everything the stream and commit phases need. */
export interface Prepared {
  runId: string;
  startedAt: Date;
  prefix: string;
  keys: RunKeys;
  format: Format;
  source: Source;
  previous: Previous;
  marker: RunMarker;
  abortedUploads: number;
  cleaned: CleanupResult;
  /** A keyset run picked up where a killed one stopped. */
  resume?: KeysetState;
}

/** The options an export's Format is built from (in the main thread and in the encoding thread). */
export function formatOptions(exp: ResolvedExport, tuning: ResolvedTuning): FormatOptions {
  return {
    format: exp.format,
    compression: exp.compression,
    rowGroupRows: tuning.rowGroupRows,
    rowGroupBytes: tuning.rowGroupBytes,
  };
}

/**
 * @example const p = await prepareRun(exp, { store, policy, openSource, tuning, now: () => new Date() });
 */
export async function prepareRun(exp: ResolvedExport, o: PrepareOptions): Promise<Prepared> {
  const { store, policy, signal } = o;
  const format = await createFormat(formatOptions(exp, o.tuning));
  // A resumed run's pages must be of this format: the state is checked against it.
  const resume =
    exp.mode === "keyset"
      ? await readKeysetState(store, exp, policy, format.extension, signal)
      : undefined;
  const startedAt = resume ? new Date(resume.started_at) : o.now();
  const runId = resume?.run_id ?? newRunId(startedAt);
  const prefix =
    resume?.prefix ?? resolvePrefix(exp.prefixTemplate, exp.name, stamp(startedAt).date);
  const keys = runKeys(prefix, exp.name, runId, startedAt, format.extension);
  // The bucket's reads run beside the source connection (they change nothing); every write
  // waits for the source: a run that cannot read its database must not invalidate the last one.
  // They stop when prepare ends, however it ends: each passes `readSignal`, which also ends
  // its retry waits (retrying-store.ts), so no wait of theirs outlives it.
  const early = new AbortController();
  const readSignal = signal ? AbortSignal.any([signal, early.signal]) : early.signal;
  const dangling = settledLater(danglingUploads(store, exp, readSignal));
  const markers = settledLater(listMarkers(store, exp, readSignal));
  const committed = settledLater(readPrevious(store, keys, policy, readSignal));
  let source: Source | undefined;
  try {
    source = await o.openSource();
    const abortedUploads = await abortUploads(store, await dangling, signal);
    const cleaned = await cleanupFailedRuns(store, exp, policy, {
      exceptRunId: runId,
      signal,
      markers: await markers,
    });
    // Cleaning up a failed run may put its predecessor's `_SUCCESS` back: read the commit again.
    const previous =
      cleaned.runs.length > 0 ? await readPrevious(store, keys, policy, signal) : await committed;
    const marker = new RunMarker(
      store,
      markerKey(exp.prefixTemplate, exp.name, runId),
      {
        export: exp.name,
        run_id: runId,
        mode: exp.mode,
        prefix,
        started_at: startedAt.toISOString(),
        ...(previous.success ? { replaced_success: parseSuccess(previous.success)! } : {}),
      },
      signal,
    );
    await marker.add(keys.runManifest);
    await store.delete(keys.success, { signal });
    return {
      runId,
      startedAt,
      prefix,
      keys,
      format,
      source,
      previous,
      marker,
      abortedUploads,
      cleaned,
      ...(resume ? { resume } : {}),
    };
  } catch (err) {
    await source?.close().catch(() => undefined);
    throw err;
  } finally {
    early.abort(new StowageError("aborted", "prepare ended"));
  }
}

/** The folder's `_SUCCESS` and `manifest.json`, kept only when the one vouches for the other. */
async function readPrevious(
  store: ObjectStore,
  keys: RunKeys,
  policy: RetryPolicyOptions,
  signal?: AbortSignal,
): Promise<Previous> {
  const success = await readObject(store, keys.success, policy, signal);
  if (!success) return {};
  const bytes = await readObject(store, keys.manifest, policy, signal);
  if (!bytes || parseSuccess(success) !== sha256Hex(bytes)) return {};
  try {
    return { success, manifest: parseManifest(bytes, keys.manifest) };
  } catch {
    return {};
  }
}

/** Aborts multipart uploads of this export's data keys (any run) left by a crashed process. */
export async function abortDangling(
  store: ObjectStore,
  exp: ResolvedExport,
  signal?: AbortSignal,
): Promise<number> {
  return abortUploads(store, await danglingUploads(store, exp, signal), signal);
}

/** The multipart uploads of this export's data keys (any run) still open. */
async function danglingUploads(
  store: ObjectStore,
  exp: ResolvedExport,
  signal?: AbortSignal,
): Promise<MultipartUpload[]> {
  const head = stablePrefix(exp.prefixTemplate, exp.name);
  const uploads = await store.listMultipartUploads(head ? `${head}/` : "", { signal });
  return uploads.filter((u) => isDataKey(u.key, head, exp.name));
}

async function abortUploads(
  store: ObjectStore,
  uploads: MultipartUpload[],
  signal?: AbortSignal,
): Promise<number> {
  for (const u of uploads) await store.abortMultipart(u, { signal });
  return uploads.length;
}

/**
 * `p`, marked as handled: a read started ahead of the source connection is awaited only
 * when the source opens, and its failure must not surface as an unhandled rejection
 * when the source fails first (the awaiting code still sees the rejection).
 */
function settledLater<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}
