/**
 * The store every export step talks to: each call of run,
 * validate and cleanup goes through the one retry policy (`store/retry-policy.ts`)
 * with the export's `max_attempts`, so one 503 on any step — a part, a manifest,
 * `_SUCCESS`, the cursor, a delete, a list — costs a retry, not the run.
 *
 * `get` is passed through unretried: a GET's attempt includes reading its body, so the
 * whole read is retried (`readObject` here, `hashObject` in validate) — never a second
 * loop nested inside a first. A retry's wait ends with the store's signal or the call's own.
 */
import { EXPORT_RETRY } from "../config/retry-defaults.js";
import { readCapped } from "../shared/read-capped.js";
import { isStowageError } from "../shared/errors.js";
import type { ObjectStore } from "../store/object-store.js";
import { withRetry, type RetryHooks, type RetryPolicyOptions } from "../store/retry-policy.js";

/** The export's backoff (config/retry-defaults.ts): first wait ≤ 200 ms, doubling, each ≤ 5 s (× 2 when throttled). */
export function exportRetryPolicy(
  maxAttempts: number = EXPORT_RETRY.maxAttempts,
): RetryPolicyOptions {
  return { ...EXPORT_RETRY, maxAttempts };
}

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
 * Reads a whole (small) object — manifest, marker, cursor — retrying the read as a
 * whole; `undefined` when it does not exist.
 * @example const bytes = await readObject(store, "exports/manifest.json", policy);
 */
export async function readObject(
  store: ObjectStore,
  key: string,
  policy: RetryPolicyOptions,
  signal?: AbortSignal,
): Promise<Buffer | undefined> {
  try {
    return await withRetry(
      async () => {
        const res = await store.get(key, { signal });
        // A manifest lists one entry (~200 B) per part: 256 MiB is over a million parts.
        return await readCapped(res.body, 256 * 1024 * 1024, `export object ${key}`);
      },
      policy,
      { signal },
    );
  } catch (err) {
    if (isStowageError(err, "not-found")) return undefined;
    throw err;
  }
}

/** Every key under `prefix` (all pages). */
export async function listKeys(
  store: ObjectStore,
  prefix: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await store.list({
      prefix,
      continuationToken: token,
      signal,
    });
    keys.push(...page.entries.map((e) => e.key));
    token = page.nextContinuationToken;
  } while (token);
  return keys;
}
