/**
 * The commit phase of a run (SPEC §7.2): `manifest-<run_id>.json`
 * (create-only), the folder's `manifest.json`, `_SUCCESS` holding its SHA-256,
 * then the incremental cursor, then the in-progress marker goes.
 *
 * What `manifest.json` means: the dataset of its folder, i.e. every object a
 * reader should read there. A full, chunked or keyset run replaces it (the
 * folder now holds that snapshot). An incremental run adds to it: when the
 * folder's previous `manifest.json` was committed (see `carryForward`), the new
 * one lists the previous parts plus this run's, `runs` names every run, and
 * `cursor.from` is the first run's. `manifest-<run_id>.json` always describes
 * one run alone.
 */
import { isStowageError, StowageError } from "../shared/errors.js";
import type { ObjectStore } from "../store/object-store.js";
import type { RetryPolicyOptions } from "../store/retry-policy.js";
import type { ResolvedExport } from "./config.js";
import type { RunMarker } from "./in-progress.js";
import { encodeCursor, encodeManifest, type CursorState, type Manifest } from "./manifest.js";
import { cursorKey, keysetStateKey, type RunKeys } from "./naming.js";
import { readObject } from "./retrying-store.js";

/** The folder's committed state found by prepare (before `_SUCCESS` was deleted). */
export interface Previous {
  /** `_SUCCESS` bytes, when they vouched for `manifest.json`. */
  success?: Buffer;
  manifest?: Manifest;
}

/**
 * The folder manifest for this run: the run's own, or (incremental, committed
 * predecessor in the same folder) the predecessor's parts followed by this run's.
 * @example folderManifest(run, previous).parts.length
 */
export function folderManifest(run: Manifest, previous: Previous): Manifest {
  const prev = previous.manifest;
  if (run.mode !== "incremental" || !prev || prev.mode !== "incremental" || !previous.success)
    return run;
  const parts = [...prev.parts, ...run.parts];
  // The rows the source returned to every listed run, when each manifest recorded them.
  const { rows: runRows, ...source } = run.source;
  const prevRows = prev.source?.rows;
  return {
    ...run,
    source:
      runRows !== undefined && prevRows !== undefined
        ? { ...source, rows: prevRows + runRows }
        : source,
    runs: [...(prev.runs ?? [prev.run_id]), run.run_id],
    parts,
    totals: {
      rows: parts.reduce((a, p) => a + p.rows, 0),
      bytes: parts.reduce((a, p) => a + p.bytes, 0),
      parts: parts.length,
    },
    ...(run.cursor && prev.cursor ? { cursor: { ...run.cursor, from: prev.cursor.from } } : {}),
  };
}

export interface CommitInput {
  store: ObjectStore;
  exp: ResolvedExport;
  keys: RunKeys;
  run: Manifest;
  previous: Previous;
  marker: RunMarker;
  policy: RetryPolicyOptions;
  /** A keyset run resumed after its predecessor died (the same run id). */
  resumed: boolean;
  signal?: AbortSignal | undefined;
}

/** Writes the commit files; resolves with the folder manifest's SHA-256 (what `_SUCCESS` holds). */
export async function commitRun(c: CommitInput): Promise<string> {
  const { store, keys, run, signal } = c;
  const json = { contentType: "application/json", signal };
  const runBytes = encodeManifest(run).bytes;
  const folder = encodeManifest(folderManifest(run, c.previous));
  await store
    .put(keys.runManifest, runBytes, { ...json, ifNoneMatch: "*" })
    .catch(async (err: unknown) => {
      if (!isStowageError(err, "exists")) throw err;
      // A retried create-only PUT whose first attempt landed finds our own bytes; a resumed
      // keyset run may find the copy its killed predecessor wrote just before dying.
      const there = await readObject(store, keys.runManifest, c.policy, signal);
      if (there?.equals(runBytes)) return;
      if (!c.resumed)
        throw new StowageError("storage", `${keys.runManifest} already exists with other content`, {
          cause: err,
          hint: "run ids are unique: another process is writing this export; run one at a time",
        });
      await store.put(keys.runManifest, runBytes, json);
    });
  await store.put(keys.manifest, folder.bytes, json);
  try {
    await store.put(keys.success, `${folder.sha256}\n`, { ...json, contentType: "text/plain" });
  } catch (err) {
    throw new CommitUncertain(err);
  }
  const cursor = run.cursor;
  if (run.mode === "incremental" && cursor?.to != null && cursor.to !== cursor.from) {
    const state: CursorState = {
      version: 1,
      export: run.export,
      column: cursor.column,
      kind: cursor.kind,
      value: cursor.to,
      run_id: run.run_id,
      updated_at: run.finished_at,
    };
    await store
      .put(cursorKey(c.exp.prefixTemplate, c.exp.name), encodeCursor(state), json)
      .catch((err: unknown) => {
        throw new CursorNotAdvanced(
          "storage",
          `the run committed but the cursor did not advance: ${(err as Error)?.message ?? String(err)}`,
          { cause: err, hint: "the next run will export these rows again" },
        );
      });
  }
  // A committed keyset run is no longer resumable (a state left by a failed delete is
  // recognised as stale by the next start: manifest.json names its run).
  if (run.mode === "keyset")
    await store
      .delete(keysetStateKey(c.exp.prefixTemplate, c.exp.name), { signal })
      .catch(() => undefined);
  // The run is committed; a marker that fails to go is removed by the next run's cleanup
  // (which sees manifest.json naming this run and keeps its objects).
  await c.marker.remove().catch(() => undefined);
  return folder.sha256;
}

/** The run committed, but the cursor PUT failed after every retry. */
export class CursorNotAdvanced extends StowageError {}

/** `_SUCCESS` failed after every retry: it may still have landed, so nothing is undone. */
export class CommitUncertain extends Error {
  constructor(override readonly cause: unknown) {
    super((cause as Error)?.message ?? String(cause));
    this.name = "CommitUncertain";
  }
}
