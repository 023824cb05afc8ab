/**
 * `validate` (SPEC §7.2): checks a finished export against its manifest.
 * Metadata depth: `_SUCCESS` holds the SHA-256 of `manifest.json`, the immutable
 * `manifest-<run_id>.json` matches it, and every listed part exists with its
 * size. Full depth also re-downloads every part and re-hashes it.
 * Integrity problems are returned; a store that cannot be read throws.
 * Every storage call is retried under the export's `max_attempts`;
 * a manifest naming a path with `..` is an integrity failure, never followed.
 *
 * A folder manifest listing several runs (`runs`, incremental runs on one `{date}`)
 * is checked against the last run's `manifest-<run_id>.json`: that run's parts are
 * the tail of the folder's list.
 */
import { createHash } from "node:crypto";
import { isStowageError } from "../shared/errors.js";
import type { ObjectStore } from "../store/object-store.js";
import { withRetry, type RetryPolicyOptions } from "../store/retry-policy.js";
import type { ResolvedExport } from "./config.js";
import { parseManifest, parseSuccess, sha256Hex, type Manifest } from "./manifest.js";
import { join, resolvePrefix, stamp } from "./naming.js";
import { lockProblems, lockUntil } from "../store/object-lock.js";
import { retryingStore } from "../store/retrying-store.js";
import { exportRetryPolicy, readObject } from "./retrying-store.js";

export type ValidateDepth = "metadata" | "full";

export interface ValidateResult {
  export: string;
  ok: boolean;
  /** ok · incomplete (no `_SUCCESS`: a run did not finish, or none ran) · corrupt (a check failed). */
  status: "ok" | "incomplete" | "corrupt";
  depth: ValidateDepth;
  prefix: string;
  runId?: string;
  parts: number;
  rows: number;
  bytes: number;
  problems: string[];
}

async function hashObject(
  store: ObjectStore,
  key: string,
  policy: RetryPolicyOptions,
  signal?: AbortSignal,
): Promise<{ sha256: string; bytes: number } | undefined> {
  try {
    // The whole download is one attempt: a body cut mid-way starts over.
    return await withRetry(
      async () => {
        const res = await store.get(key, { signal });
        const h = createHash("sha256");
        let bytes = 0;
        for await (const c of res.body) {
          h.update(c as Buffer);
          bytes += (c as Buffer).length;
        }
        return { sha256: h.digest("hex"), bytes };
      },
      policy,
      { signal },
    );
  } catch (err) {
    if (isStowageError(err, "not-found")) return undefined;
    throw err;
  }
}

const escapes = (path: string) => path.split("/").includes("..") || path.includes("\\");

/**
 * @example const r = await validateExport(exp, { store, depth: "full" }); r.status // "ok"
 */
export async function validateExport(
  exp: ResolvedExport,
  options: {
    store: ObjectStore;
    depth?: ValidateDepth;
    date?: Date;
    signal?: AbortSignal | undefined;
    concurrency?: number;
    /** Attempts per storage call (default 4, the export's `max_attempts`). */
    maxAttempts?: number;
    /**
     * `stowage verify`: also HEAD every part for a stored SHA-256 and, when the
     * destination sets `object_lock`, a retention of that mode lasting until at
     * least the run's start + retain_days (docs/retention.md).
     */
    retention?: boolean;
  },
): Promise<ValidateResult> {
  const { signal } = options;
  const policy = exportRetryPolicy(options.maxAttempts);
  const raw = options.store;
  const store = retryingStore(raw, policy, { signal });
  const readAll = (s: ObjectStore, key: string, sig?: AbortSignal) =>
    readObject(s, key, policy, sig);
  const depth = options.depth ?? "metadata";
  const prefix = resolvePrefix(
    exp.prefixTemplate,
    exp.name,
    stamp(options.date ?? new Date()).date,
  );
  const result: ValidateResult = {
    export: exp.name,
    ok: false,
    status: "corrupt",
    depth,
    prefix,
    parts: 0,
    rows: 0,
    bytes: 0,
    problems: [],
  };
  const success = await readAll(store, join(prefix, "_SUCCESS"), signal);
  const manifestBytes = await readAll(store, join(prefix, "manifest.json"), signal);
  if (!success) {
    result.status = "incomplete";
    result.problems.push(
      manifestBytes
        ? `no _SUCCESS under ${prefix || "(bucket root)"}: a run started after the last manifest and did not finish (or is still running)`
        : `no _SUCCESS and no manifest.json under ${prefix || "(bucket root)"}: no run of this export has completed`,
    );
    return result;
  }
  if (!manifestBytes) {
    result.problems.push("_SUCCESS exists but manifest.json is missing");
    return result;
  }
  const vouched = parseSuccess(success);
  const actual = sha256Hex(manifestBytes);
  if (vouched !== actual) {
    result.problems.push(
      vouched
        ? `manifest.json has SHA-256 ${actual} but _SUCCESS vouches for ${vouched}`
        : "_SUCCESS does not hold a SHA-256 (not written by stowage?)",
    );
    return result;
  }
  let manifest: Manifest;
  try {
    manifest = parseManifest(manifestBytes, join(prefix, "manifest.json"));
  } catch (err) {
    result.problems.push((err as Error).message);
    return result;
  }
  const unsafe = [manifest.run_id, ...manifest.parts.map((p) => p.path)].filter(escapes);
  if (unsafe.length) {
    result.problems.push(
      `manifest.json names ${unsafe.map((u) => JSON.stringify(u)).join(", ")}: a path with ".." is never followed (the manifest was altered)`,
    );
    return result;
  }
  Object.assign(result, {
    runId: manifest.run_id,
    parts: manifest.parts.length,
    rows: manifest.totals?.rows ?? 0,
    bytes: manifest.totals?.bytes ?? 0,
  });
  const runCopy = await readAll(store, join(prefix, `manifest-${manifest.run_id}.json`), signal);
  if (!runCopy) result.problems.push(`manifest-${manifest.run_id}.json is missing`);
  else if (!manifest.runs || manifest.runs.length < 2) {
    if (sha256Hex(runCopy) !== actual)
      result.problems.push(`manifest-${manifest.run_id}.json differs from manifest.json`);
  } else if (!isTail(runCopy, manifest)) {
    result.problems.push(
      `manifest-${manifest.run_id}.json does not match the last run listed in manifest.json`,
    );
  }
  const sums = manifest.parts.reduce(
    (a, p) => ({ rows: a.rows + p.rows, bytes: a.bytes + p.bytes }),
    { rows: 0, bytes: 0 },
  );
  if (
    manifest.totals &&
    (sums.rows !== manifest.totals.rows || sums.bytes !== manifest.totals.bytes)
  ) {
    result.problems.push(
      `manifest totals (${manifest.totals.rows} rows, ${manifest.totals.bytes} bytes) differ from the sum of its parts`,
    );
  }
  result.problems.push(...rowProblems(manifest, sums.rows));
  const lock = exp.destination.type === "s3" ? exp.destination.objectLock : undefined;
  const until = lock ? lockUntil(Date.parse(manifest.started_at), lock) : undefined;
  await eachLimited(manifest.parts, options.concurrency ?? 8, async (part) => {
    if (options.retention) {
      const info = await store.head(part.path, { signal }).catch((err: unknown) => {
        if (isStowageError(err, "not-found")) return undefined;
        throw err;
      });
      if (info && !info.checksumSha256)
        result.problems.push(`part ${part.path} has no stored SHA-256 checksum`);
      if (info && lock && until)
        for (const p of lockProblems(info, until, lock))
          result.problems.push(`part ${part.path} is ${p}`);
    }
    if (depth === "full") {
      const got = await hashObject(raw, part.path, policy, signal);
      if (!got) result.problems.push(`part ${part.path} is missing`);
      else if (got.bytes !== part.bytes)
        result.problems.push(
          `part ${part.path} has ${got.bytes} bytes; the manifest says ${part.bytes}`,
        );
      else if (got.sha256 !== part.sha256)
        result.problems.push(
          `part ${part.path} has SHA-256 ${got.sha256}; the manifest says ${part.sha256}`,
        );
      return;
    }
    try {
      const info = await store.head(part.path, { signal });
      if (info.size !== part.bytes)
        result.problems.push(
          `part ${part.path} has ${info.size} bytes; the manifest says ${part.bytes}`,
        );
    } catch (err) {
      if (!isStowageError(err, "not-found")) throw err;
      result.problems.push(`part ${part.path} is missing`);
    }
  });
  result.ok = result.problems.length === 0;
  result.status = result.ok ? "ok" : "corrupt";
  return result;
}

/**
 * Issue 31 §4: each object listed once, and the parts hold the rows the source returned
 * to the run (`source.rows`, absent from manifests written before it was recorded).
 */
function rowProblems(m: Manifest, partRows: number): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const p of m.parts) (seen.has(p.path) ? twice : seen).add(p.path);
  for (const path of twice) problems.push(`manifest.json lists part ${path} more than once`);
  const reported = m.source?.rows;
  if (reported !== undefined && reported !== partRows)
    problems.push(
      Number.isSafeInteger(reported)
        ? `manifest.json's parts hold ${partRows} rows, but the source returned ${reported} rows to the run (source.rows)`
        : `manifest.json's source.rows is not a row count`,
    );
  return problems;
}

/** True when the run copy's parts are the last parts of the folder manifest. */
function isTail(runCopy: Buffer, folder: Manifest): boolean {
  let run: Manifest;
  try {
    run = parseManifest(runCopy, "run manifest");
  } catch {
    return false;
  }
  if (run.run_id !== folder.run_id) return false;
  const tail = folder.parts.slice(folder.parts.length - run.parts.length);
  return (
    run.parts.length <= folder.parts.length &&
    run.parts.every((p, i) => p.path === tail[i]!.path && p.sha256 === tail[i]!.sha256)
  );
}

async function eachLimited<T>(
  items: T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let i = 0;
  const run = async () => {
    while (i < items.length) await fn(items[i++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
}
