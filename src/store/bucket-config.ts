/**
 * Bucket-level settings doctor reads (the SDK lives under store/ only): the
 * lifecycle rules, whether Object Lock is enabled, and versioning. Answers are normalised
 * to plain data; "not configured" is an empty answer, not an error. A failure is a
 * StoreError("storage") carrying its class.
 */
import { s3Sdk } from "./aws-sdk.js";
import { classifyError } from "./classify-error.js";
import { storageError } from "./store-errors.js";
import type { ObjectStore } from "./object-store.js";
import { S3Store } from "./s3-store.js";

/** One lifecycle rule as doctor needs it (prefix filters only; tag filters make a rule partial). */
export interface BucketLifecycleRule {
  id: string;
  enabled: boolean;
  /** The key prefix the rule applies to ("" for the whole bucket); undefined when it filters on tags or size. */
  prefix: string | undefined;
  expireDays?: number;
  transitionDays?: number;
  abortIncompleteMultipartDays?: number;
}

type RawRule = {
  ID?: string;
  Status?: string;
  Prefix?: string;
  Filter?: {
    Prefix?: string;
    Tag?: unknown;
    And?: { Prefix?: string; Tags?: unknown[] };
    ObjectSizeGreaterThan?: number;
    ObjectSizeLessThan?: number;
  };
  Expiration?: { Days?: number };
  Transitions?: { Days?: number }[];
  AbortIncompleteMultipartUpload?: { DaysAfterInitiation?: number };
};

function prefixOf(r: RawRule): string | undefined {
  const f = r.Filter;
  if (!f) return r.Prefix ?? "";
  if (f.Tag || f.And?.Tags?.length || f.ObjectSizeGreaterThan || f.ObjectSizeLessThan)
    return undefined;
  return f.Prefix ?? f.And?.Prefix ?? "";
}

/** Lifecycle rules of the store's bucket ([] when none are configured). Local stores have none. */
export async function getBucketLifecycle(
  store: ObjectStore,
  signal?: AbortSignal,
): Promise<BucketLifecycleRule[]> {
  if (!(store instanceof S3Store)) return [];
  const res = await bucketCall(
    store,
    "GetBucketLifecycleConfiguration",
    (abortSignal) =>
      store.client.send(
        new (s3Sdk().GetBucketLifecycleConfigurationCommand)({ Bucket: store.bucket }),
        abortSignal,
      ),
    signal,
    "NoSuchLifecycleConfiguration",
  );
  return ((res?.Rules ?? []) as RawRule[]).map((r) => {
    const days = r.Transitions?.map((t) => t.Days).filter((d): d is number => d !== undefined);
    return {
      id: r.ID ?? "",
      enabled: r.Status === "Enabled",
      prefix: prefixOf(r),
      ...(r.Expiration?.Days !== undefined ? { expireDays: r.Expiration.Days } : {}),
      ...(days && days.length ? { transitionDays: Math.min(...days) } : {}),
      ...(r.AbortIncompleteMultipartUpload?.DaysAfterInitiation !== undefined
        ? { abortIncompleteMultipartDays: r.AbortIncompleteMultipartUpload.DaysAfterInitiation }
        : {}),
    };
  });
}

/** True when the bucket has Object Lock enabled (false when it has no lock configuration). */
export async function getBucketObjectLockEnabled(
  store: ObjectStore,
  signal?: AbortSignal,
): Promise<boolean> {
  if (!(store instanceof S3Store)) return true; // the local store keeps locks in its sidecars
  const res = await bucketCall(
    store,
    "GetObjectLockConfiguration",
    (abortSignal) =>
      store.client.send(
        new (s3Sdk().GetObjectLockConfigurationCommand)({ Bucket: store.bucket }),
        abortSignal,
      ),
    signal,
    "ObjectLockConfigurationNotFoundError",
  );
  return res?.ObjectLockConfiguration?.ObjectLockEnabled === "Enabled";
}

/**
 * The bucket's versioning: "Enabled", "Suspended", or "Off" (never turned on). A local
 * store answers "Enabled": it keeps one version per key and its locks in sidecars.
 */
export async function getBucketVersioning(
  store: ObjectStore,
  signal?: AbortSignal,
): Promise<"Enabled" | "Suspended" | "Off"> {
  if (!(store instanceof S3Store)) return "Enabled";
  const res = await bucketCall(
    store,
    "GetBucketVersioning",
    (abortSignal) =>
      store.client.send(
        new (s3Sdk().GetBucketVersioningCommand)({ Bucket: store.bucket }),
        abortSignal,
      ),
    signal,
  );
  return res?.Status === "Enabled" || res?.Status === "Suspended" ? res.Status : "Off";
}

/**
 * One bucket-level call: undefined when the answer's code is `absent` (nothing configured);
 * any other failure a StoreError("storage") carrying its class.
 */
async function bucketCall<T>(
  store: S3Store,
  what: string,
  call: (options: { abortSignal?: AbortSignal }) => Promise<T>,
  signal: AbortSignal | undefined,
  absent?: string,
): Promise<T | undefined> {
  try {
    return await call(signal ? { abortSignal: signal } : {});
  } catch (err) {
    const c = classifyError(err);
    if (absent !== undefined && c.code === absent) return undefined;
    throw storageError(err, `${what} ${store.bucket}: ${c.code}`, { classified: c });
  }
}
