/**
 * Nothing orphaned: while a run writes, an in-progress marker
 * `{stable prefix}/_inprogress-<export>-<run_id>.json` lists every key it may
 * create (its run manifest, then each data object before its upload starts). A
 * run that commits removes its marker; a run that dies leaves it, and the next
 * run (or `stowage run --cleanup`) deletes what the marker lists.
 *
 * Invariants:
 * - a key is in the marker before any byte of it is uploaded (the marker PUT is awaited);
 * - a run counts as committed when the folder's `manifest.json` names it: then only
 *   the marker goes, never its objects (a crash between `_SUCCESS` and the marker delete);
 * - a keyset run whose state file names it is resumable, so cleanup leaves it alone;
 * - one run of an export at a time: cleanup assumes other markers belong to dead runs.
 */
import { StowageError } from "../shared/errors.js";
import type { ObjectStore } from "../store/object-store.js";
import type { RetryPolicyOptions } from "../store/retry-policy.js";
import type { ResolvedExport } from "./config.js";
import { parseManifest, sha256Hex } from "./manifest.js";
import { join, keysetStateKey, markerPrefix, stablePrefix } from "./naming.js";
import { listKeys, readObject } from "./retrying-store.js";

/** The marker's JSON. */
export interface InProgress {
  version: 1;
  export: string;
  run_id: string;
  mode: string;
  /** The run's resolved folder (where its manifest would go). */
  prefix: string;
  started_at: string;
  /** The `_SUCCESS` this run removed (the SHA-256 it held), put back by cleanup if `manifest.json` still matches. */
  replaced_success?: string;
  keys: string[];
}

/**
 * The marker of the running run; `add` records a key before its upload starts.
 * @example const m = new RunMarker(store, key, info); await m.add(partKey); … await m.remove();
 */
export class RunMarker {
  private readonly keys = new Set<string>();
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: ObjectStore,
    readonly key: string,
    private readonly info: Omit<InProgress, "keys" | "version">,
    private readonly signal?: AbortSignal,
  ) {}

  /** Adds keys and rewrites the marker; resolves once the marker holds them. */
  add(...keys: string[]): Promise<void> {
    const fresh = keys.filter((k) => !this.keys.has(k));
    if (fresh.length === 0) return this.chain.then(() => undefined);
    for (const k of fresh) this.keys.add(k);
    const body: InProgress = { version: 1, ...this.info, keys: [...this.keys] };
    const write = () =>
      this.store.put(this.key, JSON.stringify(body, null, 1), {
        contentType: "application/json",
        signal: this.signal,
      });
    const next = this.chain.then(write, write);
    this.chain = next.catch(() => undefined);
    return next.then(() => undefined);
  }

  /** Deletes the marker (the run committed, or cleaned up after itself). */
  async remove(): Promise<void> {
    await this.chain;
    await this.store.delete(this.key);
  }
}

export interface CleanupResult {
  /** Runs whose objects were deleted. */
  runs: string[];
  deletedObjects: number;
  /** Resumable keyset runs left in place. */
  resumable: string[];
}

/**
 * Deletes what failed runs of `exp` left behind (all markers but `exceptRunId`).
 * @example const r = await cleanupFailedRuns(store, exp, policy); r.deletedObjects
 */
export async function cleanupFailedRuns(
  store: ObjectStore,
  exp: ResolvedExport,
  policy: RetryPolicyOptions,
  options: {
    exceptRunId?: string;
    signal?: AbortSignal | undefined;
    /** The export's markers, when the caller listed them already (listMarkers). */
    markers?: string[];
  } = {},
): Promise<CleanupResult> {
  const { signal } = options;
  const result: CleanupResult = { runs: [], deletedObjects: 0, resumable: [] };
  const markers = options.markers ?? (await listMarkers(store, exp, signal));
  if (markers.length === 0) return result;
  const keyset = await readObject(
    store,
    keysetStateKey(exp.prefixTemplate, exp.name),
    policy,
    signal,
  );
  const resumableRun = keyset ? stateRunId(keyset) : undefined;
  for (const markerKey of markers) {
    const bytes = await readObject(store, markerKey, policy, signal);
    if (!bytes) continue;
    const m = parseMarker(bytes, markerKey);
    if (m.run_id === options.exceptRunId) continue;
    if (m.run_id === resumableRun) {
      result.resumable.push(m.run_id);
      continue;
    }
    if (!(await committed(store, m, policy, signal))) {
      // Only keys under this export's own prefix, never `..`: a marker is bucket content.
      const head = stablePrefix(exp.prefixTemplate, exp.name);
      const safe = m.keys.filter(
        (k) => (!head || k.startsWith(`${head}/`)) && !k.split("/").includes(".."),
      );
      const mine = new Set(safe);
      const uploads = await store.listMultipartUploads(m.prefix ? `${m.prefix}/` : "", { signal });
      for (const u of uploads.filter((u) => mine.has(u.key)))
        await store.abortMultipart(u, { signal });
      for (const k of safe) await store.delete(k, { signal });
      result.runs.push(m.run_id);
      result.deletedObjects += safe.length;
      await restoreSuccess(store, m, policy, signal);
    }
    await store.delete(markerKey, { signal });
  }
  return result;
}

/** The in-progress markers of `exp` (runs that started and have not committed or been cleaned up). */
export function listMarkers(
  store: ObjectStore,
  exp: ResolvedExport,
  signal?: AbortSignal,
): Promise<string[]> {
  return listKeys(store, markerPrefix(exp.prefixTemplate, exp.name), signal);
}

/** The failed run left the folder's commit untouched: its `_SUCCESS` goes back. */
async function restoreSuccess(
  store: ObjectStore,
  m: InProgress,
  policy: RetryPolicyOptions,
  signal?: AbortSignal,
): Promise<void> {
  if (!m.replaced_success) return;
  const successKey = join(m.prefix, "_SUCCESS");
  if (await readObject(store, successKey, policy, signal)) return;
  const manifest = await readObject(store, join(m.prefix, "manifest.json"), policy, signal);
  if (manifest && sha256Hex(manifest) === m.replaced_success)
    await store.put(successKey, `${m.replaced_success}\n`, {
      contentType: "text/plain",
      signal,
    });
}

async function committed(
  store: ObjectStore,
  m: InProgress,
  policy: RetryPolicyOptions,
  signal?: AbortSignal,
): Promise<boolean> {
  const key = join(m.prefix, "manifest.json");
  const bytes = await readObject(store, key, policy, signal);
  if (!bytes) return false;
  try {
    const folder = parseManifest(bytes, key);
    return folder.run_id === m.run_id || (folder.runs ?? []).includes(m.run_id);
  } catch {
    return false; // a foreign manifest.json vouches for nothing of ours
  }
}

function parseMarker(bytes: Buffer, key: string): InProgress {
  try {
    const m = JSON.parse(bytes.toString("utf8")) as InProgress;
    if (typeof m.run_id === "string" && typeof m.prefix === "string" && Array.isArray(m.keys))
      return m;
  } catch {
    /* reported below */
  }
  throw new StowageError("format", `${key} is not a stowage in-progress marker`, {
    hint: "it is safe to delete it by hand if no export run is in progress",
  });
}

/**
 * The run a keyset state names, if it names one: cleanup leaves that run's objects for
 * the resume (the run itself checks the whole state, modes/keyset-state.ts); a state that is
 * not JSON must not stop `--cleanup`.
 */
function stateRunId(bytes: Buffer): string | undefined {
  try {
    const id = (JSON.parse(bytes.toString("utf8")) as { run_id?: unknown } | null)?.run_id;
    return typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}
