/**
 * Opens the ObjectStore for a resolved destination: S3Store with the chosen
 * credential source and addressing, or LocalStore. Also the bucket-level probe
 * (HeadBucket) doctor needs, since the SDK may only be imported under store/.
 */
import type { ResolvedDestination } from "../config/destination.js";
import type { Env } from "../config/env.js";
import { StowageError } from "../shared/errors.js";
import { s3Sdk } from "./aws-sdk.js";
import { resolveCredentials, type CredentialSource } from "./credentials.js";
import { LocalStore } from "./local-store.js";
import type { ObjectStore } from "./object-store.js";
import { S3Store } from "./s3-store.js";
import { regionMissingError, storageError } from "./store-errors.js";
import { describeClass, classifyError } from "./classify-error.js";

export interface OpenStoreOptions {
  /** Environment for `*_env` credential variables. */
  env: Env;
  /** Per HTTP attempt. Default: S3Store's (10 s). */
  requestTimeoutMs?: number;
  /** SDK attempts per call. Default 1 (callers count their own retries). */
  maxAttempts?: number;
}

export interface OpenedStore {
  store: ObjectStore;
  /** Which §2.2 source supplies the credentials; "local" for a local-directory store. */
  credentialSource: CredentialSource | "local";
  /** A safe description of that source (variable or profile names, never values). */
  credentialDescription: string;
}

/**
 * @example
 * const { store, credentialSource } = openStore(parseDestination(raw, "s3"), { env: process.env });
 * await store.put("app/v1/x.ndjson.gz", bytes, { ifNoneMatch: "*" });
 */
export function openStore(dest: ResolvedDestination, options: OpenStoreOptions): OpenedStore {
  if (dest.type === "local") {
    return {
      store: new LocalStore({ root: dest.path }),
      credentialSource: "local",
      credentialDescription: "local filesystem",
    };
  }
  const creds = resolveCredentials(dest.credentials, { env: options.env, endpoint: dest.endpoint });
  const store = new S3Store({
    bucket: dest.bucket,
    ...(dest.region ? { region: dest.region } : {}),
    ...(dest.endpoint ? { endpoint: dest.endpoint } : {}),
    forcePathStyle: dest.forcePathStyle,
    ...(creds.provider ? { credentials: creds.provider } : {}),
    ...(creds.source === "anonymous" ? { anonymous: true } : {}),
    ...(options.requestTimeoutMs !== undefined
      ? { requestTimeoutMs: options.requestTimeoutMs }
      : {}),
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
  });
  return { store, credentialSource: creds.source, credentialDescription: creds.description };
}

/**
 * HeadBucket on an S3Store: resolves with the region the provider reports
 * (`x-amz-bucket-region`, when it sends one); throws a StoreError("storage") carrying
 * the answer's class (classifyError(err).status 404 = no such bucket, 403 = not allowed).
 */
export async function headBucket(
  store: ObjectStore,
  options: { signal?: AbortSignal | undefined; timeoutMs?: number } = {},
): Promise<{ region?: string }> {
  if (!(store instanceof S3Store))
    throw new StowageError("internal", "headBucket needs an S3Store");
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const abortSignal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const res = await store.client.send(new (s3Sdk().HeadBucketCommand)({ Bucket: store.bucket }), {
      abortSignal,
    });
    return res.BucketRegion ? { region: res.BucketRegion } : {};
  } catch (err) {
    const missing = regionMissingError(err);
    if (missing) throw missing;
    const c = classifyError(err);
    throw storageError(err, `HeadBucket ${store.bucket}: ${describeClass(c)}`, { classified: c });
  }
}
