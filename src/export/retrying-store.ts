/**
 * The export's side of the retrying store (`store/retrying-store.ts`, shared with
 * compaction): its backoff with `max_attempts`, whole reads of its small objects and key
 * listings. Every call of run, validate and cleanup goes through `retryingStore`.
 */
import { EXPORT_RETRY } from "../config/retry-defaults.js";
import type { ObjectStore } from "../store/object-store.js";
import { readWhole } from "../store/retrying-store.js";
import type { RetryPolicyOptions } from "../store/retry-policy.js";

/** The export's backoff (config/retry-defaults.ts): first wait ≤ 200 ms, doubling, each ≤ 5 s (× 2 when throttled). */
export function exportRetryPolicy(
  maxAttempts: number = EXPORT_RETRY.maxAttempts,
): RetryPolicyOptions {
  return { ...EXPORT_RETRY, maxAttempts };
}

/**
 * Reads a whole (small) object — manifest, marker, cursor — retrying the read as a
 * whole; `undefined` when it does not exist.
 * @example const bytes = await readObject(store, "exports/manifest.json", policy);
 */
export function readObject(
  store: ObjectStore,
  key: string,
  policy: RetryPolicyOptions,
  signal?: AbortSignal,
): Promise<Buffer | undefined> {
  // A manifest lists one entry (~200 B) per part: 256 MiB is over a million parts.
  return readWhole(store, key, policy, {
    maxBytes: 256 * 1024 * 1024,
    what: "export object",
    signal,
  });
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
