/** Logger configs for tests: MinIO (optionally through a proxy) and local stores. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { S3Store } from "../../src/store/s3-store.js";
import { LocalStore } from "../../src/store/local-store.js";
import { minio, minioStore } from "./minio.js";
import { idCounts, readBack } from "./read-back.js";

type Delivery = Record<string, unknown>;

/** A logger config for the test MinIO (or `endpoint`, e.g. a fault proxy in front of it). */
export function s3Config(
  prefix: string,
  delivery: Delivery = {},
  over: { endpoint?: string; bucket?: string; secret?: string } = {},
) {
  const m = minio();
  return {
    console: false as const,
    destination: "s3" as const,
    s3: {
      bucket: over.bucket ?? m.bucket,
      prefix,
      region: m.region,
      endpoint: over.endpoint ?? m.endpoint,
      forcePathStyle: true,
      credentials: {
        accessKeyId: m.accessKeyId,
        secretAccessKey: over.secret ?? m.secretAccessKey,
      },
      delivery,
    },
  };
}

/** A direct S3Store on the test MinIO, for reading back. */
export function s3Reader(bucket = minio().bucket): S3Store {
  return minioStore({ bucket, maxAttempts: 3 });
}

export function localConfig(delivery: Delivery = {}) {
  const path = mkdtempSync(join(tmpdir(), "stowage-logs-"));
  return {
    config: {
      console: false as const,
      destination: "local" as const,
      local: { path, ...(Object.keys(delivery).length ? { delivery } : {}) },
    },
    store: new LocalStore({ root: path }),
  };
}

/** How many times each `data.id` appears under `prefix` on the test MinIO (exactly-once checks). */
export async function bucketIdCounts(prefix: string, field = "id"): Promise<Map<unknown, number>> {
  const reader = s3Reader();
  try {
    return idCounts(await readBack(reader, `${prefix}/`), field);
  } finally {
    reader.close();
  }
}
