import { mkdtempSync } from "node:fs";
import { readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { LocalStore } from "./local-store.js";
import { runObjectStoreContract } from "./object-store.contract.js";

const root = mkdtempSync(join(tmpdir(), "stowage-local-"));
let n = 0;
runObjectStoreContract("LocalStore", async () => ({
  store: new LocalStore({ root }),
  prefix: `p${n++}`,
}));

it("§3.4 local store: objects are plain files at their key; sidecars and temp files are hidden from listing", async () => {
  const r = mkdtempSync(join(tmpdir(), "stowage-local-"));
  const store = new LocalStore({ root: r });
  await store.put("v1/2026/01/01/00/x.ndjson.gz", "data", {
    ifNoneMatch: "*",
    metadata: { records: "1" },
  });
  expect(await readdir(join(r, "v1/2026/01/01/00"))).toEqual(
    [".x.ndjson.gz.stowage-meta", "x.ndjson.gz"].sort(),
  );
  expect((await store.list()).entries.map((e) => e.key)).toEqual(["v1/2026/01/01/00/x.ndjson.gz"]);
  await expect(store.put("../escape", "x")).rejects.toThrow(/invalid object key/);
});

it("§3.4 local store: concurrent exclusive creates of one key — exactly one wins", async () => {
  const store = new LocalStore({ root: mkdtempSync(join(tmpdir(), "stowage-local-")) });
  const results = await Promise.allSettled(
    Array.from({ length: 20 }, (_, i) => store.put("k", `v${i}`, { ifNoneMatch: "*" })),
  );
  expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
});

it("§3.4 local store: deleting the last key of a folder removes the empty folders (like S3 prefixes)", async () => {
  const r = mkdtempSync(join(tmpdir(), "stowage-local-"));
  const store = new LocalStore({ root: r });
  await store.put("a/b/c/one", "1");
  await store.put("a/two", "2");
  await store.delete("a/b/c/one");
  expect(await readdir(join(r, "a"))).toEqual([".two.stowage-meta", "two"]);
  await store.delete("a/two");
  expect((await readdir(r)).filter((n) => n !== ".stowage-tmp")).toEqual([]);
  // Puts and deletes racing in one folder never lose a put.
  await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      i % 2
        ? store.put(`x/y/k${i}`, "v", { ifNoneMatch: "*" })
        : store.put(`x/y/d${i}`, "v").then(() => store.delete(`x/y/d${i}`)),
    ),
  );
  const keys = (await store.list({ prefix: "x/" })).entries.map((e) => e.key);
  expect(keys).toHaveLength(20);
  expect(keys.every((k) => /^x\/y\/k\d+$/.test(k))).toBe(true);
});

it("bytes altered on disk after the write fail the GET with `integrity`", async () => {
  const root = mkdtempSync(join(tmpdir(), "stowage-local-sum-"));
  const store = new LocalStore({ root });
  await store.put("a/b.txt", "original bytes", { ifNoneMatch: "*" });
  await writeFile(join(root, "a", "b.txt"), "0riginal bytes");
  const got = await store.get("a/b.txt");
  const err = await (async () => {
    for await (const _ of got.body) void _;
  })().catch((e: unknown) => e);
  expect(err).toMatchObject({ code: "integrity" });
});

it("an object locked until a future date cannot be deleted; the lock shows on HEAD", async () => {
  const store = new LocalStore({ root: mkdtempSync(join(tmpdir(), "stowage-local-lock-")) });
  const retainUntil = new Date(Date.now() + 86_400_000);
  await store.put("l/x.txt", "kept", { objectLock: { mode: "COMPLIANCE", retainUntil } });
  expect((await store.head("l/x.txt")).objectLock).toEqual({ mode: "COMPLIANCE", retainUntil });
  await expect(store.delete("l/x.txt")).rejects.toThrow(/locked \(COMPLIANCE\)/);
  expect((await store.head("l/x.txt")).size).toBe(4);
});

it("§3.4 local store: a multipart object completed by another process has the same ETag and checksum", async () => {
  const r = mkdtempSync(join(tmpdir(), "stowage-local-"));
  const parts = [Buffer.alloc(5 * 1024 * 1024, 1), Buffer.from("tail ✓")];
  const upload = async (store: LocalStore, key: string) => {
    const u = await store.startMultipart(key);
    const etags = [];
    for (const [i, body] of parts.entries())
      etags.push({ partNumber: i + 1, etag: (await store.uploadPart(u, i + 1, body)).etag });
    return { u, etags };
  };
  // The digests this process took while writing the parts …
  const one = new LocalStore({ root: r });
  const a = await upload(one, "a.bin");
  const doneA = await one.completeMultipart(a.u, a.etags);
  // … and those taken from the part files by a store that did not write them.
  const b = await upload(one, "b.bin");
  const doneB = await new LocalStore({ root: r }).completeMultipart(b.u, b.etags);
  expect(doneB.etag).toBe(doneA.etag);
  const [ha, hb] = [await one.head("a.bin"), await one.head("b.bin")];
  expect(hb.checksumSha256).toBe(ha.checksumSha256);
  expect(ha.checksumSha256).toMatch(/-2$/);
  expect(ha.size).toBe(parts[0]!.length + parts[1]!.length);
});
