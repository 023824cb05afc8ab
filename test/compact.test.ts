/**
 * Issue 32 §1: `compactLogs()` over a local-directory store written by the real logger —
 * sealed hours become Hive partitions that DuckDB reads with hive_partitioning, every record
 * once (by id), sorted by timestamp; reruns write nothing; late objects become a second
 * generation; malformed lines land in the rejects object; foreign objects are named.
 */
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { createLogger } from "../src/index.js";
import { compactLogs } from "../src/compact/index.js";
import { localConfig } from "./support/loggers.js";

const DAY = Date.UTC(2026, 10, 3); // 2026-11-03
const H = 3_600_000;

async function writeLogs(
  config: ReturnType<typeof localConfig>["config"],
  records: { ms: number; id: number; level?: string; data?: Record<string, unknown> }[],
): Promise<void> {
  const log = createLogger({ ...config, service: "api" });
  for (const r of records)
    await log.write({
      timestamp: new Date(r.ms).toISOString(),
      level: (r.level ?? "info") as "info" | "error",
      message: `request ${r.id}`,
      data: { id: r.id, ...r.data },
    });
  expect((await log.close()).ok).toBe(true);
}

async function duck(sql: string): Promise<unknown[][]> {
  const db = await DuckDBInstance.create(":memory:");
  const c = await db.connect();
  try {
    return (await c.runAndReadAll(sql)).getRows();
  } finally {
    c.closeSync();
  }
}

describe("compactLogs on a local-directory store", () => {
  it("§1 sealed hours → dt=/hour= partitions, every record once, sorted, typed; DuckDB reads them", async () => {
    const { config, store } = localConfig({ maxBatchRecords: 300 });
    const root = config.local.path;
    const records = Array.from({ length: 3000 }, (_, i) => ({
      // three hours, written out of order (ids shuffled in time)
      ms: DAY + 10 * H + ((i * 7919) % (3 * H)),
      id: i,
      level: i % 10 === 0 ? "error" : "info",
      data: { route: i % 2 ? "/orders" : "/health", status: 200 + (i % 3) },
    }));
    await writeLogs(config, records);
    const summary = await compactLogs({
      store,
      prefix: "",
      fromMs: DAY,
      toMs: DAY + 24 * H,
      nowMs: DAY + 30 * H,
      columns: { route: "string", status: "int64" },
    });
    expect(summary.ok).toBe(true);
    expect(summary.totals.rows).toBe(3000);
    expect(summary.totals.compacted).toBe(3);
    const glob = join(root, "parquet/dt=*/hour=*/*.parquet");
    const rows = await duck(
      `SELECT dt, hour, count(*), count(DISTINCT (data->>'id')::INT), min(timestamp) >= '2026-11-03 10:00:00+00'
       FROM read_parquet('${glob}', hive_partitioning = true) GROUP BY ALL ORDER BY hour`,
    );
    const perHour = (h: number) => records.filter((r) => Math.floor((r.ms - DAY) / H) === h).length;
    expect(rows.map((r) => [String(r[0]), String(r[1]), Number(r[2]), Number(r[3])])).toEqual([
      ["2026-11-03", "10", perHour(10), perHour(10)],
      ["2026-11-03", "11", perHour(11), perHour(11)],
      ["2026-11-03", "12", perHour(12), perHour(12)],
    ]);
    const byLevel = await duck(
      `SELECT level, count(*) FROM read_parquet('${glob}', hive_partitioning = true) GROUP BY level ORDER BY level`,
    );
    expect(byLevel.map((r) => [r[0], Number(r[1])])).toEqual([
      ["error", 300],
      ["info", 2700],
    ]);
    const promoted = await duck(
      `SELECT count(*) FROM read_parquet('${glob}', hive_partitioning = true) WHERE route = '/orders' AND status = 201`,
    );
    expect(Number(promoted[0]![0])).toBe(
      records.filter((r) => r.id % 2 && 200 + (r.id % 3) === 201).length,
    );
    // Sorted by timestamp within each file.
    const order = await duck(
      `SELECT count(*) FROM (SELECT timestamp < lag(timestamp) OVER (PARTITION BY filename ORDER BY file_row_number) AS back
        FROM read_parquet('${glob}', filename = true, file_row_number = true)) WHERE back`,
    );
    expect(Number(order[0]![0])).toBe(0);

    // A rerun writes nothing new.
    const again = await compactLogs({
      store,
      prefix: "",
      fromMs: DAY,
      toMs: DAY + 24 * H,
      nowMs: DAY + 31 * H,
      columns: { route: "string", status: "int64" },
    });
    expect(again.totals.generations).toBe(0);
    expect(again.totals.upToDate).toBe(3);
  });
});
