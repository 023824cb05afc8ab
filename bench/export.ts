/**
 * Export benchmark (SPEC §7.2, §8; issue 33): PostgreSQL, MariaDB/MySQL and SQLite →
 * Parquet (zstd) and → CSV on a real MinIO, for a realistic orders table, each export run
 * in its own child process (`stowage run` through dist/) so its peak RSS and CPU are its own.
 *
 * References, measured in the same run and alternating round by round with the exports
 * (bench/_shared.ts `rounds`: one warm-up of each, then a, b, c, a, b, c, …):
 * - the database's own client dumping `SELECT *` into /dev/null: `psql -c "\copy (query)
 *   to stdout"` (CSV: `with (format csv, header)`), `mysql --quick -e` (tab-separated text)
 *   and the `sqlite3` shell (`-csv -header` for CSV). It includes the client process
 *   (its CPU: all threads, user + system) and the database server's work for it (its
 *   CPU: every server process, per-connection ones included); no upload;
 * - Stowage's source for that database reading alone (`openSource` → `query`, batches of
 *   2,000, values converted; no encoding, no upload), in its own node process.
 * The export itself includes process start-up, reading, converting, encoding, SHA-256 and
 * the multipart upload to MinIO (MinIO's own CPU is printed beside it, not counted in it).
 * Two more runs a round, of a 1-row copy of the table — the same export, and the source
 * alone — give the fixed costs, from which each export's bound is printed: the CPU its
 * target leaves the export against the floor of start-up plus reading alone.
 *
 * For each it prints rows/s (min and median time), CPU µs per row (all threads; the
 * export's main thread too; the server's), peak RSS, and each target (issue 33) as
 * met / NOT met on the median wall-time ratio and on the CPU ratio (client + server CPU ÷
 * export + server CPU): on a shared machine the wall-time ratio moves with its phase, the
 * CPU ratio much less. `--encoder-thread off,on` measures both encoding placements.
 *
 *   node --import jiti/register bench/export.ts [--rows 1000000,10000000] [--sources postgres,mysql,sqlite]
 *        [--formats parquet,csv] [--encoder-thread off,on] [--rounds 3]
 *
 * Needs dist/ (`npx tsc -p tsconfig.build.json`), PostgreSQL on 127.0.0.1:5432 (db test)
 * with psql, MariaDB on 127.0.0.1:3306 (db test) with the mysql client, and the sqlite3
 * shell; starts its own MinIO. Tables and files it creates are removed at the end.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { startMinio } from "../test/support/minio-server.js";
import { endedChildrenCpuS, mainThreadCpuNs, processCpuS, serverCpuS, targetLine } from "./_cpu.js";
import { rounds as alternate, summary } from "./_shared.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PG_URL = process.env.STOWAGE_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const MYSQL_URL = process.env.STOWAGE_BENCH_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
};
const sizes = arg("rows", "1000000,10000000").split(",").map(Number);
const formats = arg("formats", "parquet,csv").split(",");
const sourceNames = arg("sources", "postgres,mysql,sqlite").split(",");
const threads = arg("encoder-thread", "off").split(",");
const rounds = Math.max(1, Number(arg("rounds", "3")));

const median = (xs: number[]) => summary(xs).median;

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

/** A database client's dump of `SELECT *` into /dev/null: the fastest this source hands rows out. */
function clientBaseline(cmd: string, args: string[]): number {
  const started = process.hrtime.bigint();
  const res = spawnSync(cmd, args, { stdio: ["ignore", "ignore", "pipe"] });
  if (res.status !== 0) throw new Error(`${cmd} failed: ${res.stderr.toString()}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** Stowage's source for `type` reading every row (batch 2000), in its own process. */
function sourceBaseline(type: string, url: string, table: string): Promise<number> {
  const mod = pathToFileURL(join(root, "dist", "export", "sources", "open-source.js")).href;
  const code = `const { openSource } = await import(${JSON.stringify(mod)});
    const src = await openSource({ type: ${JSON.stringify(type)}, url: ${JSON.stringify(url)} });
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
        : reject(new Error(`source child exited ${status}: ${err.slice(-2000)}`)),
    );
  });
}

/** One benchmarked database: how to fill the table, its client reference and its export source block. */
interface BenchSource {
  name: string;
  /** The reference's name in the table. */
  reference: string;
  /** The database server's process names (their CPU is the server's), none for SQLite. */
  server: readonly string[];
  create(table: string, rows: number): Promise<void>;
  drop(table: string): Promise<void>;
  client(table: string, csv: boolean): number;
  url(): string;
  close(): Promise<void>;
}

async function postgresSource(): Promise<BenchSource> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  return {
    name: "postgres",
    reference: "psql \\copy",
    server: ["postgres"],
    create: (table, rows) => createOrders(client, table, rows),
    drop: async (table) => void (await client.query(`DROP TABLE IF EXISTS ${table}`)),
    client: (table, csv) => copyBaseline(table, csv),
    url: () => PG_URL,
    close: () => client.end(),
  };
}

async function mysqlSource(): Promise<BenchSource> {
  const conn = await mysql.createConnection({ uri: MYSQL_URL });
  const u = new URL(MYSQL_URL);
  const cli = [
    "--quick",
    "-h",
    u.hostname,
    "-P",
    u.port || "3306",
    "-u",
    u.username,
    u.pathname.slice(1),
  ];
  return {
    name: "mysql",
    reference: "mysql --quick",
    server: ["mariadbd", "mysqld"],
    async create(table, rows) {
      await conn.query(`DROP TABLE IF EXISTS ${table}`);
      // MariaDB's sequence engine (seq_1_to_N) generates the same orders as the PostgreSQL table.
      await conn.query(`CREATE TABLE ${table} ENGINE=InnoDB AS
        SELECT CAST(seq AS SIGNED) AS id,
               CAST(seq * 7919 % 250000 AS SIGNED) AS customer_id,
               CONCAT('SKU-', LPAD(seq * 31 % 20000, 5, '0')) AS sku,
               CAST(seq % 5 + 1 AS INT) AS quantity,
               CAST((seq * 37 % 50000) / 100.0 AS DECIMAL(10,2)) AS unit_price,
               CAST((seq % 5 + 1) * (seq * 37 % 50000) / 100.0 AS DECIMAL(12,2)) AS total,
               CAST(ELT(seq % 3 + 1, 'EUR', 'USD', 'GBP') AS CHAR(3)) AS currency,
               ELT(seq % 5 + 1, 'new', 'paid', 'shipped', 'delivered', 'cancelled') AS status,
               CAST(TIMESTAMP '2024-01-01 00:00:00' + INTERVAL seq * 3 SECOND AS DATETIME(6)) AS created_at,
               CAST(TIMESTAMP '2024-01-01 00:00:00' + INTERVAL seq * 3 + seq % 86400 SECOND AS DATETIME(6)) AS updated_at,
               CASE WHEN seq % 7 = 0 THEN CONCAT('gift wrap, leave at door #', seq) ELSE NULL END AS note
        FROM seq_1_to_${rows}`);
    },
    drop: async (table) => void (await conn.query(`DROP TABLE IF EXISTS ${table}`)),
    client: (table) => clientBaseline("mysql", [...cli, "-e", `SELECT * FROM ${table}`]),
    url: () => MYSQL_URL,
    close: () => conn.end(),
  };
}

async function sqliteSource(dir: string): Promise<BenchSource> {
  const file = join(dir, "bench.sqlite");
  const hasShell = spawnSync("sqlite3", ["-version"]).status === 0;
  return {
    name: "sqlite",
    reference: hasShell ? "sqlite3 shell" : "better-sqlite3 iterate",
    server: [],
    async create(table, rows) {
      const db = new Database(file);
      db.pragma("journal_mode = WAL");
      db.exec(`DROP TABLE IF EXISTS ${table}`);
      db.exec(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY, customer_id INTEGER, sku TEXT,
        quantity INTEGER, unit_price DECIMAL(10,2), total DECIMAL(12,2), currency TEXT, status TEXT,
        created_at TEXT, updated_at TEXT, note TEXT)`);
      db.exec(`WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${rows})
        INSERT INTO ${table} SELECT n, n * 7919 % 250000, 'SKU-' || substr('0000' || (n * 31 % 20000), -5),
          n % 5 + 1, printf('%.2f', (n * 37 % 50000) / 100.0), printf('%.2f', (n % 5 + 1) * (n * 37 % 50000) / 100.0),
          CASE n % 3 WHEN 0 THEN 'EUR' WHEN 1 THEN 'USD' ELSE 'GBP' END,
          CASE n % 5 WHEN 0 THEN 'new' WHEN 1 THEN 'paid' WHEN 2 THEN 'shipped' WHEN 3 THEN 'delivered' ELSE 'cancelled' END,
          strftime('%Y-%m-%dT%H:%M:%SZ', 1704067200 + n * 3, 'unixepoch'),
          strftime('%Y-%m-%dT%H:%M:%SZ', 1704067200 + n * 3 + n % 86400, 'unixepoch'),
          CASE WHEN n % 7 = 0 THEN 'gift wrap, leave at door #' || n END
        FROM g`);
      db.close();
    },
    async drop(table) {
      const db = new Database(file);
      db.exec(`DROP TABLE IF EXISTS ${table}`);
      db.close();
    },
    client: (table, csv) =>
      hasShell
        ? clientBaseline("sqlite3", [
            ...(csv ? ["-csv", "-header"] : []),
            file,
            `SELECT * FROM ${table}`,
          ])
        : iterateBaseline(file, table),
    url: () => `sqlite://${file}`,
    close: async () => undefined,
  };
}

/** Without the sqlite3 shell: better-sqlite3 `.iterate()` over raw rows, the driver alone. */
function iterateBaseline(file: string, table: string): number {
  const started = process.hrtime.bigint();
  const db = new Database(file, { readonly: true });
  let n = 0;
  for (const _ of db.prepare(`SELECT * FROM ${table}`).raw(true).iterate()) n++;
  db.close();
  void n;
  return Number(process.hrtime.bigint() - started) / 1e9;
}

interface ChildResult {
  seconds: number;
  maxRssMb: number;
  /** All threads, user + system. */
  cpuSeconds: number;
  /** The main thread (schedstat), null where it cannot be read. */
  mainCpuSeconds: number | null;
  bytes: number;
  rows: number;
}

/** Runs `stowage run --json` in a fresh process that reports its own peak RSS and CPU. */
function runExportChild(configFile: string, env: NodeJS.ProcessEnv): Promise<ChildResult> {
  const main = pathToFileURL(join(root, "dist", "cli", "main.js")).href;
  const code = `const fs = await import("node:fs");
    const mainThreadCpuNs = ${mainThreadCpuNs.toString()};
    const { run } = await import(${JSON.stringify(main)});
    const code = await run(["node", "stowage", "run", "--config", ${JSON.stringify(configFile)}, "--json"]);
    const u = process.resourceUsage();
    const mainNs = mainThreadCpuNs(fs);
    process.stderr.write("\\nBENCH " + JSON.stringify({ maxRSS: u.maxRSS, cpu: (u.userCPUTime + u.systemCPUTime) / 1e6, main: mainNs === null ? null : mainNs / 1e9 }) + "\\n");
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
      const s = JSON.parse(stats[1]!) as { maxRSS: number; cpu: number; main: number | null };
      const summary = JSON.parse(out) as { exports: { rows: number; bytes: number }[] };
      resolve({
        seconds,
        maxRssMb: s.maxRSS / 1024,
        cpuSeconds: s.cpu,
        mainCpuSeconds: s.main,
        bytes: summary.exports[0]!.bytes,
        rows: summary.exports[0]!.rows,
      });
    });
  });
}

function exportYaml(
  dir: string,
  source: string,
  table: string,
  format: string,
  thread: string,
  minio: { bucket: string },
): string {
  const file = join(dir, `${table}-${format}-${thread}.yaml`);
  writeFileSync(
    file,
    `source:
  type: ${source}
  url_env: BENCH_SOURCE_URL
tuning:
  encoder_thread: ${thread === "on"}
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
  const env = {
    ...process.env,
    BENCH_S3_ENDPOINT: minio.endpoint,
    BENCH_S3_KEY: minio.accessKeyId,
    BENCH_S3_SECRET: minio.secretAccessKey,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
  };
  const rows: string[][] = [];
  const goals: GoalRow[] = [];
  const bounds: string[] = [];
  const opened: BenchSource[] = [];
  const created: [BenchSource, string][] = [];
  try {
    for (const name of sourceNames) {
      opened.push(
        name === "postgres"
          ? await postgresSource()
          : name === "mysql"
            ? await mysqlSource()
            : await sqliteSource(dir),
      );
    }
    for (const src of opened) {
      for (const n of sizes) {
        const table = `bench_orders_${n}_${process.pid}`;
        const one = `bench_orders_one_${process.pid}`;
        created.push([src, table], [src, one]);
        process.stdout.write(
          `${src.name}: creating ${table} (${n.toLocaleString("en-US")} rows) and ${one} (1 row)… `,
        );
        await src.create(table, n);
        await src.create(one, 1);
        console.log("done");
        for (const format of formats) {
          const csv = format === "csv";
          const ref: Sample[] = [];
          const alone: Sample[] = [];
          /** The same export and the same source-alone read of a 1-row table: their fixed costs. */
          const fixedExport: Sample[] = [];
          const fixedAlone: Sample[] = [];
          const runs = new Map<string, Sample[]>(threads.map((t) => [t, []]));
          /** Times `fn` (a child process) with its CPU, the server's and MinIO's; kept unless a warm-up. */
          const measure = async (
            into: Sample[],
            round: number,
            fn: () => Promise<Partial<Sample> & { seconds: number }>,
          ): Promise<number> => {
            const server0 = serverCpuS(src.server);
            const minio0 = minio.pid ? (processCpuS(minio.pid) ?? 0) : 0;
            const children0 = endedChildrenCpuS();
            const r = await fn();
            const sample: Sample = {
              cpuSeconds: endedChildrenCpuS() - children0,
              mainCpuSeconds: null,
              serverCpuSeconds: serverCpuS(src.server) - server0,
              minioCpuSeconds: minio.pid ? (processCpuS(minio.pid) ?? 0) - minio0 : 0,
              maxRssMb: 0,
              bytes: 0,
              ...r,
            };
            if (round >= 0) into.push(sample);
            return r.seconds;
          };
          const measurements: Record<string, (round: number) => Promise<number>> = {
            reference: (k) => measure(ref, k, async () => ({ seconds: src.client(table, csv) })),
            alone: (k) =>
              measure(alone, k, async () => ({
                seconds: await sourceBaseline(src.name, src.url(), table),
              })),
            "fixed alone": (k) =>
              measure(fixedAlone, k, async () => ({
                seconds: await sourceBaseline(src.name, src.url(), one),
              })),
            "fixed export": (k) =>
              measure(fixedExport, k, async () => {
                const yaml = exportYaml(dir, src.name, one, format, "off", minio);
                const r = await runExportChild(yaml, { ...env, BENCH_SOURCE_URL: src.url() });
                if (r.rows !== 1) throw new Error(`exported ${r.rows} rows, expected 1`);
                return r;
              }),
          };
          for (const t of threads)
            measurements[`export ${t}`] = (k) =>
              measure(runs.get(t)!, k, async () => {
                const yaml = exportYaml(dir, src.name, table, format, t, minio);
                const r = await runExportChild(yaml, { ...env, BENCH_SOURCE_URL: src.url() });
                if (r.rows !== n) throw new Error(`exported ${r.rows} rows, expected ${n}`);
                console.log(
                  `  ${format} thread ${t} round ${k < 0 ? "warm-up" : k + 1}: ${r.seconds.toFixed(1)} s (${src.reference} ${ref.at(-1)?.seconds.toFixed(1) ?? "-"} s, source alone ${alone.at(-1)?.seconds.toFixed(1) ?? "-"} s), CPU ${r.cpuSeconds.toFixed(1)} s, peak RSS ${r.maxRssMb.toFixed(0)} MB`,
                );
                return r;
              });
          await alternate(rounds, measurements);
          const refCpu = median(ref.map((x) => x.cpuSeconds + x.serverCpuSeconds));
          const refSecs = median(ref.map((x) => x.seconds));
          rows.push(tableRow(src.name, n, format, src.reference, ref, ref));
          rows.push(tableRow(src.name, n, format, "source alone", alone, ref));
          for (const [t, list] of runs) {
            rows.push(tableRow(src.name, n, format, `stowage thread ${t}`, list, ref));
            goals.push({
              source: src.name,
              format,
              thread: t,
              rows: n,
              ratio: refSecs / median(list.map((r) => r.seconds)),
              cpuRatio: refCpu / median(list.map((r) => r.cpuSeconds + r.serverCpuSeconds)),
              peakRssMb: Math.max(...list.map((r) => r.maxRssMb)),
            });
            bounds.push(
              boundLine(src.name, format, t, n, { ref, alone, fixedExport, fixedAlone, run: list }),
            );
          }
        }
        await src.drop(table).catch(() => undefined);
      }
    }
  } finally {
    for (const [src, t] of created) await src.drop(t).catch(() => undefined);
    for (const src of opened) await src.close().catch(() => undefined);
    await minio.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const head = [
    "source",
    "rows",
    "format",
    "measured",
    "rows/s (min t / median t)",
    "vs reference (min / median)",
    "CPU µs/row all threads",
    "main thread",
    "server",
    "MinIO",
    "CPU vs reference",
    "peak RSS MB",
    "object MB",
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 4 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(
    `\n${line(head)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n${rows.map(line).join("\n")}`,
  );
  console.log(
    `\nEvery figure is of ${rounds} alternating rounds after one warm-up of each (min, or median where one figure).` +
      "\nreference = the database's own client writing the query to /dev/null: its process, and the server's work for it (server)." +
      "\nsource alone = Stowage's source for that database reading alone in a node process (no encoding, no upload)." +
      "\nstowage thread off|on = `stowage run` to MinIO, tuning.encoder_thread off (encoding on the main thread, the default) or on." +
      "\nCPU µs/row = the process's CPU (user + system) ÷ rows: all threads; its main thread (exports only); the database server's during it; MinIO's during it (not counted elsewhere)." +
      "\nCPU vs reference = (reference client + server CPU) ÷ (this + server CPU), medians." +
      `\nLoad average now ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")} (wall-time ratios move with it; CPU ratios much less).`,
  );
  console.log(`\nTargets (issue 33; medians):\n${goalLines(goals).join("\n")}`);
  console.log(
    `\nWhat bounds each export's CPU (medians, µs of CPU a row at this size):\n${bounds.join("\n")}`,
  );
}

/**
 * The bound under an export's CPU target: what the target leaves the export process
 * ((reference client + server) ÷ goal − the export's own server CPU), against the floor
 * no change to encoding or upload can remove — the same export of a 1-row table (process
 * start-up, modules, connection, bucket checks, manifest, `_SUCCESS`) plus reading the rows
 * through the source alone (its run less its own 1-row run). PostgreSQL CSV is written from
 * the COPY bytes without values, so reading alone is not its floor: only the fixed part is.
 */
function boundLine(
  source: string,
  format: string,
  thread: string,
  n: number,
  s: Record<"ref" | "alone" | "fixedExport" | "fixedAlone" | "run", Sample[]>,
): string {
  const want = GOAL.ratio[source]?.[format] ?? 0.5;
  const us = (sec: number) => (sec / n) * 1e6;
  const m = (xs: Sample[], f: (x: Sample) => number) => median(xs.map(f));
  const refCpu = m(s.ref, (x) => x.cpuSeconds + x.serverCpuSeconds);
  const budget = refCpu / want - m(s.run, (x) => x.serverCpuSeconds);
  const fixed = m(s.fixedExport, (x) => x.cpuSeconds);
  const readsValues = !(source === "postgres" && format === "csv");
  const reading = readsValues
    ? Math.max(0, m(s.alone, (x) => x.cpuSeconds) - m(s.fixedAlone, (x) => x.cpuSeconds))
    : 0;
  const floor = fixed + reading;
  const spent = m(s.run, (x) => x.cpuSeconds);
  const at = `${source} ${format} (thread ${thread}), ${n.toLocaleString("en-US")} rows`;
  const parts =
    `the target (${want.toFixed(2)}×) leaves the export ${us(budget).toFixed(2)} µs a row; ` +
    `it spends ${us(spent).toFixed(2)}, of which a 1-row export's ${fixed.toFixed(2)} s (${us(fixed).toFixed(2)} µs a row here)` +
    (readsValues
      ? ` and reading alone ${us(reading).toFixed(2)}`
      : " (reading alone is not this path's floor)");
  return floor >= budget
    ? `${at}: ${parts}: floor ${us(floor).toFixed(2)} ≥ ${us(budget).toFixed(2)}, out of reach while the export starts a process and reads through this source`
    : `${at}: ${parts}: floor ${us(floor).toFixed(2)}, leaving ${us(budget - floor).toFixed(2)} µs a row for converting, encoding and upload (they take ${us(spent - floor).toFixed(2)})`;
}

/** One measured process of a round. */
interface Sample {
  seconds: number;
  cpuSeconds: number;
  mainCpuSeconds: number | null;
  serverCpuSeconds: number;
  minioCpuSeconds: number;
  maxRssMb: number;
  bytes: number;
}

/** One line of the table: `what` against the reference samples `ref`. */
function tableRow(
  source: string,
  n: number,
  format: string,
  what: string,
  list: Sample[],
  ref: Sample[],
): string[] {
  const secs = list.map((r) => r.seconds);
  const refSecs = ref.map((r) => r.seconds);
  const rate = (x: number) => Math.round(n / x).toLocaleString("en-US");
  const perRow = (xs: (number | null)[]) =>
    xs.some((x) => x === null) ? "-" : ((median(xs as number[]) / n) * 1e6).toFixed(2);
  const cpu = (xs: Sample[]) => median(xs.map((r) => r.cpuSeconds + r.serverCpuSeconds));
  const isRef = list === ref;
  return [
    source,
    n.toLocaleString("en-US"),
    format === "parquet" ? "parquet (zstd)" : "csv",
    what,
    `${rate(Math.min(...secs))} / ${rate(median(secs))}`,
    isRef
      ? "1"
      : `${(Math.min(...refSecs) / Math.min(...secs)).toFixed(2)}× / ${(median(refSecs) / median(secs)).toFixed(2)}×`,
    perRow(list.map((r) => r.cpuSeconds)),
    what.startsWith("stowage") ? perRow(list.map((r) => r.mainCpuSeconds)) : "-",
    perRow(list.map((r) => r.serverCpuSeconds)),
    perRow(list.map((r) => r.minioCpuSeconds)),
    isRef ? "1" : `${(cpu(ref) / cpu(list)).toFixed(2)}×`,
    what.startsWith("stowage") ? Math.max(...list.map((r) => r.maxRssMb)).toFixed(0) : "-",
    what.startsWith("stowage") ? (list[0]!.bytes / 1e6).toFixed(0) : "-",
  ];
}

/** One measured export, for the targets. */
interface GoalRow {
  source: string;
  format: string;
  thread: string;
  rows: number;
  /** Median reference time ÷ median export time. */
  ratio: number;
  /** Median (client + server) CPU ÷ median (export + server) CPU. */
  cpuRatio: number;
  peakRssMb: number;
}

/**
 * The targets of issue 33 (ratios to the database's own client): MariaDB ≥ 0.5× for
 * Parquet and CSV, SQLite ≥ 0.4×, PostgreSQL Parquet ≥ 0.6× (CSV ≥ 0.5×, the earlier
 * goal); peak RSS ≤ 200 MB and within +10 % from the smallest to the largest `--rows`.
 */
const GOAL = {
  ratio: {
    mysql: { parquet: 0.5, csv: 0.5 },
    sqlite: { parquet: 0.4, csv: 0.4 },
    postgres: { parquet: 0.6, csv: 0.5 },
  } as Record<string, Record<string, number>>,
  rssMb: 200,
  rssGrowth: 0.1,
} as const;

/** Each source/format/thread against the targets, one `targetLine` per check. */
function goalLines(goals: GoalRow[]): string[] {
  const groups = new Map<string, GoalRow[]>();
  for (const g of goals) {
    const k = `${g.source} ${g.format} (thread ${g.thread})`;
    const list = groups.get(k);
    if (list) list.push(g);
    else groups.set(k, [g]);
  }
  const lines: string[] = [];
  for (const [k, list] of groups) {
    const want = GOAL.ratio[list[0]!.source]?.[list[0]!.format] ?? 0.5;
    for (const g of list) {
      const at = `${k}, ${g.rows.toLocaleString("en-US")} rows`;
      lines.push(
        targetLine(`${at}: wall-time ratio (depends on the machine's phase)`, g.ratio, want),
      );
      lines.push(
        targetLine(
          `${at}: CPU ratio incl. the server (the check on a shared machine)`,
          g.cpuRatio,
          want,
        ),
      );
      lines.push(targetLine(`${at}: peak RSS`, g.peakRssMb, GOAL.rssMb, false, " MB"));
    }
    const by = [...list].sort((a, b) => a.rows - b.rows);
    if (by.length > 1) {
      const growth = (by.at(-1)!.peakRssMb / by[0]!.peakRssMb - 1) * 100;
      lines.push(
        targetLine(
          `${k}: peak RSS growth ${by[0]!.rows.toLocaleString("en-US")} → ${by.at(-1)!.rows.toLocaleString("en-US")} rows`,
          growth,
          GOAL.rssGrowth * 100,
          false,
          " %",
        ),
      );
    }
  }
  return lines;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
