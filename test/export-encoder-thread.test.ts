/**
 * The encoding thread: exports encoded in a worker thread beside the
 * reading write byte-identical objects to exports encoded on the main thread, for
 * every format (size-split too), from PostgreSQL and MariaDB; a worker that dies
 * fails the run with a clear error, without hanging and without committing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ResolvedExportConfig } from "../src/export/config.js";
import { runExport } from "../src/export/runner.js";
import { runConfiguredExport, sourceOpener } from "../src/export/session.js";
import type { ObjectStore } from "../src/store/object-store.js";
import { minioEnv as env, minioExportConfig } from "./support/export-project.js";
import { minio, minioStore, uniquePrefix } from "./support/minio.js";
import { MYSQL_URL, mysqlDrop, mysqlExec, mysqlTableName } from "./support/mysql.js";
import { PG_URL, pgDrop, pgExec, pgTableName } from "./support/pg.js";

function config(
  type: "postgres" | "mysql",
  table: string,
  format: string,
  encoderThread: boolean,
  extra: Record<string, unknown> = {},
  tuning: Record<string, unknown> = {},
): ResolvedExportConfig {
  return minioExportConfig(
    { type, url: type === "postgres" ? PG_URL : MYSQL_URL },
    { name: "enc", table, format, ...extra },
    uniquePrefix("enc"),
    { encoder_thread: encoderThread, batch_size: 700, ...tuning },
  );
}

let store: ObjectStore;
const pgTable = pgTableName("enc_pg");
const myTable = mysqlTableName("enc_my");
const ROWS = 5000;

beforeAll(async () => {
  store = minioStore();
  await pgExec(`CREATE TABLE ${pgTable} AS
    SELECT g::bigint AS id, (g % 1000)::int AS small, 'name "' || g || E'",\\n' AS txt,
           timestamptz '2024-01-01 00:00:00+00' + g * interval '1.5 seconds' AS ts,
           timestamp '1999-12-31 23:59:59' + g * interval '1 day' AS wall,
           date '2000-02-28' + g AS d, (g / 7.0)::numeric(12,2) AS amount,
           g % 2 = 0 AS flag, jsonb_build_object('g', g) AS doc,
           CASE WHEN g % 5 = 0 THEN NULL ELSE repeat('x', g % 50) END AS maybe
    FROM generate_series(1, ${ROWS}) g`);
  await mysqlExec(`CREATE TABLE \`${myTable}\` AS
    SELECT CAST(seq AS SIGNED) AS id, CONCAT('v"', seq, ',') AS txt,
           CAST(TIMESTAMP '2024-01-01 00:00:00' + INTERVAL seq * 1500 MICROSECOND AS DATETIME(6)) AS ts,
           DATE '2000-02-28' + INTERVAL seq DAY AS d, CAST(seq / 7 AS DECIMAL(12,2)) AS amount
    FROM seq_1_to_${ROWS}`);
});

afterAll(async () => {
  await pgDrop(pgTable);
  await mysqlDrop(myTable);
  store?.close();
});

/** The SHA-256 of every object a run wrote, in order. */
async function hashes(cfg: ResolvedExportConfig): Promise<string[]> {
  const r = await runConfiguredExport(cfg, cfg.exports[0]!, { env: env(), store });
  expect(r.rows).toBe(ROWS);
  return r.parts.map((p) => p.sha256);
}

describe("encoding thread", () => {
  const cases: [string, "postgres" | "mysql", string, Record<string, unknown>][] = [
    ["parquet", "postgres", "parquet", {}],
    ["csv", "postgres", "csv", {}],
    ["ndjson gzip", "postgres", "ndjson", { compression: "gzip" }],
    ["csv split by max_file_size", "postgres", "csv", { max_file_size: "64KB" }],
    ["parquet split by max_file_size", "postgres", "parquet", { max_file_size: "64KB" }],
    ["csv from MariaDB", "mysql", "csv", {}],
    ["parquet from MariaDB", "mysql", "parquet", {}],
  ];
  for (const [name, type, format, extra] of cases) {
    it(`§7.2 ${name}: objects are byte-identical with and without the thread`, async () => {
      const table = type === "postgres" ? pgTable : myTable;
      const threaded = await hashes(config(type, table, format, true, extra));
      const main = await hashes(config(type, table, format, false, extra));
      expect(threaded.length).toBeGreaterThan(0);
      if (extra.max_file_size) expect(threaded.length).toBeGreaterThan(1);
      expect(threaded).toEqual(main);
    });
  }

  it("§7.2 a worker that dies fails the run clearly, commits nothing and does not hang", async () => {
    // A row group (10,000 rows) whose 4 KiB values repeat (a new one every 1,000 rows, so
    // its Parquet dictionary is kept): the worker's heap holds every batch a dictionary
    // value came from and outgrows its limit, and the worker dies. A run that waited for an
    // answer the dead worker cannot give would never settle: the test's timeout catches
    // that, no clock is asserted.
    const big = pgTableName("enc_big");
    await pgExec(
      `CREATE TABLE ${big} AS SELECT g::bigint AS id, repeat(md5((g / 1000)::text), 128) AS blob FROM generate_series(1, 30000) g`,
    );
    try {
      const cfg = config("postgres", big, "parquet", true, {}, { row_group_bytes: "1GiB" });
      const exp = cfg.exports[0]!;
      const err = await runExport(exp, {
        store,
        openSource: sourceOpener(cfg),
        sourceType: "postgres",
        tuning: cfg.tuning,
        encoderThread: {
          resourceLimits: { maxOldGenerationSizeMb: 24, maxYoungGenerationSizeMb: 4 },
        },
      }).catch((e: unknown) => e as Error);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toMatch(/export "enc": the encoding thread failed/);
      // Nothing vouches for the failed run, and it removed what it wrote.
      const listed = await store.list({ prefix: exp.prefixTemplate });
      const keys = listed.entries.map((o) => o.key);
      expect(keys.filter((k) => k.endsWith("_SUCCESS") || k.endsWith("manifest.json"))).toEqual([]);
      expect(keys.filter((k) => k.endsWith(".parquet"))).toEqual([]);
    } finally {
      await pgDrop(big);
    }
  });

  it("§7.2 the CLI with the thread commits and exits by itself (the worker never holds it open)", async () => {
    const m = minio();
    const dir = mkdtempSync(join(tmpdir(), "stowage-enc-cli-"));
    try {
      const file = join(dir, "export.yaml");
      writeFileSync(
        file,
        `source:
  type: postgres
  url_env: DATABASE_URL
tuning:
  encoder_thread: true
exports:
  - name: enc_cli
    table: ${pgTable}
    format: parquet
    destination:
      type: s3
      bucket: ${m.bucket}
      prefix: ${uniquePrefix("enc-cli")}/
      endpoint: ${m.endpoint}
      region: us-east-1
      force_path_style: true
      access_key_env: MINIO_KEY
      secret_key_env: MINIO_SECRET
`,
      );
      const bin = join(import.meta.dirname, "..", "bin", "stowage.js");
      const child = spawn(process.execPath, [bin, "run", "--config", file, "--json"], {
        env: { ...process.env, ...env(), DATABASE_URL: PG_URL },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let err = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      const code = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => child.kill("SIGKILL"), 45_000); // a hang fails below
        child.on("close", (c) => (clearTimeout(timer), resolve(c)));
      });
      expect(code, err).toBe(0);
      const summary = JSON.parse(out) as { exports: { ok: boolean; rows: number }[] };
      expect(summary.exports[0]).toMatchObject({ ok: true, rows: ROWS });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
