/**
 * Exports that were silently wrong or trusted what they should not (issue 31 §4, §5),
 * against real PostgreSQL, MariaDB and MinIO, with DuckDB reading the Parquet files.
 * (ClickHouse through chdb is not installed on this machine: only DuckDB reads here.)
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, describe, expect, it } from "vitest";
import { runConfiguredExport } from "../../src/export/session.js";
import { openStore } from "../../src/store/open-store.js";
import { minioEnv as env, minioExportConfig, readAll, tmp } from "../support/export-project.js";
import { uniquePrefix } from "../support/minio.js";
import { MYSQL_URL, mysqlDrop, mysqlExec, mysqlTableName } from "../support/mysql.js";
import { PG_URL, pgDrop, pgExec, pgTableName } from "../support/pg.js";

const dir = tmp("hostile-exports");
const pgTables: string[] = [];
const myTables: string[] = [];
afterAll(async () => {
  await pgDrop(...pgTables);
  await mysqlDrop(...myTables);
});

/** Exports `table` to Parquet in MinIO and copies the one object to a local file for DuckDB. */
async function exportParquet(
  type: "postgres" | "mysql",
  url: string,
  table: string,
  tuning: Record<string, unknown> = {},
): Promise<string> {
  const cfg = minioExportConfig(
    { type, url },
    { name: "j", table, format: "parquet" },
    uniquePrefix(`hostile-json-${type}`),
    tuning,
  );
  const store = openStore(cfg.exports[0]!.destination, { env: env() }).store;
  try {
    const r = await runConfiguredExport(cfg, cfg.exports[0]!, { env: env(), store });
    expect(r.parts).toHaveLength(1);
    const file = join(dir, `${table}.parquet`);
    writeFileSync(file, await readAll(store, r.parts[0]!.path));
    return file;
  } finally {
    store.close();
  }
}

async function duck<T extends unknown[]>(sql: string): Promise<T[]> {
  const db = await DuckDBInstance.create(":memory:");
  const c = await db.connect();
  try {
    return (await c.runAndReadAll(sql)).getRows() as T[];
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

/** Column name → DuckDB type, from DESCRIBE. */
async function describeTypes(file: string): Promise<Record<string, string>> {
  const rows = await duck<[string, string]>(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
  return Object.fromEntries(rows.map(([n, t]) => [n, t]));
}

// Text whose UTF-16 order and UTF-8 byte order disagree ("😀" is a surrogate pair, 0xD83D…,
// below U+FF01 in UTF-16 and above it in UTF-8): statistics must not let a reader skip it.
const TEXTS = ["plain", "é café", "😀 smile", "\uFF01 fullwidth", "中文", ""];

describe("issue 31 §5: Parquet JSON columns are JSON to DuckDB", () => {
  it("issue 31 §5: PostgreSQL json/jsonb → Parquet: DESCRIBE says JSON, ->> answers, text is VARCHAR", async () => {
    const t = pgTableName("hostile_json");
    pgTables.push(t);
    await pgExec(`CREATE TABLE "${t}" (id bigint PRIMARY KEY, meta json, metab jsonb, t text)`);
    for (let i = 1; i <= 12; i++) {
      await pgExec(`INSERT INTO "${t}" VALUES ($1, $2, $3, $4)`, [
        i,
        i === 12 ? null : JSON.stringify({ k: `v${i}`, n: i, nested: { x: [i] } }),
        JSON.stringify({ k: `b${i}`, é: "ü" }),
        TEXTS[i % TEXTS.length],
      ]);
    }
    // Small row groups, so per-group statistics decide what a filter reads.
    const file = await exportParquet("postgres", PG_URL, t, { row_group_size: 3 });
    const types = await describeTypes(file);
    expect(types).toMatchObject({ id: "BIGINT", meta: "JSON", metab: "JSON", t: "VARCHAR" });
    const rows = await duck<[bigint, string | null, string | null, string | null]>(
      `SELECT id, meta->>'k', metab->>'k', meta->'nested'->'x'->>0
       FROM read_parquet('${file}') ORDER BY id`,
    );
    expect(rows.map(([id, k, kb, x]) => [Number(id), k, kb, x])).toEqual(
      Array.from({ length: 12 }, (_, j) => {
        const i = j + 1;
        return [i, i === 12 ? null : `v${i}`, `b${i}`, i === 12 ? null : String(i)];
      }),
    );
    const accents = await duck<[string]>(
      `SELECT DISTINCT metab->>'é' FROM read_parquet('${file}')`,
    );
    expect(accents).toEqual([["ü"]]);
    for (const s of TEXTS) {
      const [[n]] = await duck<[bigint]>(
        `SELECT count(*) FROM read_parquet('${file}') WHERE t = '${s.replace(/'/g, "''")}'`,
      );
      expect(Number(n), s).toBe(
        Array.from({ length: 12 }, (_, j) => j + 1).filter((i) => TEXTS[i % TEXTS.length] === s)
          .length,
      );
    }
  });

  it("issue 31 §5: MariaDB JSON → Parquet: DESCRIBE says JSON and ->> answers", async () => {
    const t = mysqlTableName("hostile_json");
    myTables.push(t);
    await mysqlExec(`CREATE TABLE \`${t}\` (id bigint PRIMARY KEY, meta JSON, t text)`);
    for (let i = 1; i <= 8; i++) {
      await mysqlExec(`INSERT INTO \`${t}\` VALUES (?, ?, ?)`, [
        i,
        i === 8 ? null : JSON.stringify({ k: `m${i}`, n: i }),
        TEXTS[i % TEXTS.length],
      ]);
    }
    const file = await exportParquet("mysql", MYSQL_URL, t, { row_group_size: 3 });
    expect(await describeTypes(file)).toMatchObject({ id: "BIGINT", meta: "JSON", t: "VARCHAR" });
    const rows = await duck<[bigint, string | null, bigint | null]>(
      `SELECT id, meta->>'k', CAST(meta->>'n' AS BIGINT) FROM read_parquet('${file}') ORDER BY id`,
    );
    expect(rows.map(([id, k, n]) => [Number(id), k, n === null ? null : Number(n)])).toEqual(
      Array.from({ length: 8 }, (_, j) => {
        const i = j + 1;
        return [i, i === 8 ? null : `m${i}`, i === 8 ? null : i];
      }),
    );
    const texts = await duck<[string]>(`SELECT t FROM read_parquet('${file}') ORDER BY id`);
    expect(texts.map(([s]) => s)).toEqual(
      Array.from({ length: 8 }, (_, j) => TEXTS[(j + 1) % TEXTS.length]),
    );
  });
});
