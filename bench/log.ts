/**
 * Write-path benchmarks (SPEC §3; issue 33 §1), each a ratio against references measured
 * in this same run, in ≥ 3 alternating rounds (min and median printed):
 * 1. end to end: records/s delivered to a real MinIO at default delivery settings,
 *    the producer yielding to the event loop like an application, vs two references on
 *    the same records, neither of which redacts, batches by hour or delivers anything:
 *    - gzip only: NDJSON lines `JSON.stringify`'d BEFORE the timed part; timed: joining
 *      them into ~1 MiB batches and `gzipSync` at level 6 on the main thread;
 *    - JSON.stringify + gzip (the minimal hand-written pipeline, the target's reference):
 *      timed: building each record object as the Stowage producer builds its own (the same
 *      `fields(i)` payload, plus the timestamp string Stowage adds), `JSON.stringify`,
 *      joining into ~1 MiB batches and `gzipSync` at level 6 on the main thread, one
 *      batch held at a time (the lines of a batch are dropped once it is compressed).
 *    Stowage's timed part: building the records, `await log.write()` each, serialisation
 *    with default redaction, hour batching, gzip level 6 (libuv pool), the SDK's PUTs to
 *    MinIO, until `close()` reported every record delivered.
 *    Printed: each kind's own absolute rate (min, median), the rate ratios, CPU per record
 *    (every thread of the process, and its main thread; Linux) with the CPU ratios to
 *    JSON.stringify + gzip, PUTs per 1M records (objects in the bucket), peak RSS, MinIO's
 *    CPU, and the targets as met / NOT met. Every round of every kind is a fresh plain-Node
 *    process on dist/ (as an application runs the package) that does a warm-up pass and
 *    then the timed one;
 * 2. hot path: ns per `logger.info(message, {six fields})` with the local store and
 *    default redaction vs pino async to /dev/null, and what a child logger adds (wall
 *    time; on Linux also the main thread's CPU time, readable when the machine is loaded,
 *    on which the targets are checked).
 * Needs dist/ (end to end): `npx tsc -p tsconfig.build.json`.
 * Usage: node --expose-gc --import jiti/register bench/log.ts [--records N] [--rounds R] [--only e2e|hot]
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { listKeys } from "../src/export/retrying-store.js";
import { createLogger } from "../src/index.js";
import { minioStoreOf, startMinio, type RunningMinio } from "../test/support/minio-server.js";
import { mainThreadCpuNs, processCpuS, targetLine } from "./_cpu.js";
import { choiceArg, positiveArg, requestFields, rounds, summary } from "./_shared.js";

const ROOT = join(import.meta.dirname, "..");
const E2E_RECORDS = positiveArg("records", 1_000_000);
const ROUNDS = Math.max(3, positiveArg("rounds", 3));
const HOT_CALLS = 200_000;

const fields = requestFields;

interface E2e {
  rate: number;
  /** The warm-up pass's rate: a fresh process, modules loading, JIT cold. */
  coldRate: number;
  delivered: number;
  /** RSS after createLogger of the timed pass (warm-up done, after a GC). */
  baseRss: number;
  /** The process's peak RSS (warm-up included). */
  peakRss: number;
  ok: boolean;
  /** CPU time of the timed pass, every thread of the process (µs). */
  cpuUs: number;
  /** The same, main thread only (null where Linux's schedstat is missing). */
  mainCpuUs: number | null;
  /** The MinIO server's CPU during the whole child, both passes (s; null where /proc is missing). */
  minioCpuS?: number | null;
}

/**
 * One end-to-end round in a fresh plain-Node process on the built package (as an
 * application runs it: `import { createLogger } from "stowage"`, no TypeScript
 * loader), straight to MinIO. argv: kind, records, prefix; MinIO's address and keys in
 * BENCH_MINIO. Every kind runs
 * its work twice — a warm-up pass, then the timed pass — so all three are timed with
 * loaded modules and a warm JIT: the reference gzips in its own process too.
 * - stowage: a logger at defaults; the producer awaits `write()` (backs off 2 ms when
 *   the queue is full, like an app) and yields to the event loop every 500 records;
 *   the time runs from the first write until `close()` reported every record delivered.
 *   The warm-up pass uses its own logger and prefix; the bucket is checked per prefix.
 * - gzip: the same records as NDJSON, built and stringified before the timed part, gzipped
 *   at level 6 in ~1 MiB batches;
 * - stringify: each record built (as the stowage producer does) and `JSON.stringify`'d
 *   inside the timed part into the batch being filled, gzipped the same way.
 */
const E2E_CHILD = `
const [kind, n, prefix] = [process.argv[1], Number(process.argv[2]), process.argv[3]];
const info = JSON.parse(process.env.BENCH_MINIO); // in the environment, not argv: it holds the key
const { gzipSync } = await import("node:zlib");
const fs = await import("node:fs");
const fields = ${requestFields.toString()};
const mainThreadCpuNs = ${mainThreadCpuNs.toString()};
/** CPU of the timed part: the whole process (every thread) and its main thread, µs. */
function cpuSince(start) {
  const all = process.cpuUsage(start.all);
  const main = mainThreadCpuNs(fs);
  return { cpuUs: all.user + all.system, mainCpuUs: main === null || start.main === null ? null : (main - start.main) / 1000 };
}
const cpuStart = () => ({ all: process.cpuUsage(), main: mainThreadCpuNs(fs) });
// NDJSON lines lineAt(0..n-1), gzipped in ~1 MiB batches (the default maxBatchBytes) as they
// come: a batch's lines are joined and compressed, then dropped.
function gzipBatches(lineAt) {
  let chunk = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const l = lineAt(i);
    chunk.push(l);
    bytes += l.length + 1;
    if (bytes >= 1 << 20) {
      gzipSync(chunk.join("\\n") + "\\n", { level: 6 });
      chunk = [];
      bytes = 0;
    }
  }
  if (chunk.length) gzipSync(chunk.join("\\n") + "\\n", { level: 6 });
}
const ts = new Date().toISOString();
const records = () => Array.from({ length: n }, (_, i) => ({ timestamp: ts, level: "info", message: "request completed", data: fields(i) }));
const secs = (t) => Number(process.hrtime.bigint() - t) / 1e9;
async function stowage(pass) {
  const { createLogger, isStowageError } = await import("stowage");
  const log = createLogger({ console: false, destination: "s3", s3: { bucket: info.bucket, prefix: prefix + "/" + pass,
    region: info.region, endpoint: info.endpoint, forcePathStyle: true,
    credentials: { accessKeyId: info.accessKeyId, secretAccessKey: info.secretAccessKey } } });
  globalThis.gc?.(); // as the references do before their timed pass
  const baseRss = process.memoryUsage().rss;
  const c = cpuStart();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const rec = { level: "info", message: "request completed", data: fields(i) };
    for (;;) {
      try { await log.write(rec); break; }
      catch (err) { if (!isStowageError(err, "rejected")) throw err; await new Promise((r) => setTimeout(r, 2)); }
    }
    if (i % 500 === 0) await new Promise((r) => setImmediate(r));
  }
  const res = await log.close({ timeoutMs: 300000 });
  const s = secs(t);
  return { rate: res.destinations.sink.delivered / s, delivered: res.destinations.sink.delivered, baseRss, ok: res.ok, ...cpuSince(c) };
}
function reference(stringify) {
  const prebuilt = stringify ? null : records().map((r) => JSON.stringify(r));
  globalThis.gc?.(); // the warm-up pass's garbage is not the timed pass's cost
  const c = cpuStart();
  const t = process.hrtime.bigint();
  // stringify: each record is built here, as the stowage producer builds its own, and
  // stringified into the batch being filled (the minimal pipeline holds one batch at a time).
  gzipBatches(prebuilt ? (i) => prebuilt[i] : (i) => JSON.stringify({ timestamp: ts, level: "info", message: "request completed", data: fields(i) }));
  return { rate: n / secs(t), delivered: n, baseRss: 0, ok: true, ...cpuSince(c) };
}
const run = (pass) => (kind === "stowage" ? stowage(pass) : Promise.resolve(reference(kind === "stringify")));
const cold = await run("warm-up");
const r = await run("timed");
console.log(JSON.stringify({ ...r, coldRate: cold.rate, peakRss: process.resourceUsage().maxRSS * 1024 }));
`;

type E2eKind = "stowage" | "gzip" | "stringify";

function e2eChild(kind: E2eKind, server: RunningMinio, prefix: string): Promise<E2e> {
  const minio0 = server.pid === undefined ? null : processCpuS(server.pid);
  const { endpoint, accessKeyId, secretAccessKey, region, bucket } = server;
  const info = JSON.stringify({ endpoint, accessKeyId, secretAccessKey, region, bucket });
  const args = ["--expose-gc", "--input-type=module", "-e", E2E_CHILD];
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [...args, kind, String(E2E_RECORDS), prefix],
      {
        cwd: ROOT,
        maxBuffer: 1 << 20,
        env: {
          ...process.env,
          BENCH_MINIO: info,
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
        },
      },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`${kind} round failed: ${stderr.slice(-2000)}`));
        const minio1 = server.pid === undefined ? null : processCpuS(server.pid);
        const r = JSON.parse(stdout.trim().split("\n").pop() ?? "") as E2e;
        resolve({ ...r, minioCpuS: minio0 === null || minio1 === null ? null : minio1 - minio0 });
      },
    ),
  );
}

/** Objects under `prefix` in the bucket (the timed pass's PUTs), counted by listing. */
async function objectsUnder(server: RunningMinio, prefix: string): Promise<number> {
  const store = minioStoreOf(server);
  try {
    return (await listKeys(store, prefix)).length;
  } finally {
    store.close();
  }
}

const GZIP = "gzip only (pre-built NDJSON)";
const STRINGIFY = "JSON.stringify + gzip";

async function endToEnd(): Promise<void> {
  if (!existsSync(join(ROOT, "dist", "index.js")))
    throw new Error("dist/ is missing: run `npm run build` first");
  const server = await startMinio();
  const last: { round?: E2e; prefix?: string } = {};
  const cold: Record<string, number[]> = {};
  const timed: Record<string, E2e[]> = {};
  const child = async (name: string, kind: E2eKind, prefix: string, k: number) => {
    const r = await e2eChild(kind, server, prefix);
    if (k >= 0) {
      (cold[name] ??= []).push(r.coldRate);
      (timed[name] ??= []).push(r);
    }
    return r;
  };
  const results = await rounds(ROUNDS, {
    stowage: async (k) => {
      const prefix = `bench/${Date.now()}-${k}`;
      const r = await child("stowage", "stowage", prefix, k);
      if (!r.ok || r.delivered !== E2E_RECORDS)
        throw new Error(
          `stowage round ${k}: ok=${r.ok}, delivered ${r.delivered} of ${E2E_RECORDS}`,
        );
      Object.assign(last, { round: r, prefix });
      return r.rate;
    },
    [GZIP]: async (k) => (await child(GZIP, "gzip", "", k)).rate,
    [STRINGIFY]: async (k) => (await child(STRINGIFY, "stringify", "", k)).rate,
  });
  console.log(
    `\n-- end to end: ${E2E_RECORDS.toLocaleString()} records to MinIO at defaults, ${ROUNDS} alternating rounds (records/s, wall time; each a fresh process on dist/, timed after a warm-up pass)`,
  );
  const gzipRate = summary(results[GZIP]!).median;
  const strRate = summary(results[STRINGIFY]!).median;
  for (const [name, xs] of Object.entries(results)) {
    const { min, median } = summary(xs);
    console.log(
      `${name.padEnd(30)} min ${Math.round(min).toLocaleString().padStart(9)}  median ${Math.round(median).toLocaleString().padStart(9)}   ` +
        `${(median / strRate).toFixed(2)}× JSON.stringify + gzip, ${(median / gzipRate).toFixed(2)}× gzip-only`,
    );
  }
  const coldRef = summary(cold[GZIP]!).median;
  console.log(
    "the same rounds' warm-up passes (cold: a fresh process loading its modules), medians: " +
      Object.entries(cold)
        .map(([name, xs]) => {
          const m = summary(xs).median;
          return `${name} ${Math.round(m).toLocaleString()} (${(m / coldRef).toFixed(2)}×)`;
        })
        .join(", "),
  );
  const cpu = printCpu(timed, gzipRate);
  const puts = await objectsUnder(server, `${last.prefix!}/timed/`);
  console.log(
    `PUT requests per 1,000,000 records: ${Math.round((puts / E2E_RECORDS) * 1e6).toLocaleString()} (objects in the bucket after the last timed pass)`,
  );
  const mib = (n: number) => n / 1024 / 1024;
  const r = last.round!;
  console.log(
    `peak RSS under load (last stowage round, its whole process): ${mib(r.peakRss).toFixed(0)} MiB; ` +
      `${mib(r.baseRss).toFixed(0)} MiB after createLogger of the timed pass`,
  );
  console.log(
    "targets (issue 33; the CPU ratios do not depend on the machine's phase, wall-time ones do):",
  );
  if (cpu.all !== null)
    console.log(
      `  ${targetLine("CPU per record, all threads, stowage ÷ JSON.stringify + gzip", cpu.all, 1.0, false)}`,
    );
  if (cpu.main !== null) console.log(`  (main thread only, for reading: ${cpu.main.toFixed(2)}×)`);
  console.log(
    `  ${targetLine("records/s (wall time), stowage ÷ JSON.stringify + gzip", summary(results.stowage!).median / strRate, 1.0)}`,
  );
  console.log(`  ${targetLine("peak RSS (MiB)", mib(r.peakRss), 160, false, " MiB")}`);
  await server.stop();
}

/**
 * Where the end-to-end time goes, as CPU per record (medians of the timed passes): each
 * kind's own process (all threads, and its main thread), and MinIO's CPU while the stowage
 * rounds ran (both passes, so divided by twice the records). On a machine with `cores`
 * cores, stowage plus MinIO cannot run faster than cores ÷ (their CPU per record): that
 * bound is printed against the gzip-only reference, so a ratio below the target can be
 * told apart from a loss of throughput to waiting. Returns stowage's CPU per record ÷
 * JSON.stringify + gzip's, all threads and main thread (null where not measured).
 */
function printCpu(
  timed: Record<string, E2e[]>,
  gzipRate: number,
): { all: number | null; main: number | null } {
  const us = (xs: number[]) => summary(xs).median / E2E_RECORDS;
  const perRecord = (rs: E2e[] | undefined) => {
    if (!rs) return { all: null, main: null };
    const mains = rs.map((r) => r.mainCpuUs).filter((x): x is number => x !== null);
    return { all: us(rs.map((r) => r.cpuUs)), main: mains.length === rs.length ? us(mains) : null };
  };
  const ref = perRecord(timed[STRINGIFY]);
  console.log(
    "CPU per record, timed passes (medians; µs, every thread of the process / its main thread):",
  );
  for (const [name, rs] of Object.entries(timed)) {
    const c = perRecord(rs);
    const ratio = (x: number | null, y: number | null) =>
      x === null || y === null ? "–" : `${(x / y).toFixed(2)}×`;
    console.log(
      `${name.padEnd(30)} all ${c.all!.toFixed(2)}  main ${c.main === null ? "–" : c.main.toFixed(2)}   ` +
        `÷ JSON.stringify + gzip: all ${ratio(c.all, ref.all)}, main ${ratio(c.main, ref.main)}`,
    );
  }
  const own = perRecord(timed.stowage);
  const result = {
    all: own.all === null || ref.all === null ? null : own.all / ref.all,
    main: own.main === null || ref.main === null ? null : own.main / ref.main,
  };
  const minio = (timed.stowage ?? [])
    .map((r) => r.minioCpuS)
    .filter((x): x is number => x !== null && x !== undefined);
  if (minio.length === 0 || own.all === null) return result;
  const minioUs = ((summary(minio).median / 2) * 1e6) / E2E_RECORDS;
  const cores = availableParallelism();
  const bound = (cores / (own.all + minioUs)) * 1e6;
  console.log(
    `MinIO's CPU per record under the stowage rounds: ${minioUs.toFixed(2)} µs. ` +
      `On ${cores} cores, stowage + MinIO at ${(own.all + minioUs).toFixed(2)} µs per record ` +
      `can deliver at most ${Math.round(bound).toLocaleString()} records/s = ${(bound / gzipRate).toFixed(2)}× gzip-only`,
  );
  return result;
}

/** CPU ns per call of each measurement's rounds (warm-ups left out): main thread, and every thread. */
const cpuPerCall: Record<string, number[]> = {};
const allCpuPerCall: Record<string, number[]> = {};

function nsPerCall(name: string, round: number, fn: (i: number) => void): number {
  const c = mainThreadCpuNs({ readFileSync });
  const all = process.cpuUsage();
  const t = process.hrtime.bigint();
  for (let i = 0; i < HOT_CALLS; i++) fn(i);
  const ns = Number(process.hrtime.bigint() - t) / HOT_CALLS;
  const allUsed = process.cpuUsage(all);
  const c2 = mainThreadCpuNs({ readFileSync });
  if (round >= 0) {
    (allCpuPerCall[name] ??= []).push(((allUsed.user + allUsed.system) * 1000) / HOT_CALLS);
    if (c !== null && c2 !== null) (cpuPerCall[name] ??= []).push((c2 - c) / HOT_CALLS);
  }
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
    `wall time: a child costs ${((child - parent) / 1000).toFixed(2)} µs a call more than its parent; ` +
      `stowage = ${(parent / base).toFixed(2)}× pino's time per call`,
  );
  console.log(
    "CPU ns/call (same rounds, medians; all threads during the calls / main thread; excludes waiting for a core):",
  );
  for (const n of [PINO, PARENT, CHILD]) {
    const all = summary(allCpuPerCall[n]!).median;
    const main = cpuPerCall[n] ? summary(cpuPerCall[n]).median : null;
    console.log(
      `${n.padEnd(30)} all ${all.toFixed(0).padStart(6)}  main ${main === null ? "–" : main.toFixed(0).padStart(6)}   ` +
        `${(all / summary(allCpuPerCall[PINO]!).median).toFixed(2)}× pino's (all threads)` +
        (main === null || !cpuPerCall[PINO]
          ? ""
          : `, ${(main / summary(cpuPerCall[PINO]).median).toFixed(2)}× (main thread)`),
    );
  }
  // The targets on the main thread's CPU where Linux gives it (the wall-time ratio moves with
  // the machine's load), else on wall time; the line says which.
  const on = cpuPerCall[PINO] && cpuPerCall[PARENT] && cpuPerCall[CHILD] ? cpuPerCall : null;
  const med = (n: string) => (on ? summary(on[n]!).median : summary(results[n]!).median);
  const basis = on ? "main-thread CPU" : "wall time";
  console.log(`targets (hot path, on ${basis}):`);
  console.log(
    `  ${targetLine(`stowage ÷ pino per call (${basis})`, med(PARENT) / med(PINO), 0.6, false)}`,
  );
  console.log(
    `  ${targetLine(`a child's extra cost per call (${basis})`, med(CHILD) - med(PARENT), 300, false, " ns")}`,
  );
}

const only = choiceArg("only", ["all", "e2e", "hot"], "all");
if (only !== "hot") await endToEnd();
if (only !== "e2e") await hotPath();
