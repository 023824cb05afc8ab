/**
 * Compaction benchmark (issue 32 §3, docs/compaction.md): a day of logs written by the real
 * logger to a real MinIO (default 2,000,000 records over 24 hours, objects of ≤ 5,000
 * records as the write path makes them) is compacted MinIO → MinIO by `stowage compact`
 * (the built CLI, its own process) and, as the reference, by ClickHouse (chdb, its own
 * process) doing the same conversion — `INSERT INTO FUNCTION s3(…/hour={_partition_id}/…,
 * 'Parquet') SELECT … FROM s3(…v1 day…, 'JSONEachRow') ORDER BY timestamp` — in
 * alternating rounds. Printed: records/s of both and the ratio, CPU µs per record (user +
 * system, all threads) and peak RSS of each process (`/usr/bin/time`); then the bytes an
 * engine downloads for level counts over the day (ClickHouse through a byte-counting proxy)
 * from the Parquet vs from the v1 NDJSON, and objects per day before and after.
 *
 * Usage: node --import jiti/register bench/compact.ts [--records 2000000] [--hours 24] [--rounds 2]
 * (`npm run bench -- compact`). `dist/` must be built (`npx tsc -p tsconfig.build.json`).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { queryAsync } from "chdb";
import { createLogger } from "../src/index.js";
import { targetLine } from "./_cpu.js";
import { requestFields, positiveArg, rounds, summary } from "./_shared.js";
import {
  minioS3Destination,
  minioStoreOf,
  startMinio,
  type RunningMinio,
} from "../test/support/minio-server.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const RECORDS = positiveArg("records", 2_000_000);
const HOURS = Math.min(24, positiveArg("hours", 24));
const ROUNDS = positiveArg("rounds", 2);
const DAY = Date.UTC(2026, 10, 3);
const H = 3_600_000;
const LEVELS = ["info", "info", "info", "info", "info", "info", "debug", "warning", "error"];

interface Measured {
  wallS: number;
  cpuS: number;
  maxRssKiB: number;
  stdout: string;
}

/** What the stowage process's memory was made of at its highest sampled RSS (`_peak-memory.mjs`), bytes. */
interface PeakMemory {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  atS: number;
}

/** Runs a command under /usr/bin/time: wall, user + system CPU, peak RSS. */
function timed(cmd: string, args: string[], env: Record<string, string>): Promise<Measured> {
  return new Promise((resolve, reject) => {
    execFile(
      "/usr/bin/time",
      ["-f", "@@time %e %U %S %M", cmd, ...args],
      { env: { ...process.env, ...env }, maxBuffer: 256 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const m = /@@time ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
        if (err || !m)
          return reject(new Error(`${cmd} ${args.join(" ")} failed: ${stderr.slice(-2000)}`));
        resolve({
          wallS: Number(m[1]),
          cpuS: Number(m[2]) + Number(m[3]),
          maxRssKiB: Number(m[4]),
          stdout,
        });
      },
    );
  });
}

async function writeDay(m: RunningMinio, prefix: string): Promise<void> {
  const log = createLogger({
    console: false,
    level: "debug",
    service: "orders",
    destination: "s3",
    s3: minioS3Destination(m, prefix),
  });
  const span = HOURS * H;
  for (let i = 0; i < RECORDS; i++) {
    const level = LEVELS[i % LEVELS.length]!;
    const rec = {
      timestamp: new Date(
        DAY + Math.min(span - 1, Math.floor((i / RECORDS) * span) + (i % 997)),
      ).toISOString(),
      level: level as "info",
      message: level === "error" ? "payment provider timed out" : "request completed",
      data: requestFields(i),
    };
    await log.write(rec);
    if (i % 50_000 === 49_999) await log.flush();
  }
  const r = await log.close();
  if (!r.ok) throw new Error(`writing the day failed: ${JSON.stringify(r)}`);
}

/** A proxy in front of MinIO counting the response bytes it forwards. */
async function byteCounter(target: string) {
  const up = new URL(target);
  let bytes = 0;
  let gets = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const fwd = request(
      { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers },
      (ur) => {
        if (req.method === "GET") gets++;
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        ur.on("data", (c: Buffer) => (bytes += c.length));
        ur.pipe(res);
      },
    );
    fwd.on("error", () => res.socket?.destroy());
    req.pipe(fwd);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    take: () => {
      const out = { bytes, gets };
      bytes = 0;
      gets = 0;
      return out;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function sizeOf(m: RunningMinio, prefix: string, suffix: string) {
  const store = minioStoreOf(m);
  let n = 0;
  let bytes = 0;
  let token: string | undefined;
  do {
    const page = await store.list({ prefix, continuationToken: token });
    for (const e of page.entries.filter((x) => x.key.endsWith(suffix))) {
      n++;
      bytes += e.size;
    }
    token = page.nextContinuationToken;
  } while (token);
  store.close();
  return { n, bytes };
}

const CH_SCRIPT = `
// The synchronous query: a process that ends after queryAsync over s3() dies of SIGSEGV in
// chdb 3.4.0's teardown (the query itself completes), which would hide a real failure.
const { query } = require("chdb");
const [url, key, secret, src, dst] = process.argv.slice(1);
query(\`INSERT INTO FUNCTION s3('\${url}/\${dst}/hour={_partition_id}/part.parquet', '\${key}', '\${secret}', 'Parquet')
  PARTITION BY toHour(timestamp)
  SELECT parseDateTime64BestEffort(timestamp, 3, 'UTC') AS timestamp, level, message, service, caller, traceId, spanId, data, bindings, error
  FROM s3('\${url}/\${src}', '\${key}', '\${secret}', 'JSONEachRow',
          'timestamp String, level String, message String, service Nullable(String), caller Nullable(String), traceId Nullable(String), spanId Nullable(String), data Nullable(String), bindings Nullable(String), error Nullable(String)')
  ORDER BY timestamp
  SETTINGS output_format_parquet_compression_method = 'zstd', s3_truncate_on_insert = 1, input_format_json_read_objects_as_strings = 1\`, "CSV");
`;

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, "dist", "index.js")))
    throw new Error("dist/ is missing: run `npx tsc -p tsconfig.build.json` first");
  const m = await startMinio();
  const prefix = `bench/compact-${Date.now()}`;
  const t0 = performance.now();
  await writeDay(m, prefix);
  const v1 = await sizeOf(m, `${prefix}/v1/`, ".ndjson.gz");
  const v1Objects = v1.n;
  console.log(
    `wrote ${RECORDS.toLocaleString()} records over ${HOURS} hour(s) of 2026-11-03 in ${v1Objects} v1 objects (${((performance.now() - t0) / 1000).toFixed(1)} s, the real logger at defaults)`,
  );
  const env: Record<string, string> = { BENCH_AK: m.accessKeyId, BENCH_SK: m.secretAccessKey };
  // `--cpu-prof DIR`: V8 CPU profiles of the stowage runs, for finding where the time goes.
  const prof = process.argv.indexOf("--cpu-prof");
  const profArgs = prof > 0 ? ["--cpu-prof", `--cpu-prof-dir=${process.argv[prof + 1]}`] : [];
  const runs: Record<string, Measured[]> = { stowage: [], clickhouse: [] };
  const peaks: PeakMemory[] = [];
  const peakDir = mkdtempSync(join(tmpdir(), "stowage-bench-peak-"));
  const results = await rounds(ROUNDS, {
    stowage: async (k) => {
      const peakFile = join(peakDir, `round-${k}.json`);
      const r = await timed(
        process.execPath,
        [
          ...profArgs,
          join(ROOT, "bin", "stowage.js"),
          "compact",
          "--source",
          `s3://${m.bucket}/${prefix}`,
          "--endpoint",
          m.endpoint,
          "--region",
          m.region,
          "--force-path-style",
          "--access-key-env",
          "BENCH_AK",
          "--secret-key-env",
          "BENCH_SK",
          "--dest",
          `${prefix}/parquet-${k < 0 ? "warm" : k}`,
          "--from",
          new Date(DAY).toISOString(),
          "--to",
          new Date(DAY + 24 * H).toISOString(),
          "--settle",
          "0",
          "--json",
        ],
        {
          ...env,
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${pathToFileURL(join(ROOT, "bench", "_peak-memory.mjs")).href}`,
          STOWAGE_BENCH_PEAK_FILE: peakFile,
        },
      );
      if (k >= 0 && existsSync(peakFile))
        peaks.push(JSON.parse(readFileSync(peakFile, "utf8")) as PeakMemory);
      const s = JSON.parse(r.stdout) as { ok: boolean; totals: { rows: number } };
      if (!s.ok || s.totals.rows !== RECORDS)
        throw new Error(`stowage compact round ${k}: ok=${s.ok}, ${s.totals.rows} rows`);
      if (k >= 0) runs.stowage!.push(r);
      return RECORDS / r.wallS;
    },
    clickhouse: async (k) => {
      const r = await timed(
        process.execPath,
        [
          "-e",
          CH_SCRIPT,
          m.endpoint + "/" + m.bucket,
          m.accessKeyId,
          m.secretAccessKey,
          `${prefix}/v1/2026/11/03/*/*.ndjson.gz`,
          `${prefix}/chparquet-${k < 0 ? "warm" : k}`,
        ],
        { NODE_PATH: join(ROOT, "node_modules") },
      );
      if (k >= 0) runs.clickhouse!.push(r);
      return RECORDS / r.wallS;
    },
  });
  const med = (xs: number[]) => summary(xs).median;
  const ours = med(results.stowage!);
  const ref = med(results.clickhouse!);
  console.log(
    `\n-- compaction MinIO → MinIO, ${RECORDS.toLocaleString()} records, ${ROUNDS} alternating rounds (each a fresh process)`,
  );
  for (const [name, xs] of Object.entries(results)) {
    const { min, median } = summary(xs);
    const r = runs[name]!;
    const cpu = med(r.map((x) => (x.cpuS * 1e6) / RECORDS));
    const rss = Math.max(...r.map((x) => x.maxRssKiB)) / 1024;
    console.log(
      `${name.padEnd(11)} records/s min ${Math.round(min).toLocaleString().padStart(9)}  median ${Math.round(median).toLocaleString().padStart(9)}   CPU ${cpu.toFixed(2)} µs/record   peak RSS ${rss.toFixed(0)} MiB`,
    );
  }
  const cpuOf = (name: string) => med(runs[name]!.map((x) => (x.cpuS * 1e6) / RECORDS));
  const peakMiB = Math.max(...runs.stowage!.map((x) => x.maxRssKiB)) / 1024;
  console.log(
    `reference ClickHouse: ${Math.round(ref).toLocaleString()} records/s, ${cpuOf("clickhouse").toFixed(2)} µs CPU/record (both processes use both cores)\n` +
      `${targetLine("speed stowage ÷ ClickHouse, records/s (wall)", ours / ref, 0.5)}\n` +
      `${targetLine("speed stowage ÷ ClickHouse, per CPU second (ClickHouse CPU/record ÷ ours; phase-independent)", cpuOf("clickhouse") / cpuOf("stowage"), 0.5)}\n` +
      `${targetLine(`peak RSS of stowage compact, MiB (${RECORDS.toLocaleString()} records over ${HOURS} h; the goal is for 10M in one hour)`, peakMiB, 256, false, " MiB")}`,
  );
  rmSync(peakDir, { recursive: true, force: true });
  const peakMiBOf = (b: number) => (b / 1048576).toFixed(0);
  for (const [i, p] of peaks.entries())
    console.log(
      `  stowage round ${i + 1}, at its highest sampled RSS (${peakMiBOf(p.rss)} MiB, ${p.atS.toFixed(1)} s in): V8 heap ${peakMiBOf(p.heapTotal)} MiB committed (${peakMiBOf(p.heapUsed)} used, live and not yet collected), external ${peakMiBOf(p.external)} MiB (ArrayBuffers ${peakMiBOf(p.arrayBuffers)}: zstd's wasm memory, arenas, Parquet scratch, zlib output not yet collected), the rest ${peakMiBOf(p.rss - p.heapTotal - p.external)} MiB (code, native allocations)`,
    );

  // What an engine reads for level counts over the day: Parquet vs the v1 NDJSON.
  const proxy = await byteCounter(m.endpoint);
  const s3 = (glob: string, fmt: string) =>
    `s3('${proxy.url}/${m.bucket}/${glob}', '${m.accessKeyId}', '${m.secretAccessKey}', '${fmt}')`;
  // The answer, the engine's own read_bytes (statistics of FORMAT JSON) and the bytes the
  // proxy forwarded (what crossed the network, ClickHouse's range reads coalesced).
  const q = async (sql: string, settings = "") => {
    const res = await queryAsync(`${sql} ${settings} FORMAT JSON`, { format: "JSON" });
    const out = JSON.parse(res.text()) as {
      data: unknown[];
      statistics: { bytes_read: number };
    };
    return {
      text: JSON.stringify(out.data),
      readBytes: out.statistics.bytes_read,
      ...proxy.take(),
    };
  };
  const levelsOf = (src: string) =>
    `SELECT level, count() AS n FROM ${src} GROUP BY level ORDER BY level`;
  const pq = await q(levelsOf(s3(`${prefix}/parquet-0/dt=2026-11-03/hour=*/*.parquet`, "Parquet")));
  // The same query reading only the column chunks it needs (no read-through of gaps < 4 MiB).
  const pqSeek = await q(
    levelsOf(s3(`${prefix}/parquet-0/dt=2026-11-03/hour=*/*.parquet`, "Parquet")),
    "SETTINGS remote_read_min_bytes_for_seek = 0",
  );
  const nd = await q(levelsOf(s3(`${prefix}/v1/2026/11/03/*/*.ndjson.gz`, "JSONEachRow")));
  const ch = await q(levelsOf(s3(`${prefix}/chparquet-0/hour=*/*.parquet`, "Parquet")));
  for (const other of [pqSeek, nd, ch])
    if (other.text !== pq.text)
      throw new Error(`the answers differ:\n${pq.text}\n---\n${other.text}`);
  const pqSize = await sizeOf(m, `${prefix}/parquet-0/dt=`, ".parquet");
  const chSize = await sizeOf(m, `${prefix}/chparquet-0/`, ".parquet");
  const parts = pqSize.n;
  const mib = (n: number) => (n / 1024 / 1024).toFixed(2);
  const line = (name: string, r: typeof pq) =>
    `${name.padEnd(44)} network ${mib(r.bytes).padStart(8)} MiB in ${String(r.gets).padStart(4)} GETs (${(r.bytes / nd.bytes).toFixed(3)}×)   ClickHouse read_bytes ${mib(r.readBytes).padStart(8)} MiB (${(r.readBytes / nd.readBytes).toFixed(4)}×)`;
  console.log(
    `\n-- level counts over the day through ClickHouse (the same answer from each; ratios to the v1 NDJSON; target ≤ 0.05×)\n` +
      `${line("v1 NDJSON (gzip)", nd)}\n${line("stowage Parquet", pq)}\n` +
      `${line("stowage Parquet, remote_read_min_bytes_for_seek=0", pqSeek)}\n` +
      `${line("ClickHouse's own Parquet (reference)", ch)}\n` +
      `${targetLine("engine bytes read for level counts, stowage Parquet ÷ v1 NDJSON (ClickHouse read_bytes)", pq.readBytes / nd.readBytes, 0.05, false)}\n` +
      `objects per day: ${v1Objects} v1 objects before, ${parts} Parquet parts after (${(v1Objects / parts).toFixed(0)}× fewer)\n` +
      `stored: v1 ${mib(v1.bytes)} MiB, stowage Parquet ${mib(pqSize.bytes)} MiB (${(pqSize.bytes / v1.bytes).toFixed(2)}×), ClickHouse's Parquet ${mib(chSize.bytes)} MiB (${(chSize.bytes / v1.bytes).toFixed(2)}×)`,
  );
  await proxy.close();
  await m.stop();
}

await main();
