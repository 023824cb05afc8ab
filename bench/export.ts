/**
 * Export benchmark (SPEC §7.2, §8): PostgreSQL → Parquet (zstd) and → CSV on a
 * real MinIO, for a realistic orders table, each run in its own child process
 * (`stowage run` through dist/) so its peak RSS is its own. References measured in
 * the same run, alternating round by round with the exports (issue 11 §1):
 * `psql -c "\copy (query) to stdout"` into /dev/null (the source's own limit), and
 * Stowage's PostgreSQL source reading alone (pg-cursor with its type parsers, no
 * encoding, no upload). Each figure is the min and the median of `--rounds`.
 *
 *   node --import jiti/register bench/export.ts [--rows 1000000,10000000] [--formats parquet,csv] [--rounds 3]
 *
 * Needs dist/ (`npm run build`), PostgreSQL on 127.0.0.1:5432 (db test) and psql;
 * starts its own MinIO. Tables it creates are dropped at the end.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pg from "pg";
import { startMinio } from "../test/support/minio-server.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PG_URL = process.env.STOWAGE_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
};
const sizes = arg("rows", "1000000,10000000").split(",").map(Number);
const formats = arg("formats", "parquet,csv").split(",");
const rounds = Math.max(1, Number(arg("rounds", "3")));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** A realistic orders table: ids, money as numeric, a status enum as text, timestamps, a nullable note. */
async function createOrders(client: pg.Client, table: string, rows: number): Promise<void> {
  await client.query(`DROP TABLE IF EXISTS ${table}`);
  await client.query(`CREATE UNLOGGED TABLE ${table} AS
    SELECT g::bigint AS id,
           (g * 7919 % 250000)::bigint AS customer_id,
           'SKU-' || lpad((g * 31 % 20000)::text, 5, '0') AS sku,
           (g % 5 + 1)::int AS quantity,
           ((g * 37 % 50000) / 100.0)::numeric(10,2) AS unit_price,
           ((g % 5 + 1) * (g * 37 % 50000) / 100.0)::numeric(12,2) AS total,
           (ARRAY['EUR','USD','GBP'])[g % 3 + 1]::char(3) AS currency,
           (ARRAY['new','paid','shipped','delivered','cancelled'])[g % 5 + 1] AS status,
           timestamptz '2024-01-01 00:00:00+00' + (g * interval '3 seconds') AS created_at,
           timestamptz '2024-01-01 00:00:00+00' + (g * interval '3 seconds') + ((g % 86400) * interval '1 second') AS updated_at,
           CASE WHEN g % 7 = 0 THEN 'gift wrap, leave at door #' || g ELSE NULL END AS note
    FROM generate_series(1::bigint, ${rows}::bigint) g`);
  await client.query(`ANALYZE ${table}`);
}

/** `psql \copy (query) to stdout` into /dev/null: the fastest this source hands rows out. */
function copyBaseline(table: string, csv: boolean): number {
  const started = process.hrtime.bigint();
  const res = spawnSync(
    "psql",
    [
      PG_URL,
      "-q",
      "-c",
      `\\copy (SELECT * FROM ${table}) to stdout${csv ? " with (format csv, header)" : ""}`,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  if (res.status !== 0) throw new Error(`psql failed: ${res.stderr.toString()}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** Stowage's PostgreSQL source reading every row (batch 2000, prefetch on), in its own process. */
function cursorBaseline(table: string): Promise<number> {
  const mod = pathToFileURL(join(root, "dist", "export", "sources", "postgres.js")).href;
  const code = `const { openPostgres } = await import(${JSON.stringify(mod)});
    const src = await openPostgres(${JSON.stringify(PG_URL)});
    const rows = await src.query("SELECT * FROM ${table}", [], { batchSize: 2000 });
    let n = 0; for await (const b of rows) n += b.length;
    await src.close(); process.stdout.write(String(n));`;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.stdout.resume();
    child.on("close", (status) =>
      status === 0
        ? resolve(Number(process.hrtime.bigint() - started) / 1e9)
        : reject(new Error(`cursor child exited ${status}: ${err.slice(-2000)}`)),
    );
  });
}

interface ChildResult {
  seconds: number;
  maxRssMb: number;
  cpuSeconds: number;
  bytes: number;
  rows: number;
}

/** Runs `stowage run --json` in a fresh process that reports its own peak RSS and CPU. */
function runExportChild(configFile: string, env: NodeJS.ProcessEnv): Promise<ChildResult> {
  const main = pathToFileURL(join(root, "dist", "cli", "main.js")).href;
  const code = `const { run } = await import(${JSON.stringify(main)});
    const code = await run(["node", "stowage", "run", "--config", ${JSON.stringify(configFile)}, "--json"]);
    const u = process.resourceUsage();
    process.stderr.write("\\nBENCH " + JSON.stringify({ maxRSS: u.maxRSS, cpu: (u.userCPUTime + u.systemCPUTime) / 1e6 }) + "\\n");
    process.exitCode = code;`;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("close", (status) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const stats = /BENCH (\{.*\})/.exec(err);
      if (status !== 0 || !stats)
        return reject(new Error(`export child exited ${status}: ${err.slice(-2000)}`));
      const s = JSON.parse(stats[1]!) as { maxRSS: number; cpu: number };
      const summary = JSON.parse(out) as { exports: { rows: number; bytes: number }[] };
      resolve({
        seconds,
        maxRssMb: s.maxRSS / 1024,
        cpuSeconds: s.cpu,
        bytes: summary.exports[0]!.bytes,
        rows: summary.exports[0]!.rows,
      });
    });
  });
}

function exportYaml(dir: string, table: string, format: string, minio: { bucket: string }): string {
  const file = join(dir, `${table}-${format}.yaml`);
  writeFileSync(
    file,
    `source:
  type: postgres
  url_env: BENCH_PG_URL
exports:
  - name: ${table}_${format}
    table: ${table}
    format: ${format}
    compression: ${format === "parquet" ? "zstd" : "none"}
    destination:
      type: s3
      bucket: ${minio.bucket}
      prefix: bench/{export}/
      endpoint: \${BENCH_S3_ENDPOINT}
      region: us-east-1
      force_path_style: true
      access_key_env: BENCH_S3_KEY
      secret_key_env: BENCH_S3_SECRET
`,
  );
  return file;
}

async function main(): Promise<void> {
  try {
    readFileSync(join(root, "dist", "cli", "main.js"));
  } catch {
    throw new Error("dist/ is missing: run `npm run build` first");
  }
  const minio = await startMinio();
  const dir = mkdtempSync(join(tmpdir(), "stowage-bench-export-"));
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  const env = {
    ...process.env,
    BENCH_PG_URL: PG_URL,
    BENCH_S3_ENDPOINT: minio.endpoint,
    BENCH_S3_KEY: minio.accessKeyId,
    BENCH_S3_SECRET: minio.secretAccessKey,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
  };
  const rows: string[][] = [];
  const tables: string[] = [];
  try {
    for (const n of sizes) {
      const table = `bench_orders_${n}_${process.pid}`;
      tables.push(table);
      process.stdout.write(`creating ${table} (${n.toLocaleString("en-US")} rows)… `);
      await createOrders(client, table, n);
      console.log("done");
      for (const format of formats) {
        const copy: number[] = [];
        const cursor: number[] = [];
        const runs: ChildResult[] = [];
        for (let round = 1; round <= rounds; round++) {
          // Alternate the three in every round so machine noise hits them alike.
          copy.push(copyBaseline(table, format === "csv"));
          cursor.push(await cursorBaseline(table));
          const r = await runExportChild(exportYaml(dir, table, format, minio), env);
          if (r.rows !== n) throw new Error(`exported ${r.rows} rows, expected ${n}`);
          runs.push(r);
          console.log(
            `  ${format} round ${round}: ${r.seconds.toFixed(1)} s (\\copy ${copy.at(-1)!.toFixed(1)} s, cursor ${cursor.at(-1)!.toFixed(1)} s), peak RSS ${r.maxRssMb.toFixed(0)} MB`,
          );
        }
        const secs = runs.map((r) => r.seconds);
        const rate = (t: number) => Math.round(n / t).toLocaleString("en-US");
        const ratio = (ref: number[]) =>
          `${(Math.min(...ref) / Math.min(...secs)).toFixed(2)}× / ${(median(ref) / median(secs)).toFixed(2)}×`;
        rows.push([
          n.toLocaleString("en-US"),
          format === "parquet" ? "parquet (zstd)" : "csv",
          rate(Math.min(...copy)),
          rate(Math.min(...cursor)),
          `${rate(Math.min(...secs))} / ${rate(median(secs))}`,
          ratio(copy),
          ratio(cursor),
          Math.round(n / median(runs.map((r) => r.cpuSeconds))).toLocaleString("en-US"),
          Math.max(...runs.map((r) => r.maxRssMb)).toFixed(0),
          (runs[0]!.bytes / 1e6).toFixed(0),
        ]);
      }
    }
  } finally {
    for (const t of tables) await client.query(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
    await client.end();
    await minio.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const head = [
    "rows",
    "format",
    "\\copy rows/s",
    "cursor rows/s",
    "stowage rows/s (min t / median t)",
    "vs \\copy (min / median)",
    "vs cursor (min / median)",
    "rows/cpu-s",
    "peak RSS MB",
    "object MB",
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(
    `\n${line(head)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n${rows.map(line).join("\n")}`,
  );
  console.log(
    `\nvs \\copy = \\copy time ÷ stowage time, of the fastest and of the median of ${rounds} alternating rounds (same table; \\copy writes to /dev/null, stowage to MinIO).` +
      "\nvs cursor = the same against Stowage's PostgreSQL source reading alone (pg-cursor + type parsers, prefetch, no encoding)." +
      `\nrows/cpu-s = rows ÷ the export process's own CPU time (steadier than wall time on a busy machine); load average now ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}.`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
