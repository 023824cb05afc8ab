import { afterAll, expect, it } from "vitest";
import type { S3Store } from "../src/store/s3-store.js";
import { classifyError } from "../src/store/classify-error.js";
import { runObjectStoreContract } from "../src/store/object-store.contract.js";
import { HeadObjectCommand, DeleteObjectCommand } from "@aws-sdk/client-s3";
import { startFaultProxy } from "./support/fault-proxy.js";
import { freshBucket, minio, uniquePrefix, minioStore } from "./support/minio.js";

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

it("§3.4 a PUT or part whose body changed in flight is refused: the signature carries the body's SHA-256", async () => {
  const proxy = await startFaultProxy(minio().endpoint, (r) =>
    r.kind === "put" ? "flip-request" : undefined,
  );
  try {
    const store = s3({ endpoint: proxy.endpoint });
    const direct = s3();
    const key = `${uniquePrefix("flipput")}/x.txt`;
    const err = await store.put(key, "payload ".repeat(100)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(proxy.injected["flip-request"]).toBe(1);
    expect(await direct.head(key).catch((e: unknown) => e)).toBeInstanceOf(Error);
    const up = await store.startMultipart(`${key}.mp`, {});
    const partErr = await store
      .uploadPart(up, 1, Buffer.alloc(5 * 1024 * 1024, 7))
      .catch((e: unknown) => e);
    expect(partErr).toBeInstanceOf(Error);
    expect(proxy.injected["flip-request"]).toBe(2);
    await store.abortMultipart(up);
  } finally {
    await proxy.close();
  }
});

it("bytes corrupted in flight fail the GET with `integrity` (checksum kept by MinIO, re-hashed while streaming)", async () => {
  const proxy = await startFaultProxy(minio().endpoint, (r) =>
    r.kind === "get" ? "flip" : undefined,
  );
  try {
    const store = s3({ endpoint: proxy.endpoint });
    const key = `${uniquePrefix("flip")}/x.txt`;
    await store.put(key, "payload ".repeat(100), { ifNoneMatch: "*" });
    const got = await store.get(key);
    const err = await (async () => {
      for await (const _ of got.body) void _;
    })().catch((e: unknown) => e);
    expect(proxy.injected.flip).toBe(1);
    expect(err).toMatchObject({ code: "integrity" });
  } finally {
    await proxy.close();
  }
});

it("Object Lock on a lock-enabled bucket: HEAD shows mode and retain-until; the locked version cannot be deleted", async () => {
  const bucket = await freshBucket("lock", { objectLock: true });
  const store = s3({ bucket });
  const retainUntil = new Date(Math.ceil((Date.now() + 86_400_000) / 1000) * 1000);
  const key = `${uniquePrefix("lock")}/x.txt`;
  await store.put(key, "kept", {
    ifNoneMatch: "*",
    objectLock: { mode: "GOVERNANCE", retainUntil },
  });
  const head = await store.head(key);
  expect(head.objectLock).toEqual({ mode: "GOVERNANCE", retainUntil });
  const res = await store.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  const err = await store.client
    .send(new DeleteObjectCommand({ Bucket: bucket, Key: key, VersionId: res.VersionId }))
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(Error);
  expect((await store.head(key)).size).toBe(4);
});
