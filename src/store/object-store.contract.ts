/**
 * The ObjectStore contract suite (DESIGN.md "Contract suites"): every store
 * implementation runs these same tests against itself — LocalStore on a temp
 * directory, S3Store on a real MinIO.
 */
import { describe, expect, it } from "vitest";
import { isStowageError } from "../shared/errors.js";
import { classifyError } from "./classify-error.js";
import type { ObjectStore } from "./object-store.js";
import { compositeChecksum, sha256Base64 } from "./checksum.js";

async function readAll(body: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

async function expectCode(p: Promise<unknown>, code: string): Promise<unknown> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `expected a StowageError("${code}")`).toBeDefined();
  expect(isStowageError(err) ? err.code : err).toBe(code);
  return err;
}

/** Runs the contract against a store; `make` returns a store and a unique key prefix. */
export function runObjectStoreContract(
  name: string,
  make: () => Promise<{ store: ObjectStore; prefix: string }>,
): void {
  describe(`ObjectStore contract: ${name}`, () => {
    it("integrity: every put sends its SHA-256, the store keeps it, GET re-hashes the bytes", async () => {
      const { store, prefix } = await make();
      const key = `${prefix}/sum.txt`;
      await store.put(key, "checked bytes\n", { ifNoneMatch: "*" });
      const head = await store.head(key);
      expect(head.checksumSha256).toBe(sha256Base64("checked bytes\n"));
      const got = await store.get(key);
      expect(got.checksumSha256).toBe(head.checksumSha256);
      expect((await readAll(got.body)).toString()).toBe("checked bytes\n");
    });

    it("§3.4 exclusive create: a second put with If-None-Match:* is `exists` and leaves the first", async () => {
      const { store, prefix } = await make();
      const key = `${prefix}/a.txt`;
      await store.put(key, "first", { ifNoneMatch: "*" });
      const err = await expectCode(store.put(key, "second", { ifNoneMatch: "*" }), "exists");
      expect(classifyError(err).kind).toBe("exists");
      const got = await store.get(key);
      expect((await readAll(got.body)).toString()).toBe("first");
    });

    it("§2.4 GET with a wrong If-Match is a precondition failure (412); the right one returns the body", async () => {
      const { store, prefix } = await make();
      const key = `${prefix}/m.txt`;
      const { etag } = await store.put(key, "hello");
      expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
      await expectCode(
        store.get(key, { ifMatch: '"0123456789abcdef0123456789abcdef"' }),
        "precondition",
      );
      const got = await store.get(key, { ifMatch: etag });
      expect((await readAll(got.body)).toString()).toBe("hello");
      expect(got.etag).toBe(etag);
    });

    it("§3.4 metadata, content type and encoding round-trip through put/head/get", async () => {
      const { store, prefix } = await make();
      const key = `${prefix}/meta.ndjson.gz`;
      const meta = { "stowage-format": "1", "min-ms": "0000000000001", records: "42" };
      await store.put(key, new Uint8Array([1, 2, 3, 4]), {
        ifNoneMatch: "*",
        contentType: "application/x-ndjson",
        contentEncoding: "gzip",
        metadata: meta,
      });
      const head = await store.head(key);
      expect(head.size).toBe(4);
      expect(head.metadata).toMatchObject(meta);
      expect(head.contentType).toBe("application/x-ndjson");
      expect(head.contentEncoding).toBe("gzip");
      const got = await store.get(key);
      expect([...(await readAll(got.body))]).toEqual([1, 2, 3, 4]);
      expect(got.metadata).toMatchObject(meta);
    });

    it("§2.4 list is lexicographic and paginates with continuation tokens and start-after", async () => {
      const { store, prefix } = await make();
      const names = ["b", "a-c", "a/b", "a/a", "c", "B", "a.z", "a0", "é", "z/z/z"];
      for (const n of names) await store.put(`${prefix}/${n}`, n);
      const expected = names
        .map((n) => `${prefix}/${n}`)
        .sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      const seen: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const page = await store.list({
          prefix: `${prefix}/`,
          maxKeys: 3,
          continuationToken: token,
        });
        expect(page.entries.length).toBeLessThanOrEqual(3);
        seen.push(...page.entries.map((e) => e.key));
        token = page.nextContinuationToken;
        pages++;
      } while (token);
      expect(seen).toEqual(expected);
      expect(pages).toBe(4);
      const after = await store.list({ prefix: `${prefix}/`, startAfter: expected[4]! });
      expect(after.entries.map((e) => e.key)).toEqual(expected.slice(5));
      const partial = await store.list({ prefix: `${prefix}/a` });
      expect(partial.entries.map((e) => e.key)).toEqual(
        expected.filter((k) => k.startsWith(`${prefix}/a`)),
      );
      expect(partial.entries.every((e) => e.size > 0 && e.etag.length > 0)).toBe(true);
    });

    it('§2.4 list with delimiter "/" rolls keys up into folders', async () => {
      const { store, prefix } = await make();
      for (const n of ["d/01/a", "d/01/b", "d/07/a", "d/x", "d/23/z/y"])
        await store.put(`${prefix}/${n}`, n);
      const page = await store.list({ prefix: `${prefix}/d/`, delimiter: "/" });
      expect(page.commonPrefixes).toEqual([
        `${prefix}/d/01/`,
        `${prefix}/d/07/`,
        `${prefix}/d/23/`,
      ]);
      expect(page.entries.map((e) => e.key)).toEqual([`${prefix}/d/x`]);
      const later = await store.list({
        prefix: `${prefix}/d/`,
        delimiter: "/",
        startAfter: `${prefix}/d/010`,
      });
      expect(later.commonPrefixes).toEqual([`${prefix}/d/07/`, `${prefix}/d/23/`]);
    });

    it("listVersions: one current version per key without versioning, in key order, paginated from start-after", async () => {
      const { store, prefix } = await make();
      const names = ["v/b", "v/a/2", "v/a/1", "v/c", "v/é", "w"];
      for (const n of names) await store.put(`${prefix}/${n}`, n);
      const expected = names
        .filter((n) => n.startsWith("v/"))
        .map((n) => `${prefix}/${n}`)
        .sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      const seen: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const page = await store.listVersions({
          prefix: `${prefix}/v/`,
          maxKeys: 2,
          continuationToken: token,
        });
        expect(page.versions.length).toBeLessThanOrEqual(2);
        for (const v of page.versions) {
          expect(v).toMatchObject({ versionId: "null", isLatest: true, deleteMarker: false });
          expect(v.size).toBe(Buffer.byteLength(v.key.slice(prefix.length + 1)));
          expect(v.lastModified).toBeInstanceOf(Date);
        }
        seen.push(...page.versions.map((v) => v.key));
        token = page.nextContinuationToken;
        pages++;
      } while (token);
      expect(seen).toEqual(expected);
      expect(pages).toBe(3);
      const after = await store.listVersions({ prefix: `${prefix}/`, startAfter: expected[2]! });
      expect(after.versions.map((v) => v.key)).toEqual([...expected.slice(3), `${prefix}/w`]);
      const ac = new AbortController();
      ac.abort();
      await expectCode(store.listVersions({ prefix, signal: ac.signal }), "aborted");
    });

    it("missing keys: get/head are `not-found`, delete succeeds, a deleted key is gone", async () => {
      const { store, prefix } = await make();
      await expectCode(store.get(`${prefix}/nope`), "not-found");
      await expectCode(store.head(`${prefix}/nope`), "not-found");
      await store.delete(`${prefix}/nope`);
      await store.put(`${prefix}/x`, "x");
      await store.delete(`${prefix}/x`);
      await expectCode(store.head(`${prefix}/x`), "not-found");
      expect((await store.list({ prefix: `${prefix}/` })).entries).toEqual([]);
    });

    it("an aborted signal stops every call with `aborted`", async () => {
      const { store, prefix } = await make();
      const ac = new AbortController();
      ac.abort();
      const signal = ac.signal;
      await expectCode(store.put(`${prefix}/ab`, "x", { signal }), "aborted");
      await expectCode(store.get(`${prefix}/ab`, { signal }), "aborted");
      await expectCode(store.head(`${prefix}/ab`, { signal }), "aborted");
      await expectCode(store.list({ prefix, signal }), "aborted");
      await expectCode(store.delete(`${prefix}/ab`, { signal }), "aborted");
      await expectCode(store.head(`${prefix}/ab`), "not-found");
    });

    it("multipart: parts complete into one object; abort and list uploads", async () => {
      const { store, prefix } = await make();
      const key = `${prefix}/big.bin`;
      const part1 = Buffer.alloc(5 * 1024 * 1024, 7);
      const part2 = Buffer.from("tail");
      const up = await store.startMultipart(key, { contentType: "application/octet-stream" });
      expect((await store.listMultipartUploads(`${prefix}/`)).map((u) => u.uploadId)).toContain(
        up.uploadId,
      );
      const e1 = await store.uploadPart(up, 1, part1);
      const e2 = await store.uploadPart(up, 2, part2);
      await store.completeMultipart(up, [
        { partNumber: 1, ...e1 },
        { partNumber: 2, ...e2 },
      ]);
      const got = await store.get(key);
      const body = await readAll(got.body);
      expect(body.length).toBe(part1.length + part2.length);
      // Integrity: each part sent with its SHA-256; the object keeps the composite.
      expect(got.checksumSha256).toBe(
        compositeChecksum([sha256Base64(part1), sha256Base64(part2)]),
      );
      expect(body.subarray(-4).toString()).toBe("tail");
      const up2 = await store.startMultipart(`${prefix}/aborted.bin`);
      await store.uploadPart(up2, 1, part2);
      await store.abortMultipart(up2);
      expect(await store.listMultipartUploads(`${prefix}/`)).toEqual([]);
      await expectCode(store.head(`${prefix}/aborted.bin`), "not-found");
    });
  });
}
