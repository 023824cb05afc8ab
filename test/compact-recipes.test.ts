/**
 * Issue 32 §2: the recipes of docs/scale-out.md ("Compacted Parquet") run as the page states
 * them — the SQL is read from the page; only the bucket URL, the prefix and the credentials
 * (or, for DuckDB, the store's folder) are replaced — and each answer equals what was written.
 * ClickHouse through chdb against MinIO; `s3Cluster` with its cluster argument removed (an
 * embedded engine has no cluster); DuckDB over a local-directory store.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/index.js";
import { compactLogs } from "../src/compact/index.js";
import { ch, fillRecipe } from "./support/clickhouse.js";
import { localConfig, s3Config } from "./support/loggers.js";
import { minio, minioStore, uniquePrefix } from "./support/minio.js";

const PAGE = readFileSync(join(import.meta.dirname, "..", "docs", "scale-out.md"), "utf8");
const DAY = Date.UTC(2026, 10, 3);
const H = 3_600_000;
const N = 3000;
const ROUTES = ["/orders", "/health", "/users", "/cart"];

/** The SQL of the block after `<!-- recipe: name -->`. */
function recipe(name: string): string {
  const m = new RegExp(`<!-- recipe: ${name} -->\\s*\`\`\`sql\\n([\\s\\S]*?)\`\`\``).exec(PAGE);
  if (!m) throw new Error(`docs/scale-out.md has no recipe ${name}`);
  return m[1]!.trim().replace(/;$/, "");
}

const records = Array.from({ length: N }, (_, i) => {
  const level =
    i % 10 === 0 ? "error" : i % 25 === 0 ? "critical" : i % 3 === 0 ? "warning" : "info";
  return {
    ms: DAY + 3 * H + ((i * 7919) % (5 * H)),
    level: level as "error" | "critical" | "warning" | "info",
    route: ROUTES[i % ROUTES.length]!,
    error:
      level === "error" || level === "critical"
        ? { name: i % 20 === 0 ? "TimeoutError" : "PaymentDeclinedError", message: "x" }
        : undefined,
    message:
      level === "error"
        ? `payment failed ${i % 2}\nstack line`
        : level === "critical"
          ? "disk full"
          : `request ${i}`,
    id: i,
  };
});

async function write(config: object): Promise<void> {
  const log = createLogger({ ...config, service: "api" } as Parameters<typeof createLogger>[0]);
  for (const r of records)
    await log.write({
      timestamp: new Date(r.ms).toISOString(),
      level: r.level,
      message: r.message,
      data: { id: r.id, route: r.route },
      ...(r.error ? { error: r.error } : {}),
    });
  expect((await log.close()).ok).toBe(true);
}

const levels = () => {
  const m = new Map<string, number>();
  for (const r of records) m.set(r.level, (m.get(r.level) ?? 0) + 1);
  return [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([level, n]) => ({ level, n }));
};

describe("§2 docs/scale-out.md recipes over compacted hours", () => {
  const prefix = uniquePrefix("recipes");
  const fill = (sql: string) => {
    const m = minio();
    return fillRecipe(sql, {
      endpoint: m.endpoint,
      bucket: m.bucket,
      prefix: `${prefix}/parquet/`,
      key: m.accessKeyId,
      secret: m.secretAccessKey,
    });
  };

  beforeAll(async () => {
    await write(s3Config(prefix, { maxBatchRecords: 200 }));
    const store = minioStore();
    try {
      const out = await compactLogs({
        store,
        prefix,
        fromMs: DAY,
        toMs: DAY + 24 * H,
        nowMs: DAY + 48 * H,
        columns: { route: "string" },
      });
      expect(out.totals.rows).toBe(N);
    } finally {
      store.close();
    }
  }, 120_000);

  it("§2 ClickHouse s3(): level counts over a day", async () => {
    const got = await ch<{ level: string; n: number }>(fill(recipe("clickhouse-levels")));
    expect(got.rows).toEqual(levels());
  });

  it("§2 ClickHouse s3(): errors by hour with dt/hour partition columns and a promoted column", async () => {
    const got = await ch<{ hour: number; errors: number; routes: number }>(
      fill(recipe("clickhouse-errors-by-hour")),
    );
    const want = new Map<number, { errors: number; routes: Set<string> }>();
    for (const r of records.filter((x) => x.level === "error")) {
      const h = Math.floor((r.ms - DAY) / H);
      const e = want.get(h) ?? { errors: 0, routes: new Set() };
      e.errors++;
      e.routes.add(r.route);
      want.set(h, e);
    }
    expect(got.rows).toEqual(
      [...want]
        .sort((a, b) => a[0] - b[0])
        .map(([hour, e]) => ({ hour, errors: e.errors, routes: e.routes.size })),
    );
  });

  it("§2 ClickHouse s3(): error groups from the JSON error column", async () => {
    const got = await ch<{ error: string; first_line: string; n: number }>(
      fill(recipe("clickhouse-error-groups")),
    );
    const want = new Map<string, number>();
    for (const r of records.filter((x) => x.level === "error" || x.level === "critical")) {
      const k = `${r.error!.name}\u0000${r.message.split("\n")[0]}`;
      want.set(k, (want.get(k) ?? 0) + 1);
    }
    const asMap = new Map(got.rows.map((r) => [`${r.error}\u0000${r.first_line}`, r.n]));
    expect(asMap).toEqual(want);
  });

  it("§2 ClickHouse s3Cluster(): the same call without the cluster argument gives the level counts", async () => {
    const sql = fill(recipe("clickhouse-cluster"));
    expect(sql).toMatch(/s3Cluster\('logs_cluster',\s*/);
    const got = await ch<{ level: string; n: number }>(
      sql.replace(/s3Cluster\('logs_cluster',\s*/, "s3("),
    );
    expect(got.rows).toEqual(levels());
  });

  it("§2 DuckDB read_parquet with hive_partitioning over a local store: the level counts", async () => {
    const { config, store } = localConfig({ maxBatchRecords: 200 });
    await write(config);
    const out = await compactLogs({
      store,
      prefix: "",
      fromMs: DAY,
      toMs: DAY + 24 * H,
      nowMs: DAY + 48 * H,
      columns: { route: "string" },
    });
    expect(out.totals.rows).toBe(N);
    const sql = recipe("duckdb-levels").replace(
      "/srv/app/.stowage/store/",
      `${config.local.path}/`,
    );
    const db = await DuckDBInstance.create(":memory:");
    const c = await db.connect();
    try {
      const rows = (await c.runAndReadAll(sql)).getRows();
      expect(rows.map(([level, n]) => ({ level, n: Number(n) }))).toEqual(levels());
    } finally {
      c.closeSync();
    }
  });
});
