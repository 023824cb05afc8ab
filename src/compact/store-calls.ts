/**
 * Every storage call of a compaction run goes through the one retry policy
 * (`store/retry-policy.ts`): a 503, a reset or a timeout costs a retry, not the hour. Small
 * documents (claims, manifests) are read as a whole and retried as a whole; creates are
 * create-only (`If-None-Match: *`) and say whether the key already existed.
 */
import { COMPACT_RETRY } from "../config/retry-defaults.js";
import { isStowageError } from "../shared/errors.js";
import { classifyError } from "../store/classify-error.js";
import type { ListEntry, ObjectStore, PutOptions } from "../store/object-store.js";
import type { RetryPolicyOptions } from "../store/retry-policy.js";
import { readWhole, retryingStore } from "../store/retrying-store.js";

/** Compaction's backoff (config/retry-defaults.ts, the one home of retry defaults) with `maxAttempts`. */
export function compactRetryPolicy(
  maxAttempts: number = COMPACT_RETRY.maxAttempts,
): RetryPolicyOptions {
  return { ...COMPACT_RETRY, maxAttempts };
}

export interface StoreCalls {
  /** The store with every call but `get` retried (`store/retrying-store.ts`; what the multipart writer is given). */
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
  const store = retryingStore(inner, policy, hooks);
  return { store, raw: inner, policy, signal };
}

/** A small document read whole (retried whole); undefined when it does not exist. */
export function readDocument(
  calls: StoreCalls,
  key: string,
  maxBytes = 64 * 1024 * 1024,
): Promise<Buffer | undefined> {
  return readWhole(calls.raw, key, calls.policy, {
    maxBytes,
    what: "compaction state",
    signal: calls.signal,
  });
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
