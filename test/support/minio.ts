/** Test access to the run's MinIO: connection info, unique prefixes, extra buckets. */
import { inject } from "vitest";
import { randomBytes } from "node:crypto";
import { createBuckets, minioStoreOf, type MinioInfo } from "./minio-server.js";
import type { S3Store, S3StoreOptions } from "../../src/store/s3-store.js";

export function minio(): MinioInfo {
  return inject("minio");
}

/** A prefix no other test uses: `t/<name>-<random>`. */
export function uniquePrefix(name: string): string {
  return `t/${name}-${randomBytes(4).toString("hex")}`;
}

/** Creates a fresh, uniquely named bucket (optionally with Object Lock enabled) and returns its name. */
export async function freshBucket(
  name = "b",
  options: { objectLock?: boolean } = {},
): Promise<string> {
  const bucket = `${name}-${randomBytes(5).toString("hex")}`.toLowerCase();
  await createBuckets(minio(), [bucket], options);
  return bucket;
}

/**
 * An S3Store on the run's MinIO (path style, root credentials); `overrides` change
 * the bucket, the endpoint (e.g. a proxy in front of MinIO), timeouts, or credentials.
 */
export function minioStore(overrides: Partial<S3StoreOptions> = {}): S3Store {
  return minioStoreOf(minio(), overrides);
}
