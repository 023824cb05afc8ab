/**
 * The store every export step talks to: each call of run,
 * validate and cleanup goes through the one retry policy (`store/retry-policy.ts`)
 * with the export's `max_attempts`, so one 503 on any step — a part, a manifest,
 * `_SUCCESS`, the cursor, a delete, a list — costs a retry, not the run.
 *
 * `get` retries opening the object; a body that breaks mid-read is the reader's
 * to retry (see `readObject`, which retries the whole read).
 */
import { readCapped } from "../shared/read-capped.js";
import { isStowageError } from "../shared/errors.js";
import type { ObjectStore } from "../store/object-store.js";
import { withRetry, type RetryHooks, type RetryPolicyOptions } from "../store/retry-policy.js";

/** The export's backoff: first wait ≤ 200 ms, doubling, each wait ≤ 5 s (× 2 when throttled). */
export function exportRetryPolicy(maxAttempts: number): RetryPolicyOptions {
  return { maxAttempts, initialBackoffMs: 200, maxBackoffMs: 5_000 };
}

/**
 * Wraps a store so every call is retried under `policy`.
 * @example const store = retryingStore(s3, exportRetryPolicy(4), { signal });
 */
export function retryingStore(
  inner: ObjectStore,
  policy: RetryPolicyOptions,
  hooks: RetryHooks = {},
): ObjectStore {
  const retry = <T>(call: () => Promise<T>) => withRetry(call, policy, hooks);
  const wrapped: ObjectStore & { [RAW]?: ObjectStore } = {
    description: inner.description,
    put: (key, body, o) => retry(() => inner.put(key, body, o)),
    get: (key, o) => retry(() => inner.get(key, o)),
    head: (key, o) => retry(() => inner.head(key, o)),
    list: (o) => retry(() => inner.list(o)),
    listVersions: (o) => retry(() => inner.listVersions(o)),
    delete: (key, o) => retry(() => inner.delete(key, o)),
    startMultipart: (key, o) => retry(() => inner.startMultipart(key, o)),
    uploadPart: (u, n, b, o) => retry(() => inner.uploadPart(u, n, b, o)),
    completeMultipart: (u, p, o) => retry(() => inner.completeMultipart(u, p, o)),
    abortMultipart: (u, o) => retry(() => inner.abortMultipart(u, o)),
    listMultipartUploads: (p, o) => retry(() => inner.listMultipartUploads(p, o)),
    close: () => inner.close(),
  };
  wrapped[RAW] = inner;
  return wrapped;
}

const RAW = Symbol("stowage.unretried");

/**
 * The same store under the same policy, with its waits and calls also ended by `signal`:
 * for a group of calls that must stop on its own (without nesting a second retry loop).
 * @example const reads = retryingStoreFor(store, policy, readsSignal);
 */
export function retryingStoreFor(
  store: ObjectStore,
  policy: RetryPolicyOptions,
  signal: AbortSignal,
): ObjectStore {
  return retryingStore(unretried(store), policy, { signal });
}

/** The store under a `retryingStore` (so whole-read retries do not nest inside per-call ones). */
function unretried(store: ObjectStore): ObjectStore {
  return (store as { [RAW]?: ObjectStore })[RAW] ?? store;
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
        const res = await unretried(store).get(key, { signal });
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
