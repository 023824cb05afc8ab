import { afterAll, expect, it } from "vitest";
import type { S3Store } from "../src/store/s3-store.js";
import { classifyError } from "../src/store/classify-error.js";
import { runObjectStoreContract } from "../src/store/object-store.contract.js";
import { minio, uniquePrefix, minioStore } from "./support/minio.js";

const stores: S3Store[] = [];
function s3(overrides: Partial<ConstructorParameters<typeof S3Store>[0]> = {}): S3Store {
  const store = minioStore(overrides);
  stores.push(store);
  return store;
}
afterAll(() => stores.forEach((s) => s.close()));

runObjectStoreContract("S3Store on MinIO", async () => ({
  store: s3(),
  prefix: uniquePrefix("contract"),
}));

it("§3.5 classification on a real server: wrong secret is a permanent auth error, missing bucket is bucket-not-found", async () => {
  const bad = s3({
    credentials: { accessKeyId: minio().accessKeyId, secretAccessKey: "wrong-secret-value" },
  });
  const e1 = await bad.put(`${uniquePrefix("c")}/x`, "x").catch((e: unknown) => e);
  expect(classifyError(e1)).toMatchObject({
    kind: "permanent",
    category: "auth",
    code: "SignatureDoesNotMatch",
  });
  expect(String((e1 as Error).message)).not.toContain("wrong-secret-value");
  const nob = s3({ bucket: "no-such-bucket-here" });
  expect(classifyError(await nob.put("x", "x").catch((e: unknown) => e))).toMatchObject({
    kind: "permanent",
    category: "bucket-not-found",
  });
});

it("§3.5 classification: a closed port is a retryable connectivity error", async () => {
  const closed = s3({ endpoint: "http://127.0.0.1:9", requestTimeoutMs: 2000 });
  expect(classifyError(await closed.put("x", "x").catch((e: unknown) => e))).toMatchObject({
    kind: "retryable",
    category: "connectivity",
  });
});
