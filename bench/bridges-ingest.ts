/**
 * Ingestion benchmark (issue 33): records/s accepted by `createIngestHandler` (Node form),
 * its logger at defaults shipping to S3 (a MinIO started by this benchmark), against a
 * reference handler that reads the same body and `JSON.parse`s each line but keeps nothing
 * (the HTTP + parse ceiling: no validation, no logger, no storage). Each request is an
 * NDJSON body of 100 records with a token, from 50 concurrent clients (autocannon in its
 * own process, loopback). Each measurement is a fresh server process running plain Node on
 * the built package (`stowage/ingest` from dist/), warmed up for one second, then loaded
 * for `--seconds`; it reports its CPU over the measured run, all threads and the main
 * thread. After an ingest run every accepted record must be in the bucket (the run's
 * prefix is read back and its records counted) and none refused, or the run fails.
 * Target: the handler reaches ≥ 0.4× the reference's records/s (wall time, medians of the
 * alternating rounds); CPU per record is printed beside it (all threads, main thread) with
 * the CPU ratio, which does not move with the machine's phase. On Linux with two or more
 * CPUs the server runs on CPU 0, autocannon and MinIO on CPU 1 (`--pin off`: unpinned).
 * `--prof DIR` writes a V8 CPU profile of every measured run there.
 *
 * Then the server's CPU per MiB of body (issue 31 §1: a hostile 1 MiB body of `x` lines
 * cost 3.25 s, a valid one 0.08–0.32 s), in this process with a local-directory store: a
 * client in its own process posts each body `--requests` times in sequence, and the CPU of
 * this process (all threads, and the main thread) is read around the run; hostile shapes
 * are printed as a ratio against the valid body.
 *
 * `--no-mib` skips the CPU-per-MiB part.
 *
 * Needs dist/ (`npx tsc -p tsconfig.build.json`).
 * Usage: node --import jiti/register bench/bridges-ingest.ts [--rounds 3] [--seconds 3] [--requests 10] [--pin on|off] [--prof DIR] [--no-mib]
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { createLogger } from "../src/index.js";
import { createIngestHandler } from "../src/ingest.js";
import { cpuMark, cpuSince, mainThreadCpuNs, processCpuS, targetLine } from "./_cpu.js";
import { choiceArg, positiveArg, summary } from "./_shared.js";
import {
  alternate,
  autocannonRun,
  median,
  min,
  onCpu,
  pinning,
  recordsInBucket,
  startBenchMinio,
  type LoadOptions,
} from "./_bridges.js";

const ROUNDS = positiveArg("rounds", 3);
const SECONDS = positiveArg("seconds", 3);
const PER_REQUEST = 100;
const TOKEN = "bench-token-123456";
const ROOT = join(import.meta.dirname, "..");
const PIN = choiceArg("pin", ["on", "off"], "on") === "on" ? pinning() : undefined;
const profAt = process.argv.indexOf("--prof");
const PROF = profAt >= 0 ? resolve(process.argv[profAt + 1]!) : undefined;
if (PROF) mkdirSync(PROF, { recursive: true });
if (!existsSync(join(ROOT, "dist", "ingest.js")))
  throw new Error("dist/ is missing: run `npx tsc -p tsconfig.build.json` first");

const body =
  Array.from({ length: PER_REQUEST }, (_, i) =>
    JSON.stringify({
      timestamp: new Date().toISOString(),
      level: "info",
      message: "page event",
      data: { id: i, page: "/cart", ms: i * 3 },
    }),
  ).join("\n") + "\n";
const LOAD: LoadOptions = {
  connections: 50,
  seconds: SECONDS,
  cpu: PIN?.load,
  method: "POST",
  body,
  headers: { "x-stowage-token": TOKEN, "content-type": "application/x-ndjson" },
};

/**
 * The server, run by plain `node` in the package directory. argv: variant (reference |
 * ingest), the S3 prefix; MinIO's address and keys in the environment. Prints `{"url"}`
 * when listening; a line on stdin marks the start of the measured run; when stdin ends it
 * closes the server and the logger and prints the CPU from the mark (all threads, main
 * thread, µs), the handler's counts and what the logger delivered.
 */
const SERVER = `
const [variant, prefix] = process.argv.slice(1);
const fs = await import("node:fs");
const { createServer } = await import("node:http");
const mainThreadCpuNs = ${mainThreadCpuNs.toString()};
let handler, log = null;
if (variant === "reference") {
  // Reads the body and JSON-parses each line; keeps nothing.
  handler = (req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      let n = 0;
      for (const line of Buffer.concat(chunks).toString("utf8").split("\\n"))
        if (line) n += JSON.parse(line) ? 1 : 0;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ accepted: n }));
    });
  };
} else {
  const m = JSON.parse(process.env.BENCH_MINIO);
  const { createLogger } = await import("stowage");
  const { createIngestHandler } = await import("stowage/ingest");
  log = createLogger({ console: false, destination: "s3", s3: { bucket: m.bucket, prefix, region: m.region,
    endpoint: m.endpoint, forcePathStyle: true, credentials: { accessKeyId: m.accessKeyId, secretAccessKey: m.secretAccessKey } } });
  handler = createIngestHandler(log, { auth: { token: ${JSON.stringify(TOKEN)} } });
}
const server = createServer(handler);
await new Promise((r) => server.listen(0, "127.0.0.1", r));
console.log(JSON.stringify({ url: "http://127.0.0.1:" + server.address().port + "/ingest" }));
const prof = process.env.BENCH_PROF ? new (await import("node:inspector")).Session() : null;
const post = (m, p) => new Promise((r, j) => prof.post(m, p, (e, v) => (e ? j(e) : r(v))));
if (prof) { prof.connect(); await post("Profiler.enable"); }
let mark = null, mainMark = null;
process.stdin.setEncoding("utf8");
process.stdin.on("data", async () => {
  if (prof) await post("Profiler.start");
  mark = process.cpuUsage();
  mainMark = mainThreadCpuNs(fs);
  console.log(JSON.stringify({ marked: true }));
});
process.stdin.on("end", async () => {
  const cpu = process.cpuUsage(mark);
  const main = mainThreadCpuNs(fs);
  if (prof) fs.writeFileSync(process.env.BENCH_PROF, JSON.stringify((await post("Profiler.stop")).profile));
  await new Promise((r) => server.close(r));
  const r = log ? await log.close({ timeoutMs: 120000 }) : null;
  const st = handler.stats ? handler.stats() : null;
  console.log(JSON.stringify({ cpuUs: cpu.user + cpu.system, mainUs: main === null || mainMark === null ? null : (main - mainMark) / 1000,
    accepted: st ? st.accepted : 0, refused: st ? st.rejected.refused : 0, delivered: r ? r.destinations.sink.delivered : 0, ok: r ? r.ok : true }));
  process.exit(0);
});
`;

const { minio, store } = await startBenchMinio(PIN?.load);

interface Run {
  /** Records/s of the measured run (responses × records per body). */
  rate: number;
  /** Server CPU per record, µs: all threads and the main thread. */
  cpuUs: number;
  mainUs: number | null;
  minioUs: number | null;
  accepted: number;
  inBucket: number;
}

type Variant = "reference" | "ingest";
let runs = 0;

async function measure(variant: Variant): Promise<Run> {
  const prefix = `bench/ingest-${Date.now()}-${runs++}`;
  const child = spawn(
    ...onCpu(PIN?.server, process.execPath, ["--input-type=module", "-e", SERVER, variant, prefix]),
    {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "inherit"],
      env: {
        ...process.env,
        BENCH_MINIO: JSON.stringify(minio),
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
        ...(PROF ? { BENCH_PROF: join(PROF, `ingest-${variant}-${runs}.cpuprofile`) } : {}),
      },
    },
  );
  const exited = new Promise((r) => child.once("exit", r));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`ingest server (${variant}) exited early`);
    return JSON.parse(value as string) as Record<string, unknown>;
  };
  try {
    const { url } = (await next()) as { url: string };
    await autocannonRun(url, { ...LOAD, seconds: 1 });
    child.stdin.write("mark\n");
    await next();
    const m0 = minio.pid === undefined ? null : processCpuS(minio.pid);
    const run = await autocannonRun(url, LOAD);
    child.stdin.end();
    const end = (await next()) as {
      cpuUs: number;
      mainUs: number | null;
      accepted: number;
      refused: number;
      delivered: number;
      ok: boolean;
    };
    const m1 = minio.pid === undefined ? null : processCpuS(minio.pid);
    let inBucket = 0;
    if (variant === "ingest") {
      inBucket = await recordsInBucket(store, prefix);
      if (!end.ok || end.refused > 0 || inBucket !== end.accepted || end.accepted === 0)
        throw new Error(
          `ingest: ${end.accepted} records accepted, ${inBucket} in the bucket (${end.delivered} reported delivered), ${end.refused} refused, ok=${end.ok}`,
        );
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    const records = run.responses * PER_REQUEST;
    return {
      rate: run.rps * PER_REQUEST,
      cpuUs: end.cpuUs / records,
      mainUs: end.mainUs === null ? null : end.mainUs / records,
      minioUs: m0 === null || m1 === null ? null : ((m1 - m0) * 1e6) / records,
      accepted: end.accepted,
      inBucket,
    };
  } finally {
    child.kill();
  }
}

const got: Record<Variant, Run[]> = { reference: [], ingest: [] };
const s = await alternate(ROUNDS, {
  reference: async () => {
    const r = await measure("reference");
    got.reference.push(r);
    return r.rate;
  },
  ingest: async () => {
    const r = await measure("ingest");
    got.ingest.push(r);
    return r.rate;
  },
});
const med = (v: Variant, f: (r: Run) => number | null) => {
  const xs = got[v].map(f).filter((x): x is number => x !== null);
  return xs.length === 0 ? null : summary(xs).median;
};
const fmt = (x: number | null, d = 2) => (x === null ? "n/a" : x.toFixed(d));
console.log(
  `\n-- ingestion: NDJSON bodies of ${PER_REQUEST} records, autocannon -c 50 -d ${SECONDS} after 1 s warm-up, fresh server per run, ${ROUNDS} alternating rounds, ${PIN ? `server on CPU ${PIN.server}, autocannon and MinIO on CPU ${PIN.load}` : "not pinned"}`,
);
console.log(
  `${"".padEnd(30)} ${"records/s min/med".padStart(18)} ${"cpu µs/record all/main (med)".padStart(29)} ${"minio µs/rec".padStart(13)}`,
);
for (const [v, label] of [
  ["reference", "read + parse only (reference)"],
  ["ingest", "createIngestHandler → MinIO"],
] as const) {
  const x = summary(s[v]);
  console.log(
    `${label.padEnd(30)} ${`${x.min.toFixed(0)}/${x.median.toFixed(0)}`.padStart(18)} ${`${fmt(med(v, (r) => r.cpuUs))}/${fmt(med(v, (r) => r.mainUs))}`.padStart(29)} ${(v === "ingest" ? fmt(med(v, (r) => r.minioUs)) : "").padStart(13)}`,
  );
}
const accepted = got.ingest.reduce((a, r) => a + r.accepted, 0);
const inBucket = got.ingest.reduce((a, r) => a + r.inBucket, 0);
console.log(`records accepted / in the bucket: ${accepted} / ${inBucket}`);
const cpuRatio = med("reference", (r) => r.cpuUs)! / med("ingest", (r) => r.cpuUs)!;
const refMain = med("reference", (r) => r.mainUs);
const ingMain = med("ingest", (r) => r.mainUs);
console.log("\n-- target (issue 33: ingestion)");
console.log(
  targetLine(
    "handler ÷ read + parse records/s (wall time, medians; moves with the machine's phase)",
    summary(s.ingest).median / summary(s.reference).median,
    0.4,
  ),
);
console.log(
  `handler ÷ read + parse, by CPU per record (reference CPU ÷ handler CPU): ${cpuRatio.toFixed(2)}× all threads, ${refMain === null || ingMain === null ? "n/a" : (refMain / ingMain).toFixed(2)}× main thread`,
);
store.close();
await minio.stop();

// -- CPU per MiB: a valid body against hostile ones (issue 31 §1)
const REQUESTS = positiveArg("requests", 10);
const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), "stowage-bench-ingest-"));
const logger = createLogger({
  console: false,
  destination: "local",
  local: { path: dir, delivery: { maxQueueBytes: "512MiB" } },
});
const cpuIngest = createIngestHandler(logger, { auth: { token: TOKEN }, maxBodyBytes: 2 * MiB });
const valid1MiB = Array.from(
  { length: 1000 },
  (_, i) =>
    JSON.stringify({
      timestamp: new Date().toISOString(),
      level: "info",
      message: "page event",
      data: { id: i, page: "/cart", pad: "p".repeat(960) },
    }) + "\n",
).join("");
const SHAPES = {
  "valid (1,000 records)": valid1MiB,
  "`x` lines": "x\n".repeat(MiB / 2),
  "`{` lines (each a failing parse)": "{\n".repeat(MiB / 2),
  "[1,1,…] array": "[" + "1,".repeat(MiB / 2 - 1) + "1]",
  "[[[…]]] nested 500k deep": "[".repeat(MiB / 2) + "]".repeat(MiB / 2),
  "16 KiB records of 5,000 `[]`": `{"data":[${"[],".repeat(5_000)}[]]}\n`.repeat(69),
  "[{},{},…] array (349,525)": "[" + "{},".repeat(MiB / 3 - 1) + "{}]",
  '{"message":"m"} × 65,536': '{"message":"m"}\n'.repeat(MiB / 16),
};
type Shape = keyof typeof SHAPES;

/** A client in its own process: posts the body in `file` `n` times in sequence; prints the statuses. */
const CLIENT = `
const [url, token, file, n] = process.argv.slice(1);
const body = require("node:fs").readFileSync(file);
const statuses = {};
(async () => {
  for (let i = 0; i < Number(n); i++) {
    const res = await fetch(url, { method: "POST", body, headers: { "x-stowage-token": token } });
    await res.arrayBuffer();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  }
  process.stdout.write(JSON.stringify(statuses));
})();`;
const statusesSeen: Partial<Record<Shape, string>> = {};

const mainPerMiB: Partial<Record<Shape, number[]>> = {};

/** Server CPU (ms, all threads) per MiB of body, for REQUESTS posts of `shape`; the main thread's is kept in mainPerMiB. */
async function cpuPerMiB(shape: Shape): Promise<number> {
  const body = SHAPES[shape];
  const file = join(dir, "body");
  writeFileSync(file, body);
  const server = createServer(cpuIngest);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ingest`;
  const before = cpuMark();
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", CLIENT, url, TOKEN, file, String(REQUESTS)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let text = "";
    child.stdout.on("data", (c: Buffer) => (text += c));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(text) : reject(new Error(`client exit ${code}`)),
    );
  });
  const used = cpuSince(before);
  await new Promise<void>((r) => server.close(() => r()));
  statusesSeen[shape] = out;
  // What a valid body handed the logger is delivered outside the measured window.
  await logger.flush({ timeoutMs: 120_000 });
  const mib = (REQUESTS * Buffer.byteLength(body)) / MiB;
  if (used.mainUs !== null) (mainPerMiB[shape] ??= []).push(used.mainUs / 1000 / mib);
  return used.allUs / 1000 / mib;
}

if (process.argv.includes("--no-mib")) process.exit(0);
await cpuPerMiB("valid (1,000 records)"); // warm-up
delete mainPerMiB["valid (1,000 records)"];
const cpu = await alternate(
  ROUNDS,
  Object.fromEntries(Object.keys(SHAPES).map((k) => [k, () => cpuPerMiB(k as Shape)])) as Record<
    Shape,
    () => Promise<number>
  >,
);
const ref = cpu["valid (1,000 records)"];
console.log(
  `\n-- server CPU per MiB of body (all threads; main thread in brackets), local store, ${REQUESTS} sequential posts per round, ${ROUNDS} alternating rounds`,
);
for (const shape of Object.keys(SHAPES) as Shape[]) {
  const xs = cpu[shape];
  console.log(
    `${shape.padEnd(34)} ${min(xs).toFixed(1)} / ${median(xs).toFixed(1)} ms/MiB (min / median) [${fmt(mainPerMiB[shape] ? median(mainPerMiB[shape]) : null, 1)}], ` +
      `${(median(xs) / median(ref)).toFixed(3)}× valid; answers ${statusesSeen[shape]}`,
  );
}

const r = await logger.close({ timeoutMs: 120_000 });
console.log(
  `logger                    delivered ${Object.values(r.destinations)[0]!.delivered.toLocaleString()}, ok=${r.ok}`,
);
rmSync(dir, { recursive: true, force: true });
