/** Reader on a real MinIO behind a counting proxy: what is listed, what is downloaded, order and cursor (§5.2, §5.3). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSource, openSource } from "../src/reader/index.js";
import type { LoadResult, Source } from "../src/reader/index.js";
import type { S3Store } from "../src/store/s3-store.js";
import { isStowageError } from "../src/shared/errors.js";
import { minio, uniquePrefix, minioStore } from "./support/minio.js";
import { startCountingProxy, type CountingProxy } from "./support/counting-proxy.js";
import { spreadRecords, writeV1 } from "./reader-fixtures.js";

const H = 3_600_000;
const BASE = Date.UTC(2026, 2, 2, 0, 0); // 2026-03-02T00:00Z
let proxy: CountingProxy;
let store: S3Store;
const sources: Source[] = [];

beforeAll(async () => {
  proxy = await startCountingProxy(minio().endpoint);
  store = minioStore({ endpoint: proxy.url });
});
afterAll(async () => {
  sources.forEach((s) => s.close());
  store.close();
  await proxy.close();
});

function source(prefix: string, extra: Parameters<typeof createSource>[1] = {}): Source {
  const s = createSource(store, { prefix, retryBackoffMs: 1, ...extra });
  sources.push(s);
  return s;
}

async function drain(session: {
  load(): Promise<LoadResult>;
  more(): Promise<LoadResult>;
}): Promise<{ seqs: number[]; results: LoadResult[] }> {
  const results = [await session.load()];
  while (!results[results.length - 1]!.complete && results.length < 500)
    results.push(await session.more());
  return { seqs: results.flatMap((r) => r.records.map((x) => x.seq as number)), results };
}

describe("§5.2 what is listed and downloaded", () => {
  it("§5.2 lists only the range's day folder (one page holds its hours); never the prefix root; prunes objects by key times; drops records outside [from,to)", async () => {
    const prefix = uniquePrefix("hours");
    const records = spreadRecords(BASE - H, BASE + 7 * H, 160); // 23:00 the day before … 06:59
    const written = await writeV1(store, prefix, records, 10);
    await writeV1(store, `${prefix}-sibling`, spreadRecords(BASE, BASE + 6 * H, 30), 10);
    expect(written.length).toBe(16);
    proxy.reset();

    const from = BASE + 1.5 * H;
    const to = BASE + 4.5 * H;
    const day = `${prefix}/v1/2026/03/02/`;
    // One request at a time: one LIST of the day folder, starting at the range's first hour.
    await source(prefix, { concurrency: 1 }).query({ from, to }).load();
    expect(proxy.listPrefixes()).toEqual([day]);
    expect(proxy.requests[0]!.query.get("start-after")).toBe(`${prefix}/v1/2026/03/02/01`);
    proxy.reset();
    // Default (LISTs and GETs sent ahead): the same request.
    const result = await source(prefix).query({ from, to }).load();
    expect(proxy.listPrefixes()).toEqual([day]);
    for (const r of proxy.requests)
      expect(r.path.startsWith(`/${minio().bucket}/${prefix}/`) || r.kind === "list").toBe(true);
    const wanted = written.filter((o) => o.maxMs >= from && o.minMs < to).map((o) => o.key);
    expect(proxy.getKeys(minio().bucket).sort()).toEqual([...wanted].sort());
    expect(wanted.length).toBeLessThan(written.length);
    expect(result.stats.objectsPruned).toBeGreaterThan(0);

    const inRange = records.filter(
      (r) => Date.parse(r.timestamp) >= from && Date.parse(r.timestamp) < to,
    );
    expect(result.records.map((r) => r.seq).sort((a, b) => Number(a) - Number(b))).toEqual(
      inRange.map((r) => r.seq),
    );
    // newest object first: the first record returned belongs to the newest object in the range
    const times = result.records.map((r) => Date.parse(r.timestamp));
    expect(times[0]).toBeGreaterThan(times[times.length - 1]!);
    expect(result).toMatchObject({ complete: true, partial: false, cursor: null });
    expect(result.stats).toMatchObject({
      listRequests: 1,
      getRequests: wanted.length,
      grantsUsed: 1,
      complete: true,
      stoppedBy: null,
    });
    expect(
      proxy.requests
        .filter((r) => r.kind === "get")
        .every((r) => typeof r.headers["if-match"] === "string" && r.headers["if-match"] !== ""),
    ).toBe(true);
  });

  it("§5.2 an hour is listed page by page only until its keys are older than `from`", async () => {
    const prefix = uniquePrefix("pages");
    const objs = await writeV1(store, prefix, spreadRecords(BASE, BASE + H, 100), 10); // 10 objects in one hour
    const from = BASE + 0.75 * H; // only the newest ~3 objects overlap
    proxy.reset();
    const r = await source(prefix, { listPageSize: 2 })
      .query({ from, to: BASE + H })
      .load();
    const wanted = objs.filter((o) => o.maxMs >= from);
    expect(proxy.count("list")).toBe(Math.ceil((wanted.length + 1) / 2));
    expect(proxy.count("list")).toBeLessThan(5);
    expect(r.records).toHaveLength(100 - Math.ceil(0.75 * 100));
    expect(r.complete).toBe(true);
  });

  it("§5.2 opening a source and creating a query make no request; ranges over 7 days or empty are refused", async () => {
    proxy.reset();
    const m = minio();
    const s = openSource(`s3://${m.bucket}/${uniquePrefix("open")}`, {
      endpoint: proxy.url,
      forcePathStyle: true,
      region: m.region,
      credentials: { accessKeyId: m.accessKeyId, secretAccessKey: m.secretAccessKey },
    });
    sources.push(s);
    const q = s.query({ from: BASE, to: BASE + H });
    expect(proxy.requests).toHaveLength(0);
    expect(s.description).not.toContain(m.secretAccessKey);

    const tooLong = (() => {
      try {
        s.query({ from: BASE, to: BASE + 7 * 24 * H + 1 });
      } catch (e) {
        return e;
      }
    })();
    expect(isStowageError(tooLong, "usage")).toBe(true);
    expect(String((tooLong as Error).message)).toMatch(/at most 7 days/);
    expect(() => s.query({ from: BASE + H, to: BASE + H })).toThrow(/must be before/);
    expect(() => s.query({ from: "yesterday", to: BASE })).toThrow(/not a valid time/);
    expect(() => s.query({ from: BASE, to: BASE + H, limits: { records: 0 } })).toThrow(
      /positive integer/,
    );
    expect(proxy.requests).toHaveLength(0);
    expect((await q.load()).complete).toBe(true); // an empty prefix: one LIST, nothing found
    expect(proxy.count("list")).toBe(1);
  });

  it("§5.2 an exact 7-day range over an empty prefix costs one month discovery LIST", async () => {
    const prefix = uniquePrefix("week");
    proxy.reset();
    const r = await source(prefix)
      .query({ from: BASE, to: BASE + 7 * 24 * H })
      .load();
    expect(r.complete).toBe(true);
    expect(proxy.listPrefixes()).toEqual([`${prefix}/v1/2026/03/`]);
    expect(proxy.requests[0]!.query.get("delimiter")).toBe("/");
  });

  it("a week with a few hours of data: empty days and hours cost nothing beyond discovery, newest first", async () => {
    const prefix = uniquePrefix("sparse");
    // Data on 03-03 (hours 05, 06) and 03-07 (hours 20, 21, 22); the range is 03-02 12:00 → 03-09 12:00.
    const hours = [
      BASE + 29 * H,
      BASE + 30 * H,
      BASE + 5 * 24 * H + 20 * H,
      BASE + 5 * 24 * H + 21 * H,
      BASE + 5 * 24 * H + 22 * H,
    ];
    const written = [];
    for (const h of hours)
      written.push(...(await writeV1(store, prefix, spreadRecords(h, h + H, 12), 4)));
    proxy.reset();
    const from = BASE + 12 * H;
    const r = await source(prefix, { concurrency: 1 })
      .query({ from, to: from + 7 * 24 * H })
      .load();
    expect(r.complete).toBe(true);
    expect(r.records).toHaveLength(60);
    const hourOf = r.records.map((x) => Math.floor(Date.parse(x.timestamp) / H));
    expect(hourOf).toEqual([...hourOf].sort((a, b) => b - a)); // newest hour first, across days
    // The month folder once (delimiter), then each non-empty day folder once.
    expect(proxy.listPrefixes()).toEqual([
      `${prefix}/v1/2026/03/`,
      `${prefix}/v1/2026/03/07/`,
      `${prefix}/v1/2026/03/03/`,
    ]);
    expect(proxy.getKeys(minio().bucket).sort()).toEqual(written.map((o) => o.key).sort());
  });

  it("a day cut by the page size: its later hour folders are found with one delimiter LIST, then listed newest first", async () => {
    const prefix = uniquePrefix("cut");
    await writeV1(store, prefix, spreadRecords(BASE, BASE + 6 * H, 120), 8); // 6 hours × ~3 objects
    proxy.reset();
    const r = await source(prefix, { concurrency: 1, listPageSize: 4 })
      .query({ from: BASE, to: BASE + 6 * H })
      .load();
    expect(r.complete).toBe(true);
    expect(r.records.map((x) => Number(x.seq)).sort((a, b) => a - b)).toEqual([
      ...Array(120).keys(),
    ]);
    const hourOf = r.records.map((x) => Math.floor(Date.parse(x.timestamp) / H));
    expect(hourOf).toEqual([...hourOf].sort((a, b) => b - a)); // newest hour first
    const lists = proxy.requests.filter((q) => q.kind === "list");
    expect(lists[0]!.query.get("prefix")).toBe(`${prefix}/v1/2026/03/02/`);
    expect(lists[1]!.query.get("delimiter")).toBe("/");
    const hourLists = lists.slice(2).map((q) => q.query.get("prefix"));
    expect(hourLists[0]).toBe(`${prefix}/v1/2026/03/02/05/`); // newest hour first
    expect(r.stats.listRequests).toBe(lists.length);
  });
});

describe("§5.3 load() then more() until complete", () => {
  const cases = [
    { name: "records cut mid-object, cache on", limits: { records: 37 }, cacheBytes: undefined },
    {
      name: "records cut mid-object, cache off (resume re-reads and skips lines)",
      limits: { records: 37 },
      cacheBytes: 0,
    },
    {
      name: "decoded bytes cut at an object (its lines wait for the next grant), cache off",
      limits: { decodedBytes: 2_600 },
      cacheBytes: 0,
    },
    { name: "one GET per grant", limits: { getAttempts: 1 }, cacheBytes: undefined },
    {
      name: "LIST pages of 4 keys (day cut, folder discovery), one LIST per grant",
      limits: { listAttempts: 1 },
      listPageSize: 4,
    },
    {
      name: "records cut, one request at a time (nothing sent ahead)",
      limits: { records: 37 },
      cacheBytes: 0,
      concurrency: 1,
    },
    {
      name: "LIST pages of 2 keys, one LIST per grant",
      limits: { listAttempts: 1 },
      listPageSize: 2,
    },
  ];
  let prefix: string;
  let all: number[];
  beforeAll(async () => {
    prefix = uniquePrefix("drain");
    const records = spreadRecords(BASE, BASE + 3 * H, 120);
    await writeV1(store, prefix, records, 9);
    const full = await source(prefix)
      .query({ from: BASE, to: BASE + 3 * H })
      .load();
    all = full.records.map((r) => r.seq as number);
    expect(all).toHaveLength(120);
    expect(new Set(all).size).toBe(120);
  });

  for (const c of cases) {
    it(`§5.3 every record exactly once, in the same stable order: ${c.name}`, async () => {
      const s = source(prefix, {
        ...("cacheBytes" in c && c.cacheBytes !== undefined ? { cacheBytes: c.cacheBytes } : {}),
        ...("concurrency" in c ? { concurrency: c.concurrency } : {}),
        ...("listPageSize" in c ? { listPageSize: c.listPageSize } : {}),
      });
      const { seqs, results } = await drain(
        s.query({ from: BASE, to: BASE + 3 * H, limits: { ...c.limits, maxGrants: 1000 } }),
      );
      expect(seqs).toEqual(all);
      expect(results.length).toBeGreaterThan(2);
      for (const r of results.slice(0, -1)) {
        expect(r.partial).toBe(true);
        expect(r.cursor).not.toBeNull();
        expect(r.stats.stoppedBy).toBe(Object.keys(c.limits)[0]);
      }
      expect(results[results.length - 1]!.complete).toBe(true);
    });
  }

  it("§5.2 maxGrants reached: partial, and more() then returns nothing and makes no request", async () => {
    const s = source(prefix);
    const session = s.query({
      from: BASE,
      to: BASE + 3 * H,
      limits: { records: 20, maxGrants: 3 },
    });
    const got: number[] = [];
    let last = await session.load();
    got.push(...last.records.map((r) => r.seq as number));
    for (let i = 0; i < 2; i++) {
      last = await session.more();
      got.push(...last.records.map((r) => r.seq as number));
    }
    expect(got).toEqual(all.slice(0, 60));
    expect(last).toMatchObject({ partial: true, complete: false });
    expect(last.stats).toMatchObject({ grantsUsed: 3, maxGrants: 3, stoppedBy: "records" });
    proxy.reset();
    const refused = await session.more();
    expect(refused.records).toHaveLength(0);
    expect(refused).toMatchObject({ partial: true, complete: false });
    expect(refused.stats).toMatchObject({ grantsUsed: 3, stoppedBy: "maxGrants" });
    expect(refused.notice).toMatch(/all 3 grants/);
    expect(proxy.requests).toHaveLength(0);
    // load() starts the session over from the newest hour
    const again = await session.load();
    expect(again.records.map((r) => r.seq)).toEqual(all.slice(0, 20));
    expect(again.stats.grantsUsed).toBe(1);
  });

  it("§5.2 a second identical query is served from the cache: zero GETs, zero downloaded bytes", async () => {
    const s = source(prefix);
    const first = await s.query({ from: BASE, to: BASE + 3 * H }).load();
    expect(first.stats.getRequests).toBeGreaterThan(0);
    proxy.reset();
    const second = await s.query({ from: BASE, to: BASE + 3 * H }).load();
    expect(proxy.count("get")).toBe(0);
    expect(second.stats).toMatchObject({
      getRequests: 0,
      downloadedBytes: 0,
      decodedBytes: 0,
      objectsCached: first.stats.objectsRead,
    });
    expect(second.records.map((r) => r.seq)).toEqual(first.records.map((r) => r.seq));
  });
});
