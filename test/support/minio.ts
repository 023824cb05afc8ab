/** Test access to the run's MinIO: connection info, unique prefixes, extra buckets. */
import { inject } from "vitest";
import { randomBytes } from "node:crypto";
import { createBuckets, type MinioInfo } from "./minio-server.js";

export function minio(): MinioInfo {
  return inject("minio");
}

/** A prefix no other test uses: `t/<name>-<random>`. */
export function uniquePrefix(name: string): string {
  return `t/${name}-${randomBytes(4).toString("hex")}`;
}

/** Creates a fresh, uniquely named bucket and returns its name. */
export async function freshBucket(name = "b"): Promise<string> {
  const bucket = `${name}-${randomBytes(5).toString("hex")}`.toLowerCase();
  await createBuckets(minio(), [bucket]);
  return bucket;
}
