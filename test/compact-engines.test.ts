/**
 * Issue 32 §2: compacted hours proven on real engines. A day of logs written by the real
 * logger into MinIO is compacted; ClickHouse (chdb, embedded) reads the Parquet with s3()
 * and `dt`/`hour` as Hive partition columns, and its counts, level counts and a filter on
 * promoted columns equal what was written and its own answer over the v1 NDJSON of the
 * same range. DuckDB reads the same records compacted in a local-directory store with
 * hive_partitioning = true and gives the same answers. Every file carries Object Lock and
 * the store's SHA-256.
 */
import { DuckDBInstance } from "@duckdb/node-api";
import { beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/index.js";
import { compactLogs, type CompactSummary } from "../src/compact/index.js";
import { ch, s3Args } from "./support/clickhouse.js";
import { localConfig, s3Config, s3Reader } from "./support/loggers.js";
import { freshBucket, minioStore, uniquePrefix } from "./support/minio.js";
import { listAll } from "./support/read-back.js";

const DAY = Date.UTC(2026, 10, 3);
const H = 3_600_000;
const N = 6000;
const LEVELS = ["info", "info", "info", "info", "warning", "error", "critical"] as const;

interface Rec {
  ms: number;
  id: number;
  level: (typeof LEVELS)[number];
  data: Record<string, unknown>;
}

/** Six hours of a day, written in an order that is not time order; some values do not fit their column. */
const RECORDS: Rec[] = Array.from({ length: N }, (_, i) => ({
  ms: DAY + 8 * H + ((i * 7919) % (6 * H)),
  id: i,
  level: LEVELS[i % LEVELS.length]!,
  data: {
    id: i,
    route: ["/orders", "/health", "/users"][i % 3],
    status: i % 97 === 0 ? "n/a" : [200, 201, 404, 500][i % 4],
    latencyMs: i % 89 === 0 ? "slow" : (i % 1000) / 7,
    ok: i % 4 < 2,
    at: new Date(DAY + i * 1000).toISOString(),
    big: i === 42 ? 9007199254740993n : i,
  },
}));
const COLUMNS = {
  route: "string",
  status: "int64",
  latency: { type: "double", path: "latencyMs" },
  ok: "bool",
  at: "timestamp",
  big: "int64",
} as const;

async function writeLogs(config: object): Promise<void> {
  const log = createLogger({ ...config, service: "api" } as Parameters<typeof createLogger>[0]);
  for (const r of RECORDS)
    await log.write({
      timestamp: new Date(r.ms).toISOString(),
      level: r.level,
      message: `request ${r.id}`,
      data: r.data,
    });
  expect((await log.close()).ok).toBe(true);
}

const expectedLevels = () => {
  const m: Record<string, number> = {};
  for (const r of RECORDS) m[r.level] = (m[r.level] ?? 0) + 1;
  return m;
};
const byHour = () => {
  const m: Record<number, number> = {};
  for (const r of RECORDS) {
    const h = Math.floor((r.ms - DAY) / H);
    m[h] = (m[h] ?? 0) + 1;
  }
  return m;
};
/** Records a filter on promoted columns must find: route /orders, status 404 (an int), ok false. */
const expectedFilter = () =>
  RECORDS.filter((r) => r.data.route === "/orders" && r.data.status === 404 && r.data.ok === false)
    .length;

describe("§2 compacted logs on ClickHouse (chdb) over MinIO", () => {
  const prefix = uniquePrefix("compact-ch");
  let bucket: string;
  let summary: CompactSummary;
  let parquet: string;

  beforeAll(async () => {
    bucket = await freshBucket("compact", { objectLock: true });
    const base = s3Config(prefix, { maxBatchRecords: 250 }, { bucket });
    await writeLogs({
      ...base,
      s3: { ...base.s3, objectLock: { mode: "GOVERNANCE", retainDays: 1 } },
    });
    const store = minioStore({ bucket, maxAttempts: 3 });
    try {
      summary = await compactLogs({
        store,
        prefix,
        fromMs: DAY,
        toMs: DAY + 24 * H,
        nowMs: DAY + 48 * H,
        columns: COLUMNS,
        objectLock: { mode: "GOVERNANCE", retainDays: 1 },
        fileRows: 700, // several parts per hour
        rowGroupRows: 256, // several row groups per part
      });
    } finally {
      store.close();
    }
    parquet = `${prefix}/parquet/dt=*/hour=*/*.parquet`;
  }, 120_000);

  it("§2 counts, ids and level counts equal what was written and ClickHouse's answer over the v1 NDJSON", async () => {
    expect(summary.ok).toBe(true);
    expect(summary.totals).toMatchObject({ hours: 6, compacted: 6, rows: N, rejected: 0 });
    const ids = await ch<{ n: number; ids: number; dup: number }>(
      `SELECT count() AS n, uniqExact(data.id::Int64) AS ids, countIf(c > 1) AS dup FROM
         (SELECT data.id AS id, count() OVER (PARTITION BY data.id::Int64) AS c, data FROM s3(${s3Args(parquet, bucket)}, 'Parquet'))`,
    );
    expect(ids.rows).toEqual([{ n: N, ids: N, dup: 0 }]);
    const levels = await ch<{ level: string; n: number }>(
      `SELECT level, count() AS n FROM s3(${s3Args(parquet, bucket)}, 'Parquet') GROUP BY level ORDER BY level`,
    );
    const v1 = await ch<{ level: string; n: number }>(
      `SELECT level, count() AS n FROM s3(${s3Args(`${prefix}/v1/2026/11/03/*/*.ndjson.gz`, bucket)}, 'JSONEachRow') GROUP BY level ORDER BY level`,
    );
    const want = Object.entries(expectedLevels())
      .sort()
      .map(([level, n]) => ({ level, n }));
    expect(levels.rows).toEqual(want);
    expect(v1.rows).toEqual(want);
  });

  it("§2 dt and hour are partition columns (use_hive_partitioning) and prune by folder", async () => {
    const hours = await ch<{ dt: string; hour: number; n: number }>(
      `SELECT toString(dt) AS dt, hour, count() AS n FROM s3(${s3Args(parquet, bucket)}, 'Parquet')
       GROUP BY dt, hour ORDER BY hour SETTINGS use_hive_partitioning = 1`,
    );
    expect(hours.rows).toEqual(
      Object.entries(byHour()).map(([h, n]) => ({ dt: "2026-11-03", hour: Number(h), n })),
    );
    const one = await ch<{ n: number }>(
      `SELECT count() AS n FROM s3(${s3Args(parquet, bucket)}, 'Parquet') WHERE dt = '2026-11-03' AND hour = 9 SETTINGS use_hive_partitioning = 1`,
    );
    expect(one.rows).toEqual([{ n: byHour()[9] }]);
  });

  it("§1 promoted columns are typed; a filter on them equals the written records and the NDJSON answer", async () => {
    const filter = await ch<{ n: number }>(
      `SELECT count() AS n FROM s3(${s3Args(parquet, bucket)}, 'Parquet') WHERE route = '/orders' AND status = 404 AND NOT ok`,
    );
    const v1 = await ch<{ n: number }>(
      `SELECT count() AS n FROM s3(${s3Args(`${prefix}/v1/2026/11/03/*/*.ndjson.gz`, bucket)}, 'JSONEachRow',
         'timestamp String, level String, data String')
       WHERE JSONExtractString(data, 'route') = '/orders' AND JSONExtractRaw(data, 'status') = '404' AND JSONExtractBool(data, 'ok') = 0`,
    );
    expect(filter.rows).toEqual([{ n: expectedFilter() }]);
    expect(v1.rows).toEqual(filter.rows);
    const types = await ch<{ name: string; type: string }>(
      `DESCRIBE TABLE s3(${s3Args(parquet, bucket)}, 'Parquet')`,
    );
    const want = ["timestamp", "status", "latency", "ok", "at", "big", "sourceLine"];
    expect(
      Object.fromEntries(
        types.rows.filter((r) => want.includes(r.name)).map((r) => [r.name, r.type]),
      ),
    ).toEqual({
      timestamp: "Nullable(DateTime64(3, 'UTC'))",
      status: "Nullable(Int64)",
      latency: "Nullable(Float64)",
      ok: "Nullable(Bool)",
      at: "Nullable(DateTime64(3, 'UTC'))",
      big: "Nullable(Int64)",
      sourceLine: "Nullable(Int32)",
    });
  });

  it("§1 a value that does not fit its declared type is null in its column and kept in data", async () => {
    const misfit = await ch<{ id: number; status: null; raw: string; latency: null; lat: string }>(
      `SELECT JSONExtractInt(toJSONString(data), 'id') AS id, status, JSONExtractString(toJSONString(data), 'status') AS raw, latency,
              JSONExtractString(toJSONString(data), 'latencyMs') AS lat
       FROM s3(${s3Args(parquet, bucket)}, 'Parquet') WHERE status IS NULL OR latency IS NULL ORDER BY id`,
    );
    const want = RECORDS.filter((r) => r.data.status === "n/a" || r.data.latencyMs === "slow");
    expect(misfit.rows.map((r) => Number(r.id))).toEqual(want.map((r) => r.id));
    for (const r of misfit.rows) {
      const rec = RECORDS[Number(r.id)]!;
      if (r.status === null) expect(r.raw).toBe(rec.data.status);
      if (r.latency === null) expect(r.lat).toBe(rec.data.latencyMs);
    }
    // The logger writes a BigInt as its decimal text (SPEC §3.1): a string, so not an int64.
    const big = await ch<{ big: null; text: string }>(
      `SELECT big, JSONExtractString(toJSONString(data), 'big') AS text FROM s3(${s3Args(parquet, bucket)}, 'Parquet') WHERE JSONExtractInt(toJSONString(data), 'id') = 42`,
    );
    expect(big.rows).toEqual([{ big: null, text: "9007199254740993" }]);
  });

  it("§1 rows are sorted by timestamp in every part, and provenance names the v1 line", async () => {
    const back = await ch<{ n: number }>(
      `SELECT countIf(timestamp < prev) AS n FROM (
         SELECT _file, timestamp, lagInFrame(timestamp) OVER (PARTITION BY _file ORDER BY _row_number ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS prev
         FROM s3(${s3Args(parquet, bucket)}, 'Parquet'))`,
    );
    expect(back.rows).toEqual([{ n: 0 }]);
    const sample = await ch<{ key: string; line: number; id: number }>(
      `SELECT sourceKey AS key, sourceLine AS line, JSONExtractInt(toJSONString(data), 'id') AS id FROM s3(${s3Args(parquet, bucket)}, 'Parquet') ORDER BY id LIMIT 3`,
    );
    const store = s3Reader(bucket);
    try {
      for (const s of sample.rows) {
        const lines = await ch<{ id: number }>(
          `SELECT JSONExtractInt(line, 'data', 'id') AS id FROM s3(${s3Args(s.key, bucket)}, 'LineAsString') LIMIT 1 OFFSET ${s.line - 1}`,
        );
        expect(lines.rows).toEqual([{ id: s.id }]);
      }
      // Every file written (parts, claims, manifests) carries the store's SHA-256 and the lock.
      const keys = await listAll(store, `${prefix}/parquet/`);
      expect(keys.filter((k) => k.endsWith(".parquet")).length).toBe(summary.totals.parts);
      for (const key of keys) {
        const info = await store.head(key);
        expect(info.checksumSha256, key).toBeTruthy();
        expect(info.objectLock?.mode, key).toBe("GOVERNANCE");
      }
    } finally {
      store.close();
    }
  });

  it("§2 DuckDB over a local-directory store's compacted hours (hive_partitioning = true): the same answers", async () => {
    const { config, store } = localConfig({ maxBatchRecords: 250 });
    await writeLogs(config);
    const out = await compactLogs({
      store,
      prefix: "",
      fromMs: DAY,
      toMs: DAY + 24 * H,
      nowMs: DAY + 48 * H,
      columns: COLUMNS,
    });
    expect(out.totals.rows).toBe(N);
    const db = await DuckDBInstance.create(":memory:");
    const c = await db.connect();
    const src = `read_parquet('${config.local.path}/parquet/dt=*/hour=*/*.parquet', hive_partitioning = true)`;
    try {
      const all = await c.runAndReadAll(
        `SELECT count(*), count(DISTINCT (data->>'id')::BIGINT) FROM ${src}`,
      );
      expect(all.getRows()).toEqual([[BigInt(N), BigInt(N)]]);
      const levels = await c.runAndReadAll(
        `SELECT level, count(*) FROM ${src} GROUP BY level ORDER BY level`,
      );
      expect(levels.getRows().map(([l, n]) => [l, Number(n)])).toEqual(
        Object.entries(expectedLevels()).sort(),
      );
      const hours = await c.runAndReadAll(
        `SELECT dt::VARCHAR, hour::INT, count(*) FROM ${src} GROUP BY ALL ORDER BY 2`,
      );
      expect(hours.getRows().map(([d, h, n]) => [d, h, Number(n)])).toEqual(
        Object.entries(byHour()).map(([h, n]) => ["2026-11-03", Number(h), n]),
      );
      const filter = await c.runAndReadAll(
        `SELECT count(*) FROM ${src} WHERE route = '/orders' AND status = 404 AND NOT ok`,
      );
      expect(Number(filter.getRows()[0]![0])).toBe(expectedFilter());
    } finally {
      c.closeSync();
    }
  });
});
