/**
 * Request-logging benchmark (issue 33): requests/s and server CPU per request of a
 * hello-world app on Express 5, Fastify 5 and Hono 4 (@hono/node-server), three variants
 * per framework, against what each framework's users log requests with today:
 *
 * - hello: the app alone, no request logging (the base the CPU figures are taken over).
 * - reference, writing to /dev/null (pino's async sonic-boom destination; nothing stored):
 *   Express: `pino-http` (one line per request, its default req/res serializers and request
 *   id); Fastify: its built-in logger (`logger: { stream }`: the "incoming request" and
 *   "request completed" lines, two per request); Hono: a middleware writing one pino line per
 *   request when it finishes (method, path, status, ms).
 * - adapter: the Stowage adapter (`stowage/express`, `stowage/fastify`, `stowage/hono`), its
 *   logger at defaults shipping every request record to S3 (a MinIO started by this
 *   benchmark); the run fails unless every response served has its record in the bucket
 *   (the records under the run's prefix are read back and counted) and none was rejected.
 * - duties (Hono only, with `--duties`): the reference's pino line plus the two duties the
 *   adapter has beyond it — a request id returned in `x-request-id`, and the line written when
 *   Node's response closes (the status actually sent; a request the client abandoned is still
 *   logged) rather than after `await next()`. Its cost over the reference is what those duties
 *   cost any request logger on @hono/node-server.
 * - floor (only with `--floor`): a middleware doing the least any request logger does — a
 *   UUID, the start time, one `JSON.stringify` of the record's fields, kept in memory and
 *   dropped (no redaction, batching, compression or I/O).
 *
 * Targets, per framework: the adapter reaches ≥ 1.0× the reference's requests/s (wall time:
 * the median over rounds of each round's adapter ÷ reference, two runs seconds apart, since
 * this machine's speed moves by tens of percent from one minute to the next; the ratio of
 * the two variants' medians is printed beside it) and spends ≤ 1.0× the reference's server CPU per request over the
 * hello world ((adapter − hello) ÷ (reference − hello), all threads, medians): the CPU
 * ratio is the one that does not move with the machine's phase. CPU per request depends on
 * the load (a server at saturation serves more requests per event-loop turn and per
 * syscall), so after its req/s run each server gets a second run at a fixed offered load
 * (`--rate`, autocannon `-R`; defaults per framework below), the same for every variant, and
 * the CPU target is checked on that run; CPU at saturation is printed beside it.
 *
 * Each measurement is a fresh server process running plain Node on the built package
 * (`stowage/express`, … from dist/, as an application imports it; no TypeScript loader in
 * the server), warmed up for one second, then loaded by autocannon (its own process,
 * loopback, same settings for all) for `--seconds`. The server reports the CPU of the
 * measured run: all its threads (`process.cpuUsage`: the logger's gzip and the SDK's
 * sockets included) and its main thread (Linux schedstat). On Linux with two or more CPUs
 * the server runs on CPU 0, autocannon and MinIO on CPU 1 (`taskset`), so the server's CPU
 * is its own; `--pin off` leaves placement to the scheduler. MinIO's CPU per request is
 * printed for the adapter runs. The variants alternate for `--rounds` rounds, odd rounds in
 * reverse order (hello, reference, adapter; adapter, reference, hello; …); min and median
 * are printed. `--prof DIR` writes a V8 CPU profile of every measured run there.
 *
 * `--instructions` replaces the timed runs by counts that reproduce: each variant's server
 * runs once under valgrind's callgrind (`--smc-check=all-non-file` for V8's generated code),
 * with V8 on one thread (`--single-threaded`) and without its memory reducer (a clock-driven
 * full collection that valgrind's slowdown sets off, never seen natively under load), takes `--warm-requests` requests (10
 * connections; defaults per framework below) so its hot paths are compiled, then `--windows`
 * (6) windows of `--window-requests` (the first is printed, not used; the figure is the other
 * windows' instructions over their requests, so a full collection counts where it falls), each counted from a zeroed counter (`callgrind_control -z`)
 * to a dump (`-d`) taken once the logger has stored the window's records. Instructions count
 * user-space work on every thread (gzip and the upload included), not the kernel's (sockets,
 * the same for every variant but the adapter's few uploads) nor cache misses; the same code
 * under the same load gives the same count within a few percent, on a busy machine too. The
 * targets become: instructions per request over hello ≤ 1.0× the reference's, and the whole
 * server's instructions per request ≤ the reference's (what requests/s on one core follows).
 * Each variant's instructions on libuv's thread pool are printed beside (`pool`: the adapter's
 * gzip), and the adapter's cost over hello without them, against the reference's.
 *
 * Needs dist/ (`npx tsc -p tsconfig.build.json`) and pino-http; `--instructions` needs valgrind.
 * Usage: node --import jiti/register bench/bridges-http.ts [--rounds 3] [--seconds 3] [--pin on|off]
 *          [--only express,fastify,hono] [--rate N] [--floor] [--duties] [--record] [--prof DIR]
 *          [--instructions [--warm-requests N] [--window-requests N] [--windows 6] [--callgrind-dir DIR]]
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { mainThreadCpuNs, processCpuS, targetLine } from "./_cpu.js";
import { choiceArg, positiveArg, summary } from "./_shared.js";
import {
  alternate,
  autocannonRun,
  onCpu,
  pairedRatios,
  pinning,
  recordsInBucket,
  startBenchMinio,
  type LoadOptions,
} from "./_bridges.js";

const ROUNDS = positiveArg("rounds", 3);
const SECONDS = positiveArg("seconds", 3);
const ROOT = join(import.meta.dirname, "..");
const PIN = choiceArg("pin", ["on", "off"], "on") === "on" ? pinning() : undefined;
const LOAD: LoadOptions = { connections: 50, seconds: SECONDS, cpu: PIN?.load };
const FLOOR = process.argv.includes("--floor");
const DUTIES = process.argv.includes("--duties");
const RECORD_BENCH = process.argv.includes("--record");
/**
 * `--instructions`: instead of timing, count the instructions each server executes per
 * request under valgrind's callgrind (user space, every thread): the same for the same code
 * and load whatever else the machine does, where CPU time moves by tens of percent here.
 */
const INSTRUCTIONS = process.argv.includes("--instructions");
/**
 * Requests before counting, and per counted window: Express costs ~5× Fastify's and Hono's
 * instructions a request, and V8 has compiled its hot paths sooner. The first window after
 * the warm-up still counts more than the next ones; it is printed, not used.
 */
const COUNTS: Record<string, { warm: number; window: number }> = {
  express: { warm: 8000, window: 2000 },
  fastify: { warm: 20000, window: 5000 },
  hono: { warm: 20000, window: 5000 },
};
const countsOf = (framework: string) => ({
  warm: positiveArg("warm-requests", COUNTS[framework]!.warm),
  window: positiveArg("window-requests", COUNTS[framework]!.window),
});
const WINDOWS = positiveArg("windows", 6);
if (WINDOWS < 2) throw new Error("--windows needs at least 2 (the first window is not used)");

const flag = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const PROF = flag("prof") === undefined ? undefined : resolve(flag("prof")!);
if (PROF) mkdirSync(PROF, { recursive: true });
/** `--callgrind-dir DIR`: keep each window's dump there (read them with `callgrind_annotate`). */
const KEEP_CALLGRIND =
  flag("callgrind-dir") === undefined ? undefined : resolve(flag("callgrind-dir")!);
if (KEEP_CALLGRIND) mkdirSync(KEEP_CALLGRIND, { recursive: true });

if (!existsSync(join(ROOT, "dist", "express.js")))
  throw new Error("dist/ is missing: run `npx tsc -p tsconfig.build.json` first");
if (INSTRUCTIONS && spawnSync("valgrind", ["--version"], { stdio: "ignore" }).status !== 0)
  throw new Error("--instructions needs valgrind (callgrind): `apt-get install valgrind`");
if (!existsSync(join(ROOT, "node_modules", "pino-http")))
  throw new Error("pino-http is missing (the Express reference): `npm install -D pino-http`");

/**
 * The server, run by plain `node` in the package directory (so `stowage/…` resolves to
 * dist/ like in an application). argv: framework, variant (hello | reference | adapter |
 * floor), the S3 prefix of the adapter's records; MinIO's address and keys in the
 * environment. Prints `{"url"}` when listening; each line on stdin is answered with the CPU
 * spent since the previous line (`{"cpuUs","mainUs"}`: all threads and the main thread);
 * when stdin ends, it closes the server and the logger and prints
 * `{"delivered","rejected","ok"}`.
 */
const SERVER = `
const [framework, variant, prefix] = process.argv.slice(1);
const fs = await import("node:fs");
const mainThreadCpuNs = ${mainThreadCpuNs.toString()};
const devNull = async () => {
  const { pino } = await import("pino");
  return pino(pino.destination({ dest: "/dev/null", sync: false }));
};
// "floor": the least a request logger does — one JSON line per request, kept in memory and dropped.
let kept = [];
const keep = (line) => { kept.push(line); if (kept.length >= 1000) kept = []; };
const floorLine = (id, method, route, status, ms) =>
  keep(JSON.stringify({ time: Date.now(), level: "info", msg: method + " " + route + " " + status, requestId: id, method, route, status, durationMs: ms }));
let log = null;
if (variant === "adapter") {
  const m = JSON.parse(process.env.BENCH_MINIO);
  const { createLogger } = await import("stowage");
  log = createLogger({ console: false, destination: "s3", s3: { bucket: m.bucket, prefix, region: m.region,
    endpoint: m.endpoint, forcePathStyle: true, credentials: { accessKeyId: m.accessKeyId, secretAccessKey: m.secretAccessKey } } });
}
const host = "127.0.0.1";
let url, close;
const listening = (s) => new Promise((r) => (s.listening ? r() : s.once("listening", r)));
if (framework === "express") {
  const { default: express } = await import("express");
  const app = express();
  if (variant === "reference") app.use((await import("pino-http")).pinoHttp({ logger: await devNull() }));
  if (variant === "floor")
    app.use((req, res, next) => {
      const start = performance.now();
      const id = crypto.randomUUID();
      res.on("finish", () => floorLine(id, req.method, req.route?.path, res.statusCode, performance.now() - start));
      next();
    });
  if (log) app.use((await import("stowage/express")).stowageExpress(log));
  app.get("/hello/:id", (_req, res) => void res.send("hello"));
  const s = app.listen(0, host);
  await listening(s);
  url = "http://" + host + ":" + s.address().port;
  close = () => new Promise((r) => s.close(r));
} else if (framework === "fastify") {
  const { default: Fastify } = await import("fastify");
  const app = variant === "reference"
    ? Fastify({ logger: { stream: (await import("pino")).pino.destination({ dest: "/dev/null", sync: false }) } })
    : Fastify();
  if (variant === "floor") {
    app.addHook("onRequest", (request, _reply, next) => { request.floorId = crypto.randomUUID(); next(); });
    app.addHook("onResponse", (request, reply, next) => { floorLine(request.floorId, request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime); next(); });
  }
  if (log) await app.register((await import("stowage/fastify")).stowageFastify, { logger: log });
  app.get("/hello/:id", async () => "hello");
  url = await app.listen({ port: 0, host });
  close = () => app.close();
} else {
  const { Hono } = await import("hono");
  const { serve } = await import("@hono/node-server");
  const { routePath } = await import("hono/route");
  const app = new Hono();
  if (variant === "reference") {
    const p = await devNull();
    app.use(async (c, next) => {
      const start = performance.now();
      await next();
      p.info({ method: c.req.method, path: c.req.path, status: c.res.status, ms: performance.now() - start }, "request completed");
    });
  }
  if (variant === "duties") {
    const p = await devNull();
    app.use(async (c, next) => {
      const start = performance.now();
      const id = crypto.randomUUID();
      const out = c.env.outgoing;
      out.setHeader("x-request-id", id);
      out.on("close", () => p.info({ reqId: id, method: c.req.method, path: c.req.path, status: out.statusCode, ms: performance.now() - start }, "request completed"));
      await next();
    });
  }
  if (variant === "floor")
    app.use(async (c, next) => {
      const start = performance.now();
      const id = crypto.randomUUID();
      await next();
      floorLine(id, c.req.method, routePath(c), c.res.status, performance.now() - start);
    });
  if (log) app.use((await import("stowage/hono")).stowageHono(log));
  app.get("/hello/:id", (c) => c.text("hello"));
  const s = serve({ fetch: app.fetch, port: 0, hostname: host });
  await listening(s);
  url = "http://" + host + ":" + s.address().port;
  close = () => new Promise((r) => s.close(r));
}
console.log(JSON.stringify({ url: url + "/hello/42" }));
let mark = null;
let mainMark = null;
process.stdin.setEncoding("utf8");
// BENCH_PROF: a V8 CPU profile from the first mark on (not the start-up or warm-up).
const prof = process.env.BENCH_PROF ? new (await import("node:inspector")).Session() : null;
const post = (m, p) => new Promise((r, j) => prof.post(m, p, (e, v) => (e ? j(e) : r(v))));
if (prof) { prof.connect(); await post("Profiler.enable"); }
// Each line on stdin: the CPU since the previous one (all threads, main thread, µs), then a new
// mark; a line "flush" instead waits until the logger has stored every record so far.
// BENCH_GC: the flush answer also counts V8's full collections (mark-compact) since the last one.
let fullGcs = 0;
if (process.env.BENCH_GC) {
  const { PerformanceObserver, constants } = await import("node:perf_hooks");
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) fullGcs++;
  }).observe({ entryTypes: ["gc"] });
}
process.stdin.on("data", async (line) => {
  if (line.startsWith("flush")) {
    if (log) await log.flush({ timeoutMs: 120000 });
    console.log(JSON.stringify({ flushed: true, fullGcs }));
    fullGcs = 0;
    return;
  }
  const cpu = mark === null ? null : process.cpuUsage(mark);
  const main = mainThreadCpuNs(fs);
  if (prof && mark === null) await post("Profiler.start");
  mark = process.cpuUsage();
  const since = cpu === null ? {} : { cpuUs: cpu.user + cpu.system, mainUs: main === null || mainMark === null ? null : (main - mainMark) / 1000 };
  mainMark = mainThreadCpuNs(fs);
  console.log(JSON.stringify({ marked: true, ...since }));
});
process.stdin.on("end", async () => {
  if (prof) fs.writeFileSync(process.env.BENCH_PROF, JSON.stringify((await post("Profiler.stop")).profile));
  await close();
  const r = log ? await log.close({ timeoutMs: 120000 }) : null;
  const d = r ? r.destinations.sink : null;
  const rejected = d ? d.rejected.oversized + d.rejected.queueFull + d.rejected.spoolFull : 0;
  console.log(JSON.stringify({ delivered: d ? d.delivered : 0, rejected, ok: r ? r.ok : true }));
  process.exit(0);
});
`;

/**
 * The request record's cost without HTTP (`--record`), in a plain-Node process on dist/:
 * CPU µs per request (min of 7 alternating rounds of 30,000; main thread, and all threads
 * including the logger's gzip), the adapter's record path next to the logger calls it is
 * made of and next to the references' pino lines (to /dev/null). The calls run in
 * event-loop turns of 100 (the adapter writes its records at the end of a turn, so that is
 * counted too); each round ends with the logger's flush, so its batches are compressed and
 * written within the round. The same record with a fixed request id and with a fresh UUID
 * shows what a per-request id costs: the UUID itself, its serialization, and gzip of bytes
 * that do not compress.
 */
const RECORD = `
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { createLogger } from "stowage";
import { RequestState, logRequest, requestIdFrom } from "./dist/bridges/http/request-record.js";
const mainThreadCpuNs = ${mainThreadCpuNs.toString()};
const log = createLogger({ console: false, destination: "local", local: { path: mkdtempSync(join(tmpdir(), "stowage-bench-rec-")), delivery: { maxQueueBytes: "1GiB" } } });
const p = pino(pino.destination({ dest: "/dev/null", sync: false }));
const fields = () => ({ method: "GET", route: "/hello/:id", path: "/hello/42", status: 200, durationMs: 0.123, userAgent: "autocannon/7.15.0", ip: "127.0.0.1" });
const FIXED_ID = "0b6e2f1a-8a3c-4f5e-9d2b-7c1e4a5b6c7d";
const cases = {
  "adapter: request id + state + record (logRequest)": () => logRequest(new RequestState(log, requestIdFrom(undefined)), { method: "GET", route: "/hello/:id", path: "/hello/42", status: 200, userAgent: "autocannon/7.15.0", ip: "127.0.0.1", query: undefined, headers: undefined }),
  "logger: child({ requestId }).info(msg, 7 fields)": () => log.child({ requestId: crypto.randomUUID() }).info("GET /hello/:id 200", fields()),
  "logger: info(msg, 7 fields)": () => log.info("GET /hello/:id 200", fields()),
  "logger: bindings { requestId: a fixed id } + 7 fields": () => log.logSoon({ requestId: FIXED_ID }, "info", "GET /hello/:id 200", fields()),
  "logger: bindings { requestId: randomUUID() } + 7 fields": () => log.logSoon({ requestId: crypto.randomUUID() }, "info", "GET /hello/:id 200", fields()),
  "crypto.randomUUID() alone": () => crypto.randomUUID(),
  "pino: info({4 fields}, msg) (Hono's reference line)": () => p.info({ method: "GET", path: "/hello/42", status: 200, ms: 0.123 }, "request completed"),
  "pino: child({ reqId }) + 2 lines (Fastify's logger)": () => { const c = p.child({ reqId: "req-1" }); c.info({ req: { method: "GET", url: "/hello/42", host: "127.0.0.1:3000", remoteAddress: "127.0.0.1", remotePort: 5555 } }, "incoming request"); c.info({ res: { statusCode: 200 }, responseTime: 0.123 }, "request completed"); },
};
const best = {};
const turns = async (fn, n) => { for (let t = 0; t < n; t++) { for (let i = 0; i < 100; i++) fn(); await new Promise((r) => setImmediate(r)); } };
for (let round = 0; round < 7; round++)
  for (const [name, fn] of Object.entries(cases)) {
    await turns(fn, 30);
    await log.flush({ timeoutMs: 60000 });
    const all = process.cpuUsage();
    const main = mainThreadCpuNs({ readFileSync });
    await turns(fn, 300);
    await log.flush({ timeoutMs: 60000 });
    await new Promise((r) => p.flush(r));
    const a = process.cpuUsage(all);
    const m = mainThreadCpuNs({ readFileSync });
    const b = (best[name] ??= { all: Infinity, main: Infinity });
    b.all = Math.min(b.all, (a.user + a.system) / 30000);
    if (m !== null && main !== null) b.main = Math.min(b.main, (m - main) / 1000 / 30000);
  }
await log.close({ timeoutMs: 60000 });
console.log(JSON.stringify(best));
`;

const { minio, store } = await startBenchMinio(PIN?.load);
const minioCpu = () => (minio.pid === undefined ? null : processCpuS(minio.pid));

interface Cpu {
  cpuUs: number;
  mainUs: number | null;
}

interface Served {
  rps: number;
  /** Server CPU per response at saturation (the req/s run), µs: all threads, and the main thread. */
  sat: Cpu;
  /** Server CPU per response at the fixed offered load (`--rate`), µs. */
  fixed: Cpu;
  /** MinIO's CPU per response of both measured runs (and the logger's close), µs. */
  minioUs: number | null;
  responses: number;
  delivered: number;
}

const VARIANT_NAMES = ["hello", "reference", "adapter", "duties", "floor"] as const;
type Variant = (typeof VARIANT_NAMES)[number];
/** The variants measured for a framework (`duties` is Hono's only). */
const variantsOf = (framework: string): Variant[] => [
  "hello",
  "reference",
  "adapter",
  ...(DUTIES && framework === "hono" ? (["duties"] as const) : []),
  ...(FLOOR ? (["floor"] as const) : []),
];
let runs = 0;

/**
 * The fixed offered load of the CPU run, per framework: below what every variant serves on
 * this machine even when it is busy, so all of them do the same work per event-loop turn.
 */
const RATE_FLAG = flag("rate");
const RATES: Record<string, number> = { express: 1000, fastify: 3000, hono: 3000 };
const rateOf = (framework: string) => (RATE_FLAG ? Number(RATE_FLAG) : RATES[framework]!);

/**
 * Spawns one server process (`wrap` puts a command in front of node: taskset, valgrind) and
 * reads its JSON lines; `prefix` is where its adapter's records go.
 */
function startServer(
  framework: string,
  variant: Variant,
  wrap: (command: string, args: string[]) => [string, string[]],
  stderr: "inherit" | "pipe" = "inherit",
  extraEnv: Record<string, string> = {},
) {
  const prefix = `bench/http-${Date.now()}-${runs++}`;
  const child = spawn(
    ...wrap(process.execPath, ["--input-type=module", "-e", SERVER, framework, variant, prefix]),
    {
      cwd: ROOT,
      stdio: ["pipe", "pipe", stderr],
      env: {
        ...process.env,
        BENCH_MINIO: JSON.stringify(minio),
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
        ...(PROF ? { BENCH_PROF: join(PROF, `${framework}-${variant}-${runs}.cpuprofile`) } : {}),
        ...extraEnv,
      },
    },
  );
  const exited = new Promise((r) => child.once("exit", r));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`${framework} server (${variant}) exited early`);
    return JSON.parse(value as string) as Record<string, unknown>;
  };
  /**
   * Ends the server's input, reads its last line (the logger closed), runs `ended` (a reading
   * to take before the bucket is read back), checks the adapter's records (`checkDelivered`)
   * and waits up to 30 s for the process to exit; returns the records found (0 without adapter).
   */
  const finish = async (served: number, ended?: () => void): Promise<number> => {
    child.stdin!.end();
    const end = (await next()) as { delivered: number; rejected: number; ok: boolean };
    ended?.();
    const delivered =
      variant === "adapter" ? await checkDelivered(framework, prefix, served, end) : 0;
    // Unref'd: a server that exits at once leaves no timer holding the benchmark open.
    await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000).unref())]);
    return delivered;
  };
  return { child, stdin: child.stdin!, next, finish };
}

/**
 * Fails the run unless every response the adapter's server sent has its record in the
 * bucket and none was rejected; returns the records found.
 */
async function checkDelivered(
  framework: string,
  prefix: string,
  served: number,
  end: { delivered: number; rejected: number; ok: boolean },
): Promise<number> {
  const delivered = await recordsInBucket(store, prefix);
  if (!end.ok || end.rejected > 0 || delivered < served || end.delivered < served)
    throw new Error(
      `${framework}: ${served} responses but ${delivered} records in the bucket (${end.delivered} reported delivered), ${end.rejected} rejected, ok=${end.ok}`,
    );
  return delivered;
}

/**
 * One fresh server process: 1 s warm-up, the req/s run (as fast as autocannon goes), then
 * the CPU run at the fixed offered load, both `--seconds` long.
 */
async function measure(framework: string, variant: Variant): Promise<Served> {
  const { child, stdin, next, finish } = startServer(framework, variant, (cmd, args) =>
    onCpu(PIN?.server, cmd, args),
  );
  const mark = async () => {
    stdin.write("mark\n");
    return (await next()) as unknown as Cpu;
  };
  const per = (c: Cpu, n: number): Cpu => ({
    cpuUs: c.cpuUs / n,
    mainUs: c.mainUs === null ? null : c.mainUs / n,
  });
  try {
    const { url } = (await next()) as { url: string };
    const warm = await autocannonRun(url, { ...LOAD, seconds: 1 });
    await mark();
    const m0 = minioCpu();
    const run = await autocannonRun(url, LOAD);
    const sat = await mark();
    const fixed = await autocannonRun(url, { ...LOAD, rate: rateOf(framework) });
    const atRate = await mark();
    const served = warm.responses + run.responses + fixed.responses;
    let m1: number | null = null;
    const delivered = await finish(served, () => (m1 = minioCpu()));
    return {
      rps: run.rps,
      sat: per(sat, run.responses),
      fixed: per(atRate, fixed.responses),
      minioUs:
        m0 === null || m1 === null ? null : ((m1 - m0) * 1e6) / (run.responses + fixed.responses),
      responses: served,
      delivered,
    };
  } finally {
    child.kill();
  }
}

/** Instructions per request of one server in each counted window, and what it served. */
interface Counted {
  perRequest: number[];
  /** Of which on libuv's thread pool (the adapter's gzip; sonic-boom's `fs.write` for pino). */
  poolPerRequest: number[];
  /** V8's full collections in each window. */
  fullGcs: number[];
  responses: number;
  delivered: number;
}

/** The `totals:` line of a callgrind dump once it is written (the dump follows the request to dump). */
async function callgrindTotal(file: string): Promise<number> {
  for (let i = 0; i < 600; i++) {
    const m = existsSync(file) ? /^totals: (\d+)/m.exec(readFileSync(file, "utf8")) : null;
    if (m) return Number(m[1]);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`callgrind wrote no totals to ${file}`);
}

/**
 * The instructions of a dump spent on threads Node started (`start_thread`, inclusive): with
 * V8 on the main thread (`--single-threaded`) that is libuv's thread pool — zlib for the
 * adapter's gzip, `fs.write` for pino's asynchronous destination.
 */
function poolInstructions(file: string): number {
  const r = spawnSync(
    "callgrind_annotate",
    ["--inclusive=yes", "--threshold=100", "--auto=no", file],
    { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
  );
  if (r.status !== 0) throw new Error(`callgrind_annotate ${file}: ${r.stderr || r.stdout}`);
  const m = /^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+\S*:start_thread\b/m.exec(r.stdout);
  return m ? Number(m[1]!.replace(/,/g, "")) : 0;
}

/**
 * One server under `valgrind --tool=callgrind`: `--warm-requests` requests (10 connections)
 * so V8 has compiled the hot paths, then `WINDOWS` windows of `--window-requests`, each
 * counted from a zeroed counter to a dump taken after the logger has stored the window's
 * records (gzip and upload included); every record is then checked in the bucket as in the
 * timed runs.
 */
async function countInstructions(framework: string, variant: Variant): Promise<Counted> {
  const dir = mkdtempSync(join(KEEP_CALLGRIND ?? tmpdir(), `${framework}-${variant}-`));
  const out = join(dir, "callgrind.out");
  const { child, stdin, next, finish } = startServer(
    framework,
    variant,
    (cmd, args) => [
      "valgrind",
      [
        "--tool=callgrind",
        "--smc-check=all-non-file",
        `--callgrind-out-file=${out}`,
        cmd,
        // V8 compiles and collects on the main thread: its background threads, which valgrind
        // runs one at a time, otherwise add counts that vary from window to window.
        "--single-threaded",
        // V8's memory reducer starts a full collection ("Mark-Compact (reduce)") when the heap
        // allocates slowly by the clock; under valgrind a loaded server allocates ~50× slower,
        // so it fired in one window of the adapter's runs (2–3× that window's count, then a
        // shrunken young generation), never in the native runs under this load (--trace-gc).
        "--no-memory-reducer",
        ...args,
      ],
    ],
    "pipe",
    { BENCH_GC: "1" },
  );
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const control = (what: "-z" | "-d") => {
    const r = spawnSync("callgrind_control", [what, String(child.pid)], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`callgrind_control ${what}: ${r.stderr || r.stdout}`);
  };
  const flushed = async () => {
    stdin.write("flush\n");
    return ((await next()) as { fullGcs: number }).fullGcs;
  };
  const load = { connections: 10 };
  const counts = countsOf(framework);
  try {
    const { url } = (await next()) as { url: string };
    let responses = (await autocannonRun(url, { ...load, amount: counts.warm })).responses;
    const perRequest: number[] = [];
    const poolPerRequest: number[] = [];
    const fullGcs: number[] = [];
    for (let w = 1; w <= WINDOWS; w++) {
      await flushed();
      control("-z");
      const run = await autocannonRun(url, { ...load, amount: counts.window });
      responses += run.responses;
      const gcs = await flushed();
      control("-d");
      perRequest.push((await callgrindTotal(`${out}.${w}`)) / run.responses);
      poolPerRequest.push(poolInstructions(`${out}.${w}`) / run.responses);
      fullGcs.push(gcs);
    }
    const delivered = await finish(responses);
    return { perRequest, poolPerRequest, fullGcs, responses, delivered };
  } catch (err) {
    throw new Error(`${framework} ${variant} under callgrind: ${String(err)}\n${stderr}`, {
      cause: err,
    });
  } finally {
    child.kill();
    if (KEEP_CALLGRIND === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

const REFERENCE: Record<string, string> = {
  express: "pino-http",
  fastify: "Fastify's logger",
  hono: "pino line/request",
};
const NAMES: Record<string, string> = {
  express: "Express 5",
  fastify: "Fastify 5",
  hono: "Hono 4",
};
// `--only none --record`: the record without HTTP alone.
const only = (flag("only")?.split(",") ?? Object.keys(NAMES)).filter((f) => f in NAMES);

if (!INSTRUCTIONS) {
  console.log(
    `\n-- request logging: hello-world req/s and server CPU per request, autocannon -c ${LOAD.connections} -d ${SECONDS} after 1 s warm-up, fresh server per run, ${ROUNDS} alternating rounds, ${PIN ? `server on CPU ${PIN.server}, autocannon and MinIO on CPU ${PIN.load}` : "not pinned"}`,
  );
  console.log(
    "   reference: what the framework's users log requests with, to /dev/null (Express: pino-http; Fastify: its built-in logger, 2 lines/request; Hono: one pino line/request); adapter: Stowage's, shipping to MinIO, every record checked in the bucket",
  );
  console.log(
    `   cpu: server µs per request, all threads / main thread, medians — at saturation (the req/s run) and at a fixed offered load (${
      RATE_FLAG
        ? `${RATE_FLAG} req/s`
        : Object.entries(RATES)
            .map(([f, r]) => `${f} ${r}`)
            .join(", ") + " req/s"
    }: the same work per event-loop turn for every variant); over hello: at the fixed load, minus the hello world's`,
  );
  console.log(
    `${"framework".padEnd(10)} ${"variant".padEnd(18)} ${"req/s min/med".padStart(15)} ${"cpu @sat".padStart(12)} ${"cpu @rate".padStart(12)} ${"over hello".padStart(12)} ${"minio µs/req".padStart(13)} ${"records/responses".padStart(18)}`,
  );
}
const goals: string[] = [];
/** Hono's µs of CPU over hello at the fixed load (all threads), for the bound printed after `--record`. */
let honoOver: { reference: number; duties: number; adapter: number } | undefined;
for (const framework of INSTRUCTIONS ? [] : only) {
  const name = NAMES[framework]!;
  const VARIANTS = variantsOf(framework);
  // Every variant has its list (empty when not measured), so a check of one never reads undefined.
  const got = Object.fromEntries(VARIANT_NAMES.map((v) => [v, [] as Served[]])) as Record<
    Variant,
    Served[]
  >;
  const rps = await alternate(
    ROUNDS,
    Object.fromEntries(
      VARIANTS.map((v) => [
        v,
        async () => {
          const r = await measure(framework, v);
          got[v].push(r);
          return r.rps;
        },
      ]),
    ) as Record<Variant, () => Promise<number>>,
    { mirror: true },
  );
  const med = (v: Variant, f: (s: Served) => number | null): number | null => {
    const xs = got[v].map(f).filter((x): x is number => x !== null);
    return xs.length === 0 ? null : summary(xs).median;
  };
  const fmt = (x: number | null, d = 1) => (x === null ? "n/a" : x.toFixed(d));
  const pair = (a: number | null, b: number | null) => `${fmt(a)}/${fmt(b)}`;
  const at = (v: Variant) => ({
    all: med(v, (x) => x.fixed.cpuUs)!,
    main: med(v, (x) => x.fixed.mainUs),
  });
  const hello = at("hello");
  const minus = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);
  for (const v of VARIANTS) {
    const s = summary(rps[v]);
    const c = at(v);
    const records =
      v === "adapter"
        ? `${got[v].reduce((a, x) => a + x.delivered, 0)}/${got[v].reduce((a, x) => a + x.responses, 0)}`
        : "";
    const label = v === "reference" ? REFERENCE[framework]! : v;
    console.log(
      `${name.padEnd(10)} ${label.padEnd(18)} ${`${s.min.toFixed(0)}/${s.median.toFixed(0)}`.padStart(15)} ${pair(
        med(v, (x) => x.sat.cpuUs),
        med(v, (x) => x.sat.mainUs),
      ).padStart(
        12,
      )} ${pair(c.all, c.main).padStart(12)} ${(v === "hello" ? "" : pair(c.all - hello.all, minus(c.main, hello.main))).padStart(12)} ${(v === "adapter" ? fmt(med(v, (x) => x.minioUs)) : "").padStart(13)} ${records.padStart(18)}`,
    );
  }
  const ref = REFERENCE[framework]!;
  // Each round's adapter ÷ reference (the two runs are neighbours in every round).
  const perRound = pairedRatios(rps.adapter, rps.reference);
  const rate = summary(perRound).median;
  const ofMedians = summary(rps.adapter).median / summary(rps.reference).median;
  const adapter = at("adapter");
  const reference = at("reference");
  // A reference that cost no CPU over the hello world in this run leaves no ratio to check.
  const ratio = (a: number | null, r: number | null, h: number | null) =>
    a === null || r === null || h === null ? null : r - h > 0 ? (a - h) / (r - h) : Infinity;
  const overAll = ratio(adapter.all, reference.all, hello.all)!;
  const overMain = ratio(adapter.main, reference.main, hello.main);
  goals.push(
    targetLine(
      `${name} adapter ÷ ${ref} req/s (wall time, median of the rounds' ratios; moves with the machine's phase)`,
      rate,
      1.0,
    ) +
      ` [rounds: ${perRound.map((x) => x.toFixed(2)).join(" ")}; ratio of the medians ${ofMedians.toFixed(2)}×]`,
    targetLine(
      `${name} adapter ÷ ${ref} server CPU/request over hello (all threads, at the fixed load, medians)`,
      overAll,
      1.0,
      false,
    ) + (overMain === null ? "" : ` [main thread: ${overMain.toFixed(2)}×]`),
  );
  if (got.duties.length > 0) {
    // What the reference pays for the adapter's duties, and the adapter against that reference.
    const duties = at("duties");
    const over = (a: { all: number }) => (a.all - hello.all).toFixed(1);
    if (framework === "hono")
      honoOver = {
        reference: reference.all - hello.all,
        duties: duties.all - hello.all,
        adapter: adapter.all - hello.all,
      };
    goals.push(
      `${name} (not a target) reference with the adapter's duties ÷ ${ref}: req/s ${(summary(rps.duties).median / summary(rps.reference).median).toFixed(2)}×; adapter ÷ it: req/s ${(summary(rps.adapter).median / summary(rps.duties).median).toFixed(2)}×, CPU/request over hello ${ratio(adapter.all, duties.all, hello.all)!.toFixed(2)}× (µs over hello, all threads: ${ref} ${over(reference)}, with duties ${over(duties)}, adapter ${over(adapter)})`,
    );
  }
}
if (INSTRUCTIONS) {
  console.log(
    `\n-- request logging: instructions per request (valgrind callgrind, node --single-threaded: user space, all threads), one server per variant: ${only
      .map(
        (f) =>
          `${f} ${countsOf(f).warm} requests to warm up, then ${WINDOWS} windows of ${countsOf(f).window}`,
      )
      .join(
        "; ",
      )} (autocannon -c 10); each window ends when the logger has stored its records; the first one (in brackets) is not used, the others are taken together (mean)`,
  );
  console.log(
    "   reference: to /dev/null (Express: pino-http; Fastify: its built-in logger; Hono: one pino line/request); adapter: shipping to MinIO, every record checked in the bucket",
  );
  console.log(
    "   pool: of the mean, the instructions on libuv's thread pool (the adapter's gzip; pino's fs.write to /dev/null)",
  );
  console.log(
    `${"framework".padEnd(10)} ${"variant".padEnd(18)} ${"k instr/request, windows".padStart(30)} ${"mean".padStart(8)} ${"over hello".padStart(11)} ${"pool".padStart(6)} ${"full GCs".padStart(12)} ${"records/responses".padStart(18)}`,
  );
  for (const framework of only) {
    const name = NAMES[framework]!;
    const counted: Partial<Record<Variant, number>> = {};
    const pool: Partial<Record<Variant, number>> = {};
    // Every counted window's requests alike: a full collection is paid where it falls.
    const meanOfCounted = (xs: number[]) =>
      xs.slice(1).reduce((a, x) => a + x, 0) / (xs.length - 1);
    for (const v of variantsOf(framework)) {
      const c = await countInstructions(framework, v);
      const m = meanOfCounted(c.perRequest);
      counted[v] = m;
      pool[v] = meanOfCounted(c.poolPerRequest);
      const over = v === "hello" ? "" : ((m - counted.hello!) / 1000).toFixed(1);
      console.log(
        `${name.padEnd(10)} ${(v === "reference" ? REFERENCE[framework]! : v).padEnd(18)} ${c.perRequest
          .map((x, i) => (i === 0 ? `(${(x / 1000).toFixed(1)})` : (x / 1000).toFixed(1)))
          .join(" ")
          .padStart(
            30,
          )} ${(m / 1000).toFixed(1).padStart(8)} ${over.padStart(11)} ${(pool[v] / 1000).toFixed(1).padStart(6)} ${c.fullGcs.join(" ").padStart(12)} ${(v === "adapter" ? `${c.delivered}/${c.responses}` : "").padStart(18)}`,
      );
    }
    const [h, r, a] = [counted.hello!, counted.reference!, counted.adapter!];
    const ref = REFERENCE[framework]!;
    goals.push(
      targetLine(
        `${name} adapter ÷ ${ref} instructions/request over hello (callgrind, mean of the windows)`,
        r - h > 0 ? (a - h) / (r - h) : Infinity,
        1.0,
        false,
      ),
      targetLine(
        `${name} ${ref} ÷ adapter instructions/request, whole server (what requests/s on one core follows, kernel aside)`,
        r / a,
        1.0,
      ),
    );
    // The format's compression (§3.4: gzip bodies) is work the reference, writing to /dev/null,
    // does not do: what the adapter costs without it says whether gzip is what stops the target.
    const gzip = pool.adapter! - pool.hello!;
    goals.push(
      `${name} what the format's gzip explains: the adapter's thread pool ${(gzip / 1000).toFixed(1)}k of its ${((a - h) / 1000).toFixed(1)}k over hello; without it ${((a - h - gzip) / 1000).toFixed(1)}k, ${r - h > 0 ? ((a - h - gzip) / (r - h)).toFixed(2) : "∞"}× ${ref}'s ${((r - h) / 1000).toFixed(1)}k; whole server ${ref} ÷ adapter without it ${(r / (a - gzip)).toFixed(2)}× (not targets)`,
    );
    if (counted.duties !== undefined)
      goals.push(
        `${name} what bounds it: the target leaves the adapter ${((r - h) / 1000).toFixed(1)}k instructions/request over hello (${ref}'s); ${ref} with the adapter's duties (x-request-id, record on close) costs ${((counted.duties - h) / 1000).toFixed(1)}k ${counted.duties >= r ? "≥" : "<"} that, storing the record instead of writing the line ${((a - counted.duties) / 1000).toFixed(1)}k more; the adapter ${((a - h) / 1000).toFixed(1)}k`,
      );
  }
}
console.log("\n-- targets (issue 33: request logging)");
for (const g of goals) console.log(g);

if (RECORD_BENCH) {
  const record = spawn(process.execPath, ["--input-type=module", "-e", RECORD], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  record.stdout.on("data", (c: Buffer) => (out += c));
  await new Promise((r) => record.on("close", r));
  console.log(
    "\n-- the request record without HTTP: CPU µs per request, main thread / all threads (min of 7 rounds × 30,000)",
  );
  const records = JSON.parse(out) as Record<string, { all: number; main: number }>;
  for (const [name, us] of Object.entries(records))
    console.log(
      `${name.padEnd(54)} ${us.main.toFixed(2).padStart(6)} / ${us.all.toFixed(2).padStart(6)} µs`,
    );
  const ours = Object.entries(records).find(([k]) => k.startsWith("adapter:"))?.[1];
  const line = Object.entries(records).find(([k]) => k.includes("Hono's reference line"))?.[1];
  if (honoOver && ours && line) {
    // The least the adapter can cost over hello: the reference line with the adapter's HTTP
    // duties (measured over HTTP), plus what storing the record costs beyond writing a pino
    // line to /dev/null (the two records without HTTP: request id, gzip, batching).
    const storing = ours.all - line.all;
    const floor = honoOver.duties + storing;
    console.log(
      `\n-- what bounds Hono's request logging (µs of server CPU a request over hello, all threads, at the fixed load)\n` +
        `the target leaves the adapter ${honoOver.reference.toFixed(1)} (the pino line's); the pino line with the adapter's duties (x-request-id, record on close) costs ${honoOver.duties.toFixed(1)}; ` +
        `storing the record instead of writing the line adds ${storing.toFixed(1)} (${ours.all.toFixed(2)} − ${line.all.toFixed(2)} without HTTP): floor ${floor.toFixed(1)} ${floor >= honoOver.reference ? "≥" : "<"} ${honoOver.reference.toFixed(1)}; the adapter spends ${honoOver.adapter.toFixed(1)}` +
        (honoOver.adapter < floor
          ? " — below the floor: in this run the machine's noise exceeds the differences, no bound can be read from it"
          : floor >= honoOver.reference
            ? " — out of reach while the adapter returns a request id, records on close and stores gzip"
            : ` — ${(honoOver.reference - floor).toFixed(1)} left under the target`),
    );
  }
}
store.close();
await minio.stop();
