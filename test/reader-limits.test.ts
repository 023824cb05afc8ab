/** Grants on a real MinIO behind a counting, fault-injecting proxy: each allowance alone, and retries counted (§5.2). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSource } from "../src/reader/index.js";
import type { GrantLimits, LimitName, Source } from "../src/reader/index.js";
import type { S3Store } from "../src/store/s3-store.js";
import { minio, uniquePrefix, minioStore } from "./support/minio.js";
import { startCountingProxy, type CountingProxy } from "./support/counting-proxy.js";
import { spreadRecords, writeV1, type WrittenObject } from "./reader-fixtures.js";

const H = 3_600_000;
const BASE = Date.UTC(2026, 4, 10, 0, 0);
const RANGE = { from: BASE, to: BASE + 4 * H };
let proxy: CountingProxy;
let store: S3Store;
let prefix: string;
let objects: WrittenObject[];
const sources: Source[] = [];

beforeAll(async () => {
  proxy = await startCountingProxy(minio().endpoint);
  store = minioStore({ endpoint: proxy.url });
  prefix = uniquePrefix("limits");
  objects = await writeV1(store, prefix, spreadRecords(RANGE.from, RANGE.to, 200), 10); // 20 objects, 5 per hour
});
afterAll(async () => {
  sources.forEach((s) => s.close());
  store.close();
  await proxy.close();
});

function source(listPageSize?: number): Source {
  const s = createSource(store, {
    prefix,
    retryBackoffMs: 1,
    ...(listPageSize ? { listPageSize } : {}),
  });
  sources.push(s);
  return s;
}

describe("§5.2 each allowance, alone, stops a grant at its limit and marks it partial", () => {
  const objectSize = () => Math.max(...objects.map((o) => o.size));
  const cases: {
    limit: Exclude<LimitName, "maxGrants">;
    value: () => number;
    stat: "records" | "decodedBytes" | "downloadedBytes" | "getRequests" | "listRequests";
    exact: boolean;
    /** Keys per LIST page (the 4 hours of one day fit one page at the default 1000). */
    pageSize?: number;
  }[] = [
    { limit: "records", value: () => 25, stat: "records", exact: true },
    { limit: "decodedBytes", value: () => 4_000, stat: "decodedBytes", exact: false },
    {
      limit: "downloadBytes",
      value: () => Math.floor(objectSize() * 2.5),
      stat: "downloadedBytes",
      exact: false,
    },
    { limit: "getAttempts", value: () => 3, stat: "getRequests", exact: true },
    { limit: "listAttempts", value: () => 2, stat: "listRequests", exact: true, pageSize: 3 },
  ];
  for (const c of cases) {
    it(`§5.2 ${c.limit} alone stops the grant (partial, stoppedBy ${c.limit}, never over the allowance)`, async () => {
      proxy.reset();
      const limit = c.value();
      const r = await source(c.pageSize)
        .query({ ...RANGE, limits: { [c.limit]: limit } as Partial<GrantLimits> })
        .load();
      expect(r).toMatchObject({ partial: true, complete: false });
      expect(r.stats.stoppedBy).toBe(c.limit);
      expect(r.stats[c.stat]).toBeLessThanOrEqual(limit);
      if (c.exact) expect(r.stats[c.stat]).toBe(limit);
      else expect(r.stats[c.stat]).toBeGreaterThan(limit / 2);
      expect(r.cursor).not.toBeNull();
      // The proxy agrees with the counters: attempts are real requests.
      expect(proxy.count("list")).toBe(r.stats.listRequests);
      expect(proxy.count("get")).toBe(r.stats.getRequests);
      // the other allowances were not the limit
      const full = await source().query(RANGE).load();
      expect(full.complete).toBe(true);
      expect(r.records.length).toBeLessThan(full.records.length);
    });
  }
});

describe("§5.2 retries count against the LIST and GET allowances", () => {
  it("§5.2 503 SlowDown and a reset on LIST are retried and counted as LIST attempts", async () => {
    proxy.reset();
    proxy.addFault({ kind: "list", fault: "slowdown", times: 2 });
    proxy.addFault({ kind: "list", fault: "reset", times: 1 });
    const r = await source().query(RANGE).load();
    expect(r.complete).toBe(true);
    expect(r.records).toHaveLength(200);
    expect(r.stats.listRequests).toBe(1 + 3); // the day's one flat LIST + 3 retries
    expect(r.stats.retries).toBe(3);
    expect(proxy.count("list")).toBe(4);
  });

  it("§5.2 500s and a body cut mid-stream on GET are retried, counted as GET attempts, and no record is duplicated", async () => {
    proxy.reset();
    proxy.addFault({ kind: "get", fault: "internal", times: 2 });
    proxy.addFault({ kind: "get", fault: "cut-body", times: 1 });
    const r = await source().query(RANGE).load();
    expect(r.complete).toBe(true);
    const seqs = r.records.map((x) => x.seq);
    expect(new Set(seqs).size).toBe(200);
    expect(seqs).toHaveLength(200);
    expect(r.stats.getRequests).toBe(objects.length + 3);
    expect(proxy.count("get")).toBe(objects.length + 3);
  });

  it("§5.2 retries that exhaust the allowance stop the grant: partial, stoppedBy the attempts, the last error reported", async () => {
    proxy.reset();
    proxy.addFault({ kind: "list", fault: "slowdown", times: 10 });
    const r = await source()
      .query({ ...RANGE, limits: { listAttempts: 3 } })
      .load();
    expect(r).toMatchObject({ partial: true, records: [] });
    expect(r.stats).toMatchObject({ listRequests: 3, stoppedBy: "listAttempts" });
    expect(r.lastError).toMatch(/SlowDown/);

    proxy.reset();
    proxy.addFault({ kind: "get", fault: "internal", times: 10 });
    const g = await source()
      .query({ ...RANGE, limits: { getAttempts: 4 } })
      .load();
    expect(g.stats).toMatchObject({ getRequests: 4, stoppedBy: "getAttempts", partial: true });
    expect(g.records).toHaveLength(0);
    expect(g.lastError).toMatch(/InternalError/);
  });

  it("§5.2 a permanent error (wrong secret) fails the load with a specific message and a doctor hint, without the secret", async () => {
    const bad = minioStore({
      endpoint: proxy.url,
      credentials: { accessKeyId: minio().accessKeyId, secretAccessKey: "not-the-secret-123" },
    });
    const s = createSource(bad, { prefix });
    const err = (await s
      .query(RANGE)
      .load()
      .then(
        () => new Error("loaded"),
        (e: unknown) => e,
      )) as Error & { hint?: string; code?: string };
    bad.close();
    expect(err).toMatchObject({ code: "storage" });
    expect(err.message).toMatch(/access denied/);
    expect(err.hint).toMatch(/stowage doctor/);
    expect(err.message).not.toContain("not-the-secret-123");
  });

  it("§5.2 an AbortSignal stops a load in flight (StowageError aborted); the session can load again", async () => {
    proxy.reset();
    proxy.setDelay(300);
    const ac = new AbortController();
    const session = source().query({ ...RANGE, signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    await expect(session.load()).rejects.toMatchObject({ code: "aborted" });
    proxy.setDelay(0);
    const pre = new AbortController();
    pre.abort();
    await expect(
      source()
        .query({ ...RANGE, signal: pre.signal })
        .load(),
    ).rejects.toMatchObject({ code: "aborted" });
  });
});

describe("§5.2 a GET sent ahead is never paid twice", () => {
  const cases: { limit: "records" | "decodedBytes"; value: number }[] = [
    { limit: "records", value: 25 },
    { limit: "decodedBytes", value: 4_000 },
  ];
  for (const c of cases)
    it(`§5.2 load() then more() under a small ${c.limit} allowance GETs each object once, every record once`, async () => {
      proxy.reset();
      const session = source().query({ ...RANGE, limits: { [c.limit]: c.value, maxGrants: 20 } });
      const seqs: number[] = [];
      let r = await session.load();
      for (const rec of r.records) seqs.push(rec.seq as number);
      let grants = 1;
      while (!r.complete) {
        expect(r.stats.stoppedBy).toBe(c.limit);
        expect(r.stats[c.limit]).toBeLessThanOrEqual(c.value * grants);
        r = await session.more();
        grants++;
        for (const rec of r.records) seqs.push(rec.seq as number);
      }
      expect(grants).toBeGreaterThan(5); // the allowance, not the data, ended most grants
      expect(seqs.length).toBe(200);
      expect(new Set(seqs).size).toBe(200);
      // GETs sent ahead of a grant's stop are finished into the cache, never sent again.
      expect(new Set(proxy.getKeys(minio().bucket)).size).toBe(objects.length);
      expect(r.stats.getRequests).toBe(proxy.count("get"));
      if (c.limit === "records") expect(proxy.count("get")).toBe(objects.length);
      // The object the decoded allowance cuts is decoded again, whole, by the next grant
      // (its lines are never split), and the first grant sends ahead before it knows the
      // decoded ratio: at most one repeat per grant (was 54 GETs for 20 objects).
      else expect(proxy.count("get")).toBeLessThanOrEqual(objects.length + grants);
    });
});
