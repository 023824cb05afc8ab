/**
 * Every storage call of a compaction run goes through the one retry policy
 * (`store/retry-policy.ts`): a 503, a reset or a timeout costs a retry, not the hour. Small
 * documents (claims, manifests) are read as a whole and retried as a whole; creates are
 * create-only (`If-None-Match: *`) and say whether the key already existed.
 */
import { COMPACT_RETRY } from "../config/retry-defaults.js";
import { isStowageError } from "../shared/errors.js";
import { readCapped } from "../shared/read-capped.js";
import { classifyError } from "../store/classify-error.js";
import type { ListEntry, ObjectStore, PutOptions } from "../store/object-store.js";
import { withRetry, type RetryPolicyOptions } from "../store/retry-policy.js";

/** Compaction's backoff (config/retry-defaults.ts, the one home of retry defaults) with `maxAttempts`. */
export function compactRetryPolicy(
  maxAttempts: number = COMPACT_RETRY.maxAttempts,
): RetryPolicyOptions {
  return { ...COMPACT_RETRY, maxAttempts };
}

export interface StoreCalls {
  /** The store with every call retried (what the multipart writer is given). */
  store: ObjectStore;
  /** The same store without retries, for reads retried as a whole. */
  raw: ObjectStore;
  policy: RetryPolicyOptions;
  signal?: AbortSignal | undefined;
}

/**
 * @example const calls = storeCalls(store, compactRetryPolicy(5), signal, (n) => retries++);
 */
export function storeCalls(
  inner: ObjectStore,
  policy: RetryPolicyOptions,
  signal: AbortSignal | undefined,
  onRetry: (note: string) => void,
): StoreCalls {
  const hooks = {
    signal,
    onRetry: (e: { code: string; status?: number }, attempt: number) =>
      onRetry(`${e.code}${e.status ? ` (HTTP ${e.status})` : ""} on attempt ${attempt}`),
  };
  const retry = <T>(call: () => Promise<T>) => withRetry(call, policy, hooks);
  const store: ObjectStore = {
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
  return { store, raw: inner, policy, signal };
}

/** A small document read whole (retried whole); undefined when it does not exist. */
export async function readDocument(
  calls: StoreCalls,
  key: string,
  maxBytes = 64 * 1024 * 1024,
): Promise<Buffer | undefined> {
  try {
    return await withRetry(
      async () => {
        const res = await calls.raw.get(key, { signal: calls.signal });
        return await readCapped(res.body, maxBytes, `compaction state ${key}`);
      },
      calls.policy,
      { signal: calls.signal },
    );
  } catch (err) {
    if (isStowageError(err, "not-found")) return undefined;
    throw err;
  }
}

/** Creates `key` only if absent: "created", or "exists" (someone, maybe an earlier attempt, has it). */
export async function createOnly(
  calls: StoreCalls,
  key: string,
  body: Uint8Array,
  options: Omit<PutOptions, "ifNoneMatch" | "signal">,
): Promise<"created" | "exists"> {
  try {
    await calls.store.put(key, body, { ...options, ifNoneMatch: "*", signal: calls.signal });
    return "created";
  } catch (err) {
    if (isStowageError(err, "exists") || classifyError(err).kind === "exists") return "exists";
    throw err;
  }
}

/** Every entry under `prefix` (all pages), with the folders below it when `delimiter` is given. */
export async function listAll(
  calls: StoreCalls,
  prefix: string,
  delimiter?: string,
): Promise<{ entries: ListEntry[]; folders: string[] }> {
  const entries: ListEntry[] = [];
  const folders: string[] = [];
  let token: string | undefined;
  do {
    const page = await calls.store.list({
      prefix,
      continuationToken: token,
      ...(delimiter ? { delimiter } : {}),
      signal: calls.signal,
    });
    entries.push(...page.entries);
    folders.push(...(page.commonPrefixes ?? []));
    token = page.nextContinuationToken;
  } while (token);
  return { entries, folders };
}
