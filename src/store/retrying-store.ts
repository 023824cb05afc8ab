/**
 * A store whose every call goes through the one retry policy (`retry-policy.ts`), for the
 * commands that talk to the bucket step by step — exports and compaction — so that one 503
 * on any step (a part, a manifest, a claim, a list, a delete) costs a retry, not the run.
 *
 * `get` is passed through unretried: a GET's attempt includes reading its body, so the
 * whole read is retried (`readWhole` here, or the caller's own read loop) — never a second
 * loop nested inside a first. A retry's wait ends with the hooks' signal or the call's own.
 */
import { isStowageError } from "../shared/errors.js";
import { readCapped } from "../shared/read-capped.js";
import type { ObjectStore } from "./object-store.js";
import { withRetry, type RetryHooks, type RetryPolicyOptions } from "./retry-policy.js";

/**
 * Wraps a store so every call but `get` is retried under `policy`.
 * @example const store = retryingStore(s3, exportRetryPolicy(4), { signal });
 */
export function retryingStore(
  inner: ObjectStore,
  policy: RetryPolicyOptions,
  hooks: RetryHooks = {},
): ObjectStore {
  const retry = <T>(call: () => Promise<T>, o?: { signal?: AbortSignal | undefined }) =>
    withRetry(call, policy, { ...hooks, signal: eitherSignal(hooks.signal, o?.signal) });
  return {
    description: inner.description,
    put: (key, body, o) => retry(() => inner.put(key, body, o), o),
    get: (key, o) => inner.get(key, o),
    head: (key, o) => retry(() => inner.head(key, o), o),
    list: (o) => retry(() => inner.list(o), o),
    listVersions: (o) => retry(() => inner.listVersions(o), o),
    delete: (key, o) => retry(() => inner.delete(key, o), o),
    startMultipart: (key, o) => retry(() => inner.startMultipart(key, o), o),
    uploadPart: (u, n, b, o) => retry(() => inner.uploadPart(u, n, b, o), o),
    completeMultipart: (u, p, o) => retry(() => inner.completeMultipart(u, p, o), o),
    abortMultipart: (u, o) => retry(() => inner.abortMultipart(u, o), o),
    listMultipartUploads: (p, o) => retry(() => inner.listMultipartUploads(p, o), o),
    close: () => inner.close(),
  };
}

/** Aborts when either signal does (one of them when the other is absent or the same). */
function eitherSignal(
  a: AbortSignal | undefined,
  b: AbortSignal | undefined,
): AbortSignal | undefined {
  return a && b && a !== b ? AbortSignal.any([a, b]) : (a ?? b);
}

/**
 * Reads a whole small object (a manifest, a marker, a claim) through `store.get`, retrying
 * the read as a whole; undefined when it does not exist; more than `maxBytes` is an error
 * naming `what`.
 * @example const bytes = await readWhole(store, "exports/manifest.json", policy, { maxBytes: 1 << 20, what: "manifest" });
 */
export async function readWhole(
  store: ObjectStore,
  key: string,
  policy: RetryPolicyOptions,
  o: { maxBytes: number; what: string; signal?: AbortSignal | undefined },
): Promise<Buffer | undefined> {
  try {
    return await withRetry(
      async () => {
        const res = await store.get(key, { signal: o.signal });
        return await readCapped(res.body, o.maxBytes, `${o.what} ${key}`);
      },
      policy,
      { signal: o.signal },
    );
  } catch (err) {
    if (isStowageError(err, "not-found")) return undefined;
    throw err;
  }
}
