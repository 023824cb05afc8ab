/** Bad and big objects (§5.2, §8): too large, corrupt, truncated, non-JSON, foreign, changed — reported, never fatal. */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync, constants } from "node:zlib";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSource, openSource } from "../src/reader/index.js";
import type { Source } from "../src/reader/index.js";
import type { S3Store } from "../src/store/s3-store.js";
import { LocalStore } from "../src/store/local-store.js";
import { minio, uniquePrefix, minioStore } from "./support/minio.js";
import { startCountingProxy, type CountingProxy } from "./support/counting-proxy.js";
import { startFaultProxy } from "./support/fault-proxy.js";
import { putBatch, putRaw, spreadRecords, v1Key, writeV1 } from "./reader-fixtures.js";

const H = 3_600_000;
const MiB = 1024 * 1024;
const BASE = Date.UTC(2026, 6, 1, 12, 0);
let proxy: CountingProxy;
let store: S3Store;
const sources: Source[] = [];

beforeAll(async () => {
  proxy = await startCountingProxy(minio().endpoint);
  store = minioStore({ endpoint: proxy.url, requestTimeoutMs: 60_000 });
});
afterAll(async () => {
  sources.forEach((s) => s.close());
  store.close();
  await proxy.close();
});

function source(prefix: string): Source {
  const s = createSource(store, { prefix, retryBackoffMs: 1 });
  sources.push(s);
  return s;
}

/** Lines of ~120 bytes whose JSON compresses extremely well. */
function bigLines(bytes: number, t: number): string[] {
  const line = JSON.stringify({
    timestamp: new Date(t).toISOString(),
    level: "info",
    message: "x".repeat(60),
  });
  return Array.from({ length: Math.ceil(bytes / (line.length + 1)) }, () => line);
}

describe("§5.2 per-object caps: 25 MiB compressed, 25 MiB decoded", () => {
  it("§5.2 an object over 25 MiB compressed is reported and never downloaded; the rest loads", async () => {
    const prefix = uniquePrefix("huge");
    const ok = await writeV1(store, prefix, spreadRecords(BASE, BASE + H, 30), 10);
    // incompressible: gzip of random bytes is larger than its input
    const body = gzipSync(randomBytes(25 * MiB + 64 * 1024), { level: constants.Z_NO_COMPRESSION });
    expect(body.length).toBeGreaterThan(25 * MiB);
    const key = v1Key(prefix, BASE + 10, BASE + 20);
    await putRaw(store, key, body, {
      minMs: BASE + 10,
      maxMs: BASE + 20,
      records: 1,
      decodedBytes: body.length,
    });
    proxy.reset();
    const r = await source(prefix)
      .query({ from: BASE, to: BASE + H })
      .load();
    expect(r.complete).toBe(true);
    expect(r.records).toHaveLength(30);
    expect(r.skipped).toEqual([
      expect.objectContaining({
        key,
        reason: "too-large",
        detail: expect.stringMatching(/per-object cap/),
      }),
    ]);
    expect(r.stats.objectsSkipped).toBe(1);
    expect(proxy.getKeys(minio().bucket)).not.toContain(key);
    expect(proxy.count("get")).toBe(ok.length);
  });

  it("§5.2 an object over 25 MiB decoded is reported, not loaded: by its metadata, and by the streamed cap when the metadata lies", async () => {
    const prefix = uniquePrefix("bomb");
    await writeV1(store, prefix, spreadRecords(BASE, BASE + H, 20), 10);
    const lines = bigLines(26 * MiB, BASE + 1000);
    const honest = await putBatch(store, prefix, lines);
    expect(honest.size).toBeLessThan(MiB);
    const raw = Buffer.from(lines.join("\n") + "\n");
    const lyingKey = v1Key(prefix, BASE + 1000, BASE + 1000);
    await putRaw(store, lyingKey, gzipSync(raw), {
      minMs: BASE + 1000,
      maxMs: BASE + 1000,
      records: 3,
      decodedBytes: 300,
    });
    const session = source(prefix).query({
      from: BASE,
      to: BASE + H,
      limits: { records: 1_000_000 },
    });
    const results = [await session.load()];
    while (!results[results.length - 1]!.complete) results.push(await session.more());
    const records = results.flatMap((r) => r.records);
    expect(records).toHaveLength(20);
    expect(records.every((x) => typeof x.seq === "number")).toBe(true); // nothing of the oversized objects leaked
    const big = results
      .flatMap((r) => r.skipped)
      .filter((s) => s.reason === "too-large")
      .map((s) => s.key)
      .sort();
    expect(big).toEqual([honest.key, lyingKey].sort());
    for (const r of results.slice(0, -1)) expect(r.stats.stoppedBy).toBe("decodedBytes");
    expect(results[0]!.stats.decodedBytes).toBeLessThanOrEqual(25 * MiB);
  });
});

describe("§8 corrupt and foreign objects are reported, never fatal", () => {
  it("§8 corrupt gzip, truncated gzip, non-JSON lines and foreign keys are reported; every good record still loads", async () => {
    const prefix = uniquePrefix("bad");
    const good = await writeV1(store, prefix, spreadRecords(BASE, BASE + H, 40), 10);
    const t = BASE + 30 * 60_000;
    const corruptKey = v1Key(prefix, t, t + 1);
    await putRaw(store, corruptKey, randomBytes(2048), {
      minMs: t,
      maxMs: t + 1,
      records: 5,
      decodedBytes: 500,
    });
    const fullLines = spreadRecords(t, t + 60_000, 50).map((r) =>
      JSON.stringify({ ...r, seq: 1000 + (r.seq as number) }),
    );
    const gz = gzipSync(Buffer.from(fullLines.join("\n") + "\n"));
    const truncKey = v1Key(prefix, t, t + 60_000);
    await putRaw(store, truncKey, gz.subarray(0, Math.floor(gz.length * 0.6)), {
      minMs: t,
      maxMs: t + 60_000,
      records: 50,
      decodedBytes: 9999,
    });
    const mixed = await putBatch(
      store,
      prefix,
      [
        JSON.stringify({
          timestamp: new Date(t).toISOString(),
          level: "info",
          message: "ok",
          seq: 5000,
        }),
        "not json {",
        "[1,2]",
        '{"no":"timestamp"}',
      ],
      { minMs: t, maxMs: t },
    );
    await store.put(`${prefix}/v1/2026/07/01/12/README.txt`, "hello");
    await store.put(`${prefix}/v1/2026/07/01/12/9999-not-a-batch.ndjson.gz`, "x");

    const r = await source(prefix)
      .query({ from: BASE, to: BASE + H })
      .load();
    expect(r.complete).toBe(true);
    const reasons = Object.fromEntries(r.skipped.map((s) => [s.key, s.reason]));
    expect(reasons[corruptKey]).toBe("corrupt-gzip");
    expect(reasons[truncKey]).toBe("truncated");
    expect(reasons[mixed.key]).toBe("not-json");
    expect(r.skipped.find((s) => s.key === mixed.key)?.lines).toBe(3);
    expect(reasons[`${prefix}/v1/2026/07/01/12/README.txt`]).toBe("foreign-format");
    expect(reasons[`${prefix}/v1/2026/07/01/12/9999-not-a-batch.ndjson.gz`]).toBe("foreign-format");
    const seqs = r.records.map((x) => x.seq as number);
    for (let i = 0; i < 40; i++) expect(seqs).toContain(i);
    expect(seqs).toContain(5000);
    const recovered = seqs.filter((s) => s >= 1000 && s < 2000);
    expect(recovered.length).toBeGreaterThan(0); // complete lines before the cut are kept
    expect(recovered.length).toBeLessThan(50);
    expect(good.length).toBe(4);
  });

  it("§5.2 GETs use If-Match with the listed ETag: an object replaced after listing is reported as changed", async () => {
    const prefix = uniquePrefix("changed");
    const objs = await writeV1(store, prefix, spreadRecords(BASE, BASE + H, 20), 10);
    const session = source(prefix).query({ from: BASE, to: BASE + H, limits: { getAttempts: 1 } });
    const first = await session.load();
    expect(first.stats.stoppedBy).toBe("getAttempts");
    const pending = first.cursor!.key!;
    expect(objs.map((o) => o.key)).toContain(pending);
    await store.put(
      pending,
      gzipSync(
        Buffer.from(
          '{"timestamp":"2026-07-01T12:00:00.000Z","level":"info","message":"replaced"}\n',
        ),
      ),
    );
    const second = await session.more();
    expect(second.skipped).toEqual([expect.objectContaining({ key: pending, reason: "changed" })]);
    expect(second.records).toHaveLength(0);
    expect(second.complete).toBe(true);
  });
});

describe("§5.1 file:// sources (local-directory store)", () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "stowage-reader-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("§5.1 file:///dir/prefix reads the same layout as S3, with the cache and the stats", async () => {
    const local = new LocalStore({ root: dir });
    await writeV1(local, "app", spreadRecords(BASE, BASE + 2 * H, 50), 10);
    await writeV1(local, "other", spreadRecords(BASE, BASE + 2 * H, 7), 10);
    const s = openSource(pathToFileURL(join(dir, "app")).href);
    sources.push(s);
    expect(s.description).toBe(`file://${join(dir, "app")}`);
    const first = await s.query({ from: BASE, to: BASE + 2 * H }).load();
    expect(first.records).toHaveLength(50);
    expect(first.stats).toMatchObject({ listRequests: 1, getRequests: 6, complete: true }); // one LIST of the day folder; 25 per hour → 3 objects per hour
    const second = await s.query({ from: BASE, to: BASE + 2 * H }).load();
    expect(second.stats).toMatchObject({ getRequests: 0, objectsCached: 6 });
    const bare = openSource(join(dir, "app"));
    sources.push(bare);
    expect((await bare.query({ from: BASE, to: BASE + 2 * H }).load()).records).toHaveLength(50);
    expect(() => openSource("ftp://x/y")).toThrow(/not supported/);
  });
});

describe("integrity: bytes that differ from the stored SHA-256", () => {
  it("an object altered in flight is reported corrupt (`checksum`) and gives no records", async () => {
    const prefix = uniquePrefix("checksum");
    const written = await writeV1(store, prefix, spreadRecords(BASE, BASE + 50 * 60_000, 40), 20);
    expect(written).toHaveLength(2);
    const victim = written[0]!.key;
    const flip = await startFaultProxy(minio().endpoint, (r) =>
      r.kind === "get" && r.path.endsWith(victim) ? "flip" : undefined,
    );
    const flipped = minioStore({ endpoint: flip.endpoint });
    const s = createSource(flipped, { prefix, retryBackoffMs: 1 });
    try {
      const r = await s.query({ from: BASE, to: BASE + H - 1 }).load();
      expect(flip.injected.flip).toBeGreaterThanOrEqual(1);
      expect(r.records).toHaveLength(20);
      expect(r.skipped).toEqual([expect.objectContaining({ key: victim, reason: "checksum" })]);
      expect(r.skipped[0]!.detail).toMatch(/stored SHA-256 checksum/);
    } finally {
      s.close();
      flipped.close();
      await flip.close();
    }
  });
});

it("an object overwritten outside Stowage (other bytes, same metadata, no checksum) is reported corrupt", async () => {
  const prefix = uniquePrefix("overwritten");
  const written = await writeV1(store, prefix, spreadRecords(BASE, BASE + 50 * 60_000, 40), 20);
  const victim = written[1]!;
  const head = await store.head(victim.key);
  await store.client.send(
    new PutObjectCommand({
      Bucket: minio().bucket,
      Key: victim.key,
      Body: gzipSync(
        `{"timestamp":"${new Date(victim.minMs).toISOString()}","message":"forged"}\n`,
      ),
      Metadata: head.metadata,
      ContentEncoding: "gzip",
    }),
  );
  const r = await source(prefix)
    .query({ from: BASE, to: BASE + H - 1 })
    .load();
  expect(r.records).toHaveLength(20);
  expect(r.records.some((x) => x.message === "forged")).toBe(false);
  expect(r.skipped).toEqual([expect.objectContaining({ key: victim.key, reason: "checksum" })]);
  expect(r.skipped[0]!.detail).toMatch(/holds 1 lines, its records metadata says 20/);
});
