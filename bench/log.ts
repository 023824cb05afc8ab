/**
 * Write-path benchmarks (SPEC §3), each a ratio against references measured
 * in this same run, in ≥ 3 alternating rounds (min and median printed):
 * 1. end to end: records/s delivered to a real MinIO at default delivery settings,
 *    the producer yielding to the event loop like an application, vs two
 *    references on the same records — gzip only (pre-built NDJSON, 1 MiB batches)
 *    and JSON.stringify + gzip; plus PUTs per 1M records and peak RSS — measured in a
 *    fresh child process that runs only the logger, because the reference inputs built
 *    in this process (and the fault proxy) leave the heap, and so RSS, grown for good;
 * 2. hot path: ns per `logger.info(message, {six fields})` with the local store and
 *    default redaction vs pino async to /dev/null, and what a child logger adds (wall
 *    time; on Linux also the main thread's CPU time, readable when the machine is loaded).
 * Usage: node --expose-gc --import jiti/register bench/log.ts [--records N] [--rounds R] [--only e2e|hot]
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import pino from "pino";
import { createLogger, isStowageError } from "../src/index.js";
import { startMinio, type MinioInfo } from "../test/support/minio-server.js";
import { startFaultProxy } from "../test/support/fault-proxy.js";
import { positiveArg, requestFields, rounds, summary } from "./_shared.js";

const E2E_RECORDS = positiveArg("records", 200_000);
const ROUNDS = Math.max(3, positiveArg("rounds", 3));
const HOT_CALLS = 200_000;
/** Records between yields of the producer (an app handling requests yields far more often). */
const YIELD_EVERY = 500;

const fields = requestFields;
const seconds = (t: bigint) => Number(process.hrtime.bigint() - t) / 1e9;
const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

function records(n: number) {
  const ts = new Date().toISOString();
  return Array.from({ length: n }, (_, i) => ({
    timestamp: ts,
    level: "info",
    message: "request completed",
    data: fields(i),
  }));
}

/** gzip in ~1 MiB batches, the default maxBatchBytes. */
function gzipBatches(lines: string[]): void {
  let chunk: string[] = [];
  let bytes = 0;
  for (const l of lines) {
    chunk.push(l);
    bytes += l.length + 1;
    if (bytes >= 1 << 20) {
      gzipSync(chunk.join("\n") + "\n", { level: 6 });
      chunk = [];
      bytes = 0;
    }
  }
  if (chunk.length) gzipSync(chunk.join("\n") + "\n", { level: 6 });
}

interface E2e {
  rate: number;
  puts: number;
  delivered: number;
  /** RSS after createLogger (and a GC), before the first record. */
  baseRss: number;
  peakRss: number;
  ok: boolean;
}

async function stowageRound(server: MinioInfo, endpoint: string, k: number): Promise<E2e> {
  const log = createLogger({
    console: false,
    destination: "s3",
    s3: {
      bucket: server.bucket,
      prefix: `bench/${Date.now()}-${k}`,
      region: server.region,
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    },
  });
  globalThis.gc?.();
  const baseRss = process.memoryUsage().rss;
  let peakRss = baseRss;
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < E2E_RECORDS; i++) {
    const rec = { level: "info" as const, message: "request completed", data: fields(i) };
    for (;;) {
      try {
        await log.write(rec);
        break;
      } catch (err) {
        if (!isStowageError(err, "rejected")) throw err;
        await new Promise((r) => setTimeout(r, 2)); // queue full: delivery is behind; back off like an app would
      }
    }
    if (i % YIELD_EVERY === 0) await yieldToLoop();
  }
  const res = await log.close({ timeoutMs: 300_000 });
  const s = seconds(t0);
  clearInterval(rssTimer);
  const d = res.destinations.sink;
  return { rate: d.delivered / s, puts: 0, delivered: d.delivered, baseRss, peakRss, ok: res.ok };
}

/** One stowage round in a fresh process (this file with --rss-child), straight to MinIO. */
function childRound(server: MinioInfo): Promise<E2e> {
  const { endpoint, port, accessKeyId, secretAccessKey, region, bucket } = server;
  const info = { endpoint, port, accessKeyId, secretAccessKey, region, bucket };
  const args = [
    ...process.execArgv,
    fileURLToPath(import.meta.url),
    "--rss-child",
    JSON.stringify(info),
    "--records",
    String(E2E_RECORDS),
  ];
  return new Promise((resolve, reject) =>
    execFile(process.execPath, args, { maxBuffer: 1 << 20 }, (err, stdout) => {
      if (err) return reject(err);
      const last = stdout.trim().split("\n").pop() ?? "";
      resolve(JSON.parse(last) as E2e);
    }),
  );
}

async function endToEnd(): Promise<void> {
  const server = await startMinio();
  const proxy = await startFaultProxy(server.endpoint); // forwards everything; counts PUTs
  // Reference inputs are built per round, untimed, and dropped after: they do not inflate stowage's RSS.
  const results = await rounds(ROUNDS, {
    stowage: async (k) => (await stowageRound(server, proxy.endpoint, k)).rate,
    "gzip only (pre-built NDJSON)": () => {
      const prebuilt = records(E2E_RECORDS).map((r) => JSON.stringify(r));
      const t = process.hrtime.bigint();
      gzipBatches(prebuilt);
      return Promise.resolve(E2E_RECORDS / seconds(t));
    },
    "JSON.stringify + gzip": () => {
      const recs = records(E2E_RECORDS);
      const t = process.hrtime.bigint();
      gzipBatches(recs.map((r) => JSON.stringify(r)));
      return Promise.resolve(E2E_RECORDS / seconds(t));
    },
  });
  const last = await childRound(server);
  console.log(
    `\n-- end to end: ${E2E_RECORDS.toLocaleString()} records to MinIO at defaults, ${ROUNDS} alternating rounds (records/s)`,
  );
  const ref = summary(results["gzip only (pre-built NDJSON)"]!).median;
  for (const [name, xs] of Object.entries(results)) {
    const { min, median } = summary(xs);
    console.log(
      `${name.padEnd(30)} min ${Math.round(min).toLocaleString().padStart(9)}  median ${Math.round(median).toLocaleString().padStart(9)}   ${(median / ref).toFixed(2)}× gzip-only (target stowage ≥ 1.0×)`,
    );
  }
  const puts = proxy.counts.put ?? 0;
  const delivered = (ROUNDS + 1) * E2E_RECORDS; // warm-up + rounds went through the proxy
  console.log(
    `PUT requests per 1,000,000 records: ${Math.round((puts / delivered) * 1e6).toLocaleString()}; last round ok=${last.ok}`,
  );
  const mib = (n: number) => (n / 1024 / 1024).toFixed(0);
  console.log(
    `peak RSS under load (a fresh process, one round, ${Math.round(last.rate).toLocaleString()} records/s): ${mib(last.peakRss)} MiB ` +
      `(target ≤ 160 MiB; includes the TypeScript loader); ${mib(last.peakRss - last.baseRss)} MiB over the same process after createLogger (${mib(last.baseRss)} MiB)`,
  );
  await proxy.close();
  await server.stop();
}

/**
 * CPU time of this process's main thread so far (ns), from Linux's schedstat; null elsewhere.
 * Unlike wall time it does not count waiting for a core, so it stays readable on a loaded
 * machine; it leaves out work on other threads (stowage's gzip, pino's libuv writes).
 */
function mainThreadCpuNs(): number | null {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]);
  } catch {
    return null;
  }
}

/** Main-thread CPU ns per call of each measurement's rounds (warm-ups left out). */
const cpuPerCall: Record<string, number[]> = {};

function nsPerCall(name: string, round: number, fn: (i: number) => void): number {
  const c = mainThreadCpuNs();
  const t = process.hrtime.bigint();
  for (let i = 0; i < HOT_CALLS; i++) fn(i);
  const ns = Number(process.hrtime.bigint() - t) / HOT_CALLS;
  const c2 = mainThreadCpuNs();
  if (round >= 0 && c !== null && c2 !== null) (cpuPerCall[name] ??= []).push((c2 - c) / HOT_CALLS);
  return ns;
}

async function hotPath(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "stowage-bench-"));
  const make = () =>
    createLogger({
      console: false,
      destination: "local",
      local: { path: dir, delivery: { maxQueueBytes: "512MiB" } },
    });
  const p = pino(pino.destination({ dest: "/dev/null", sync: false }));
  const timed = async (
    name: string,
    round: number,
    fn: (log: ReturnType<typeof make>) => (i: number) => void,
  ) => {
    const log = make();
    const ns = nsPerCall(name, round, fn(log));
    await log.close();
    return ns;
  };
  const PINO = "pino → /dev/null";
  const PARENT = "stowage (default redaction)";
  const CHILD = "stowage child";
  const results = await rounds(ROUNDS, {
    [PINO]: (k) =>
      Promise.resolve(nsPerCall(PINO, k, (i) => p.info(fields(i), "request completed"))),
    [PARENT]: (k) => timed(PARENT, k, (log) => (i) => log.info("request completed", fields(i))),
    [CHILD]: (k) =>
      timed(CHILD, k, (log) => {
        const child = log.child({ requestId: "r-1", tenant: "acme" });
        return (i) => child.info("request completed", fields(i));
      }),
  });
  rmSync(dir, { recursive: true, force: true });
  const base = summary(results[PINO]!).median;
  console.log(
    `\n-- hot path: ${HOT_CALLS.toLocaleString()} calls of info(message, {6 fields}), local store, ${ROUNDS} alternating rounds (ns/call, wall time)`,
  );
  for (const [name, xs] of Object.entries(results)) {
    const { min, median } = summary(xs);
    console.log(
      `${name.padEnd(30)} min ${min.toFixed(0).padStart(6)}  median ${median.toFixed(0).padStart(6)}   ${(base / median).toFixed(2)}× pino's speed`,
    );
  }
  const parent = summary(results[PARENT]!).median;
  const child = summary(results[CHILD]!).median;
  console.log(
    `a child costs ${((child - parent) / 1000).toFixed(2)} µs a call more than its parent (target ≤ 0.3 µs); ` +
      `stowage = ${(parent / base).toFixed(2)}× pino's time per call (target ≤ 0.6×)`,
  );
  if (cpuPerCall[PINO] && cpuPerCall[PARENT] && cpuPerCall[CHILD]) {
    const cpu = (n: string) => summary(cpuPerCall[n]!);
    console.log(
      "main-thread CPU ns/call (same rounds; excludes waiting for a core and other threads' work):",
    );
    for (const n of [PINO, PARENT, CHILD]) {
      const { min, median } = cpu(n);
      console.log(
        `${n.padEnd(30)} min ${min.toFixed(0).padStart(6)}  median ${median.toFixed(0).padStart(6)}   ${(median / cpu(PINO).median).toFixed(2)}× pino's main-thread time`,
      );
    }
  }
}

const only = process.argv.includes("--only")
  ? process.argv[process.argv.indexOf("--only") + 1]
  : undefined;
const rssChild = process.argv.indexOf("--rss-child");
if (rssChild >= 0) {
  const server = JSON.parse(process.argv[rssChild + 1]!) as MinioInfo;
  console.log(JSON.stringify(await stowageRound(server, server.endpoint, 98)));
} else {
  if (!only || only === "e2e") await endToEnd();
  if (!only || only === "hot") await hotPath();
}
