/**
 * Reader benchmark (SPEC §5.2): load 20,000 records from a 7-day range
 * of objects written by the real logger to a real MinIO, with the bounded reader
 * vs a naive reader that lists the whole prefix and downloads every object.
 * Requests are counted by a proxy in front of MinIO; both sides keep up to 4
 * requests in flight (the reader's default `concurrency`). Printed: time, LIST/GET requests,
 * bytes downloaded vs bytes the answer needed, and naive/reader ratios.
 * Scenario A: the bucket holds only the 7 days. Scenario B: plus 21 older days.
 * A' and B' add a fixed delay to every request at the proxy (default 20 ms), as a
 * far region would: request counts then dominate the time.
 * Week figures: a 7-day `load()` at default allowances over (W1) the
 * demo workload (last 6 hours), (W2) one object per hour for the last 6 hours, and
 * (W3) ~5 objects in each of the 168 hours; LISTs against the bound 1.1 × non-empty
 * hours + 8 and against an hour-by-hour listing measured in the same run.
 * Usage: node --import jiti/register bench/reader.ts [--runs 3] [--latency-ms 20] [--week-only]
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createGunzip } from "node:zlib";
import { createLogger } from "../src/index.js";
import { openSource, type LoadResult } from "../src/reader/index.js";
import { hourPrefix, parseObjectKey } from "../src/v1-format/object-key.js";
import { demoRecords } from "../src/demo/workload.js";
import { spreadRecords, writeV1, type FixtureRecord } from "../test/reader-fixtures.js";
import {
  minioS3Destination,
  minioStoreOf,
  startMinio,
  type RunningMinio,
} from "../test/support/minio-server.js";
import { startCountingProxy, type CountingProxy } from "../test/support/counting-proxy.js";

const H = 3_600_000;
const DAY = 24 * H;
const END = Date.UTC(2026, 10, 30); // the range is [END - 7 days, END)
const WANT = 20_000;
// parseArgs reads the command line itself (process.argv is reserved to src/cli/ by lint).
const { values: args } = parseArgs({
  options: {
    runs: { type: "string" },
    "latency-ms": { type: "string" },
    "week-only": { type: "boolean" },
  },
  strict: false,
});
const RUNS = Number(args.runs ?? 3);
const MiB = 1024 * 1024;
const CONCURRENCY = 4;
const LATENCY_MS = Number(args["latency-ms"] ?? 20);

/** Records in one hour: a diurnal curve (quiet nights, busy afternoons), ~140 on average. */
const perHour = (hourMs: number) =>
  Math.round(
    80 +
      120 * Math.max(0, Math.sin(((new Date(hourMs).getUTCHours() - 6) / 24) * 2 * Math.PI)) +
      ((hourMs / H) % 7) * 6,
  );

async function writeDays(
  m: RunningMinio,
  prefix: string,
  fromMs: number,
  toMs: number,
): Promise<{ records: number; objects: number }> {
  const log = createLogger({
    console: false,
    service: "checkout",
    level: "trace",
    destination: "s3",
    s3: {
      ...minioS3Destination(m, prefix),
      delivery: {
        maxBatchRecords: 120,
        flushIntervalMs: 600_000,
        maxQueueBytes: "128MiB",
        concurrency: 4,
      },
    },
  });
  let n = 0;
  for (let h = fromMs; h < toMs; h += H) {
    const count = perHour(h);
    for (let i = 0; i < count; i++, n++) {
      const levels = ["info", "info", "info", "debug", "warning", "error"];
      await log.write({
        timestamp: new Date(h + Math.floor((i * H) / count)).toISOString(),
        level: levels[n % levels.length] as "info",
        message: `POST /api/orders handled in ${(n * 37) % 900} ms`,
        data: {
          route: "/api/orders",
          status: n % 50 === 0 ? 500 : 201,
          durationMs: (n * 37) % 900,
          userId: `u-${n % 5000}`,
          requestId: `r-${n}`,
        },
      });
    }
  }
  const res = await log.close({ timeoutMs: 120_000 });
  const sink = res.destinations.sink;
  if (!res.ok) throw new Error(`logger did not deliver: ${JSON.stringify(res)}`);
  return { records: n, objects: sink.objects };
}

interface Measure {
  ms: number;
  list: number;
  get: number;
  downloaded: number;
  records: number;
  /** Decoded NDJSON bytes of the records returned. */
  answerBytes: number;
  /** Oldest record time in the answer: every object from there to END had to be read. */
  oldestMs: number;
  grants?: number;
}

/** Listed sizes and key times of every object under the prefix (setup; not counted). */
let catalogue: { size: number; minMs: number; maxMs: number }[] = [];
/** Compressed bytes of the objects that hold the answer: the least any reader by object could download. */
const neededBytes = (x: Measure) =>
  catalogue.filter((o) => o.maxMs >= x.oldestMs && o.minMs < END).reduce((a, o) => a + o.size, 0);

async function readerRun(
  m: RunningMinio,
  proxy: CountingProxy,
  prefix: string,
  limits: Record<string, number>,
  grants: number,
): Promise<Measure> {
  const source = openSource(`s3://${m.bucket}/${prefix}`, {
    endpoint: proxy.url,
    forcePathStyle: true,
    region: m.region,
    credentials: { accessKeyId: m.accessKeyId, secretAccessKey: m.secretAccessKey },
  });
  proxy.reset();
  const t0 = performance.now();
  const session = source.query({ from: END - 7 * DAY, to: END, limits });
  const results: LoadResult[] = [await session.load()];
  while (
    results.reduce((a, r) => a + r.records.length, 0) < WANT &&
    !results.at(-1)!.complete &&
    results.length < grants
  )
    results.push(await session.more());
  const ms = performance.now() - t0;
  const records = results.flatMap((r) => r.records).slice(0, WANT);
  source.close();
  const s = results.at(-1)!.stats;
  if (s.listRequests !== proxy.count("list") || s.getRequests !== proxy.count("get"))
    throw new Error("reader stats disagree with the proxy");
  return {
    ms,
    list: s.listRequests,
    get: s.getRequests,
    downloaded: s.downloadedBytes,
    records: records.length,
    answerBytes: bytesOf(records),
    oldestMs: oldest(records),
    grants: s.grantsUsed,
  };
}

/** Lists the whole prefix, downloads and decodes every object, keeps the newest 20,000 in range. */
async function naiveRun(m: RunningMinio, proxy: CountingProxy, prefix: string): Promise<Measure> {
  const store = minioStoreOf(m, { endpoint: proxy.url });
  proxy.reset();
  const t0 = performance.now();
  const keys: string[] = [];
  let startAfter: string | undefined;
  for (;;) {
    const page = await store.list({ prefix: `${prefix}/`, ...(startAfter ? { startAfter } : {}) });
    keys.push(...page.entries.map((e) => e.key));
    if (!page.nextContinuationToken) break;
    startAfter = page.entries.at(-1)!.key;
  }
  let downloaded = 0;
  const all: { timestamp: string }[] = [];
  const fetchOne = async (key: string) => {
    const res = await store.get(key);
    const gunzip = createGunzip();
    res.body.on("data", (c: Buffer) => (downloaded += c.length)).pipe(gunzip);
    const chunks: Buffer[] = [];
    for await (const c of gunzip) chunks.push(c as Buffer);
    for (const line of Buffer.concat(chunks).toString("utf8").split("\n"))
      if (line) all.push(JSON.parse(line) as { timestamp: string });
  };
  // Same number of requests in flight as the reader's default (4).
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < keys.length) await fetchOne(keys[next++]!);
    }),
  );
  const from = new Date(END - 7 * DAY).toISOString();
  const to = new Date(END).toISOString();
  const records = all
    .filter((r) => r.timestamp >= from && r.timestamp < to)
    .sort((a, b) => (a.timestamp < b.timestamp ? 1 : -1))
    .slice(0, WANT);
  const ms = performance.now() - t0;
  store.close();
  return {
    ms,
    list: proxy.count("list"),
    get: proxy.count("get"),
    downloaded,
    records: records.length,
    answerBytes: bytesOf(records),
    oldestMs: oldest(records),
  };
}

const oldest = (records: { timestamp: string }[]) =>
  records.reduce((a, r) => Math.min(a, Date.parse(r.timestamp)), Infinity);
const bytesOf = (records: unknown[]) =>
  records.reduce<number>((a, r) => a + Buffer.byteLength(JSON.stringify(r)) + 1, 0);
const median = (xs: Measure[]) => [...xs].sort((a, b) => a.ms - b.ms)[Math.floor(xs.length / 2)]!;
const fmt = (x: Measure) =>
  `${x.ms.toFixed(0).padStart(6)} ms  LIST ${String(x.list).padStart(4)}  GET ${String(x.get).padStart(4)}  downloaded ${(x.downloaded / MiB).toFixed(3)} MiB` +
  `  needed ${(neededBytes(x) / MiB).toFixed(3)} MiB (${(x.downloaded / neededBytes(x)).toFixed(2)}x)  records ${x.records} (${(x.answerBytes / MiB).toFixed(2)} MiB NDJSON)${x.grants ? `  grants ${x.grants}` : ""}`;

async function scenario(
  m: RunningMinio,
  proxy: CountingProxy,
  prefix: string,
  label: string,
): Promise<void> {
  console.log(`\n-- ${label}`);
  const direct = minioStoreOf(m);
  catalogue = [];
  for (let startAfter: string | undefined; ;) {
    const page = await direct.list({ prefix: `${prefix}/`, ...(startAfter ? { startAfter } : {}) });
    for (const e of page.entries) {
      const k = parseObjectKey(e.key, prefix);
      if (k) catalogue.push({ size: e.size, minMs: k.minMs, maxMs: k.maxMs });
    }
    if (!page.nextContinuationToken) break;
    startAfter = page.entries.at(-1)!.key;
  }
  direct.close();
  const variants: [string, Record<string, number>, number][] = [
    ["reader, default allowances, load()+more() until 20,000", {}, 5],
    [
      "reader, one grant (listAttempts 200, getAttempts 400)",
      { listAttempts: 200, getAttempts: 400 },
      1,
    ],
  ];
  const naive: Measure[] = [];
  for (let i = 0; i < RUNS; i++) naive.push(await naiveRun(m, proxy, prefix));
  const n = median(naive);
  console.log(`naive (list prefix, GET all)           ${fmt(n)}`);
  for (const [name, limits, grants] of variants) {
    const runs: Measure[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await readerRun(m, proxy, prefix, limits, grants));
    const r = median(runs);
    console.log(`${name}\n                                        ${fmt(r)}`);
    console.log(
      `  ratios naive/reader: time ${(n.ms / r.ms).toFixed(2)}x, requests ${((n.list + n.get) / (r.list + r.get)).toFixed(2)}x, bytes downloaded ${(n.downloaded / r.downloaded).toFixed(2)}x` +
        ` (per record returned: ${(n.downloaded / n.records / (r.downloaded / r.records)).toFixed(2)}x)`,
    );
  }
}

/** One week scenario: load() + more() at default allowances until complete; LISTs vs the bound and vs hour-by-hour listing. */
async function weekScenario(
  m: RunningMinio,
  proxy: CountingProxy,
  label: string,
  prefix: string,
  records: FixtureRecord[],
  perObject: number,
): Promise<void> {
  const direct = minioStoreOf(m, { endpoint: proxy.url });
  const written = await writeV1(direct, prefix, records, perObject);
  const hours = new Set(written.map((o) => Math.floor(o.minMs / H)));
  const needed = written.reduce((a, o) => a + o.size, 0);
  // Reference: the hour-by-hour walk (one LIST per hour folder of the range, newest first).
  proxy.reset();
  for (let h = WEEK_END - H; h >= WEEK_END - 7 * DAY; h -= H) {
    for (let startAfter: string | undefined; ;) {
      const page = await direct.list({
        prefix: hourPrefix(prefix, h),
        ...(startAfter ? { startAfter } : {}),
      });
      if (!page.nextContinuationToken) break;
      startAfter = page.entries.at(-1)!.key;
    }
  }
  const hourly = proxy.count("list");
  direct.close();
  const runs: { list: number; grants: number; downloaded: number; complete: boolean }[] = [];
  for (let i = 0; i < RUNS; i++) {
    const source = openSource(`s3://${m.bucket}/${prefix}`, {
      endpoint: proxy.url,
      forcePathStyle: true,
      region: m.region,
      credentials: { accessKeyId: m.accessKeyId, secretAccessKey: m.secretAccessKey },
      cacheBytes: 0, // every run pays its own requests
    });
    proxy.reset();
    const session = source.query({
      from: WEEK_END - 7 * DAY,
      to: WEEK_END,
      limits: { maxGrants: 100 },
    });
    let r = await session.load();
    while (!r.complete && r.stats.grantsUsed < 100) r = await session.more();
    if (r.stats.listRequests !== proxy.count("list"))
      throw new Error("LIST count disagrees with the proxy");
    runs.push({
      list: r.stats.listRequests,
      grants: r.stats.grantsUsed,
      downloaded: r.stats.downloadedBytes,
      complete: r.complete,
    });
    source.close();
  }
  const r = runs.sort((a, b) => a.list - b.list)[Math.floor(runs.length / 2)]!;
  const bound = 1.1 * hours.size + 8;
  console.log(
    `${label}\n  ${written.length} objects in ${hours.size} non-empty hours; 7-day load at default allowances: ` +
      `LIST ${r.list} (bound 1.1 × ${hours.size} + 8 = ${bound.toFixed(1)}: ${r.list <= bound ? "within" : "OVER"}), ` +
      `grants ${r.grants}${r.complete ? ", complete" : ", NOT complete"}, downloaded ${(r.downloaded / MiB).toFixed(3)} MiB of ${(needed / MiB).toFixed(3)} MiB needed (${(r.downloaded / needed).toFixed(2)}x)` +
      `\n  reference, hour by hour: LIST ${hourly}; ratio hourly/discovery ${(hourly / r.list).toFixed(1)}x`,
  );
}

async function weekFigures(m: RunningMinio, proxy: CountingProxy): Promise<void> {
  console.log(
    `\n-- week figures: range [${new Date(WEEK_END - 7 * DAY).toISOString()}, ${new Date(WEEK_END).toISOString()}); runs ${RUNS}, median LIST shown`,
  );
  const demo = [
    ...demoRecords({ endMs: WEEK_END - 1, hours: 6, perHour: 1500 }),
  ] as unknown as FixtureRecord[];
  await weekScenario(
    m,
    proxy,
    "W1: the demo workload (last 6 hours, 1,500 records/hour)",
    "week/demo",
    demo,
    500,
  );
  const sixHours = spreadRecords(WEEK_END - 6 * H, WEEK_END, 6 * 40);
  await weekScenario(
    m,
    proxy,
    "W2: one object per hour, last 6 hours only",
    "week/six",
    sixHours,
    40,
  );
  const full = spreadRecords(WEEK_END - 7 * DAY, WEEK_END, 168 * 5 * 20);
  await weekScenario(m, proxy, "W3: ~5 objects in every hour of the 7 days", "week/full", full, 20);
}

/** The week scenarios end at an hour mark in the middle of a month, like "now" on a Studio load. */
const WEEK_END = Date.UTC(2026, 10, 18, 14);

async function readBench(m: RunningMinio, proxy: CountingProxy): Promise<void> {
  const t = performance.now();
  const a = await writeDays(m, "bench/app", END - 7 * DAY, END);
  console.log(
    `wrote ${a.records} records in ${a.objects} objects over 7 days with the real logger (${((performance.now() - t) / 1000).toFixed(1)} s); runs per variant: ${RUNS}, median shown`,
  );
  await scenario(m, proxy, "bench/app", "A: bucket holds exactly the 7-day range; local MinIO");
  proxy.setDelay(LATENCY_MS);
  await scenario(
    m,
    proxy,
    "bench/app",
    `A': the same with ${LATENCY_MS} ms added to every request (a far region)`,
  );
  proxy.setDelay(0);
  const b = await writeDays(m, "bench/app", END - 28 * DAY, END - 7 * DAY);
  const older = `plus 21 older days (${b.records} records, ${b.objects} objects) under the same prefix`;
  await scenario(m, proxy, "bench/app", `B: ${older}; local MinIO`);
  proxy.setDelay(LATENCY_MS);
  await scenario(m, proxy, "bench/app", `B': ${older}; ${LATENCY_MS} ms added to every request`);
}

const m = await startMinio();
const proxy = await startCountingProxy(m.endpoint);
try {
  await weekFigures(m, proxy);
  if (!args["week-only"]) await readBench(m, proxy);
} finally {
  await proxy.close();
  await m.stop();
}
