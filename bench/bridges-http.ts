/**
 * Framework adapter benchmark: requests/s of a hello-world app on
 * Express 5, Fastify 5 and Hono 4 (@hono/node-server) with and without the
 * stowage adapter (goal ≥ 0.9×), and with an empty middleware of the same shape
 * instead (Express: a `(req, res, next)` function; Fastify: `onRequest` and
 * `onResponse` hooks; Hono: `async (c, next) => { await next() }`): the part of the
 * ratio any middleware costs in that framework, before any logging; and with a
 * middleware that only spends 1 µs of CPU per request (a busy loop before the handler):
 * how much throughput this machine gives up for that much work on the request path —
 * less work than any record costs (JSON.stringify of its fields alone is about 1 µs);
 * and with pino writing to /dev/null as the request logger (Fastify's own request
 * logging; for Express and Hono a middleware writing one pino line per request), what an
 * ecosystem logger that stores nothing costs the same hello world; and with a "floor"
 * middleware doing the least any request logger does — a UUID, the start time, and one
 * `JSON.stringify` of the record's fields when the response is done, kept in memory and
 * dropped (no redaction, batching, compression or I/O): where the goal stands against
 * what one record per request costs at all on this machine.
 *
 * Each measurement is a fresh server process running plain Node on the built
 * package (`stowage/express`, … from dist/, as an application imports it; no
 * TypeScript loader in the server), warmed up for one second, then loaded by
 * autocannon (own process, loopback, same settings for both) for `--seconds`.
 * On Linux with two or more CPUs the server (all its threads, the logger's included)
 * runs on CPU 0 and autocannon on CPU 1 (`taskset`), so the two do not compete for
 * a core; `--pin off` leaves placement to the scheduler.
 * The variants alternate for `--rounds` rounds; min and median are printed.
 * The app is the same hello world in both; with the adapter, its logger writes
 * every request record to a local-directory store with the default batching
 * (`createLogger({ destination: "local" })`), and the run fails unless every
 * response served has its record delivered and none was rejected.
 *
 * Needs `npm run build`.
 * Usage: node --import jiti/register bench/bridges-http.ts [--rounds 3] [--seconds 3] [--pin on|off]
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { choiceArg, positiveArg } from "./_shared.js";
import {
  alternate,
  autocannonRun,
  median,
  min,
  onCpu,
  pinning,
  type LoadOptions,
} from "./_bridges.js";

const ROUNDS = positiveArg("rounds", 3);
const SECONDS = positiveArg("seconds", 3);
const ROOT = join(import.meta.dirname, "..");
const PIN = choiceArg("pin", ["on", "off"], "on") === "on" ? pinning() : undefined;
const LOAD: LoadOptions = { connections: 50, seconds: SECONDS, cpu: PIN?.load };

if (!existsSync(join(ROOT, "dist", "express.js")))
  throw new Error("dist/ is missing: run `npm run build` first");

/**
 * The server, run by plain `node` in the package directory (so `stowage/…`
 * resolves to dist/ like in an application). argv: framework, "with"|"without",
 * store directory ("empty": a do-nothing middleware, "spin": one spending 1 µs, "pino":
 * pino to /dev/null, "floor": one JSON line per request kept in memory; none of them with
 * Stowage's logger). Prints `{"url"}` when listening; when stdin ends, closes the
 * server and the logger and prints `{"cpuMs","delivered","rejected","ok"}`, where
 * cpuMs is the process's CPU time (all threads) from the line it was sent on
 * stdin (just before the measured run) to the end of stdin.
 */
const SERVER = `
const [framework, variant, dir] = process.argv.slice(1);
let log = null;
// "spin": a middleware that only spends 1 µs of CPU per request, before the handler.
const spin = () => { const end = performance.now() + 0.001; while (performance.now() < end); };
// "pino": a request logger of the framework's ecosystem writing to /dev/null (no store):
// Fastify's own request logging (two lines per request); for Express and Hono a middleware
// that writes one pino line per request when it finishes.
const pino = variant === "pino" ? await import("pino") : null;
const devNull = () => pino.pino(pino.destination({ dest: "/dev/null", sync: false }));
// "floor": the least a request logger does — one JSON line per request, kept in memory and dropped.
let kept = [];
const keep = (line) => { kept.push(line); if (kept.length >= 1000) kept = []; };
const floorLine = (id, method, route, status, ms) =>
  keep(JSON.stringify({ time: Date.now(), level: "info", msg: method + " " + route + " " + status, requestId: id, method, route, status, durationMs: ms }));
if (variant === "with") {
  const { createLogger } = await import("stowage");
  log = createLogger({ console: false, destination: "local", local: { path: dir } });
}
const host = "127.0.0.1";
let url, close;
const listening = (s) => new Promise((r) => (s.listening ? r() : s.once("listening", r)));
if (framework === "express") {
  const { default: express } = await import("express");
  const app = express();
  if (variant === "empty") app.use((_req, _res, next) => next());
  if (variant === "spin") app.use((_req, _res, next) => { spin(); next(); });
  if (pino) {
    const p = devNull();
    app.use((req, res, next) => {
      const start = performance.now();
      res.on("finish", () => p.info({ method: req.method, url: req.originalUrl, status: res.statusCode, ms: performance.now() - start }, "request completed"));
      next();
    });
  }
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
  const app = pino ? Fastify({ loggerInstance: devNull() }) : Fastify();
  if (variant === "empty") {
    app.addHook("onRequest", (_request, _reply, next) => next());
    app.addHook("onResponse", (_request, _reply, next) => next());
  }
  if (variant === "spin") app.addHook("onRequest", (_request, _reply, next) => { spin(); next(); });
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
  if (variant === "empty") app.use(async (_c, next) => { await next(); });
  if (variant === "spin") app.use(async (_c, next) => { spin(); await next(); });
  if (pino) {
    const p = devNull();
    app.use(async (c, next) => {
      const start = performance.now();
      await next();
      p.info({ method: c.req.method, path: c.req.path, status: c.res.status, ms: performance.now() - start }, "request completed");
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
process.stdin.setEncoding("utf8");
process.stdin.on("data", () => {
  mark = process.cpuUsage();
  console.log(JSON.stringify({ marked: true }));
});
process.stdin.on("end", async () => {
  const cpu = process.cpuUsage(mark);
  await close();
  const r = log ? await log.close({ timeoutMs: 60000 }) : null;
  const d = r ? Object.values(r.destinations)[0] : null;
  const rejected = d ? d.rejected.oversized + d.rejected.queueFull + d.rejected.spoolFull : 0;
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(JSON.stringify({ cpuMs, delivered: d ? d.delivered : 0, rejected, ok: r ? r.ok : true }));
  process.exit(0);
});
`;

/**
 * The request record's cost without HTTP, in a plain-Node process on dist/:
 * µs per request (min of 7 alternating rounds of 50,000), the adapter's whole
 * record path next to the logger calls it is made of, so the adapter's own
 * share is the difference. The calls run in event-loop turns of 100 (the adapter
 * writes its records at the end of a turn, so that is counted too).
 */
const RECORD = `
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "stowage";
import { RequestState, logRequest, requestIdFrom } from "./dist/bridges/http/request-record.js";
const log = createLogger({ console: false, destination: "local", local: { path: mkdtempSync(join(tmpdir(), "stowage-bench-rec-")), delivery: { maxQueueBytes: "1GiB" } } });
const fields = () => ({ method: "GET", route: "/hello/:id", path: "/hello/42", status: 200, durationMs: 0.123, userAgent: "autocannon/7.15.0", ip: "127.0.0.1" });
const cases = {
  "adapter: request id + state + record (logRequest)": () => logRequest(new RequestState(log, requestIdFrom(undefined)), { method: "GET", route: "/hello/:id", path: "/hello/42", status: 200, userAgent: "autocannon/7.15.0", ip: "127.0.0.1", query: undefined, headers: undefined }),
  "logger: child({ requestId }).info(msg, 7 fields)": () => log.child({ requestId: crypto.randomUUID() }).info("GET /hello/:id 200", fields()),
  "logger: child({ requestId }) alone": () => log.child({ requestId: crypto.randomUUID() }),
  "logger: info(msg, 7 fields)": () => log.info("GET /hello/:id 200", fields()),
  "logger: info(msg)": () => log.info("GET /hello/:id 200"),
};
const best = {};
for (let round = 0; round < 7; round++)
  for (const [name, fn] of Object.entries(cases)) {
    for (let i = 0; i < 5000; i++) fn();
    await new Promise((r) => setImmediate(r)); // the warm-up's deferred records are written
    const t = process.hrtime.bigint();
    // Turns of 100 requests, each ended (the adapter writes its records at a turn's end).
    for (let turn = 0; turn < 500; turn++) {
      for (let i = 0; i < 100; i++) fn();
      await new Promise((r) => setImmediate(r));
    }
    best[name] = Math.min(best[name] ?? Infinity, Number(process.hrtime.bigint() - t) / 50000 / 1000);
    await new Promise((r) => setTimeout(r, 20));
  }
await log.close({ timeoutMs: 60000 });
console.log(JSON.stringify(best));
`;

interface Served {
  rps: number;
  /** Server CPU time (all threads) per response of the measured run, µs. */
  cpuUs: number;
  responses: number;
  delivered: number;
}

/** The server variants (see SERVER), measured in this order in every round. */
const VARIANTS = ["without", "with", "empty", "spin", "pino", "floor"] as const;
type Variant = (typeof VARIANTS)[number];

/** One fresh server process: 1 s warm-up, then the measured run; returns req/s and the record count. */
async function measure(framework: string, variant: Variant): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), "stowage-bench-http-"));
  const child = spawn(
    ...onCpu(PIN?.server, process.execPath, [
      "--input-type=module",
      "-e",
      SERVER,
      framework,
      variant,
      dir,
    ]),
    { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`${framework} server (${variant}) exited early`);
    return JSON.parse(value as string) as Record<string, unknown>;
  };
  try {
    const { url } = (await next()) as { url: string };
    const warm = await autocannonRun(url, { ...LOAD, seconds: 1 });
    child.stdin.write("mark\n");
    await next();
    const run = await autocannonRun(url, LOAD);
    child.stdin.end();
    const end = (await next()) as {
      cpuMs: number;
      delivered: number;
      rejected: number;
      ok: boolean;
    };
    const served = warm.responses + run.responses;
    if (variant === "with" && (!end.ok || end.rejected > 0 || end.delivered < served))
      throw new Error(
        `${framework}: ${served} responses but ${end.delivered} records delivered, ${end.rejected} rejected, ok=${end.ok}`,
      );
    return {
      rps: run.rps,
      cpuUs: (end.cpuMs * 1000) / run.responses,
      responses: served,
      delivered: end.delivered,
    };
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  `\n-- adapters: hello-world req/s, autocannon -c ${LOAD.connections} -d ${SECONDS} after 1 s warm-up, fresh server per run, ${ROUNDS} alternating rounds, ${PIN ? `server on CPU ${PIN.server}, autocannon on CPU ${PIN.load}` : "not pinned"}`,
);
console.log(
  "   req/s: min/median of the rounds, ratio with/without (goal ≥ 0.9×); empty mw / 1 µs mw: the same ratio for a do-nothing middleware / one that spends 1 µs per request; pino: pino to /dev/null as the request logger (Fastify's own, 2 lines per request; Express, Hono: 1 line per request from a middleware), for scale; floor: a middleware making one JSON line per request in memory (UUID + JSON.stringify, no I/O), the least any request logger does; cpu: server CPU µs per response (all threads), median",
);
console.log(
  `${"framework".padEnd(10)} ${"without req/s".padStart(14)} ${"with req/s".padStart(14)} ${"ratio min/med".padStart(14)} ${"empty mw min/med".padStart(17)} ${"1 µs mw min/med".padStart(16)} ${"pino min/med".padStart(13)} ${"floor min/med".padStart(14)} ${"cpu without".padStart(12)} ${"cpu with".padStart(9)} ${"cpu floor".padStart(10)} ${"records/responses".padStart(18)}`,
);
const names: Record<string, string> = {
  express: "Express 5",
  fastify: "Fastify 5",
  hono: "Hono 4",
};
const goals: string[] = [];
for (const [framework, name] of Object.entries(names)) {
  const records = { delivered: 0, responses: 0 };
  const cpu = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<
    Variant,
    number[]
  >;
  const run = (variant: Variant) => async () => {
    const r = await measure(framework, variant);
    cpu[variant].push(r.cpuUs);
    if (variant === "with") {
      records.delivered += r.delivered;
      records.responses += r.responses;
    }
    return r.rps;
  };
  const s = await alternate(
    ROUNDS,
    Object.fromEntries(VARIANTS.map((v) => [v, run(v)])) as Record<Variant, () => Promise<number>>,
  );
  const fmt = (xs: number[]) => `${min(xs).toFixed(0)}/${median(xs).toFixed(0)}`;
  const base = s.without;
  const medianRatio = (xs: number[]) => median(xs) / median(base);
  const ratio = (xs: number[]) =>
    `${(min(xs) / min(base)).toFixed(2)}/${medianRatio(xs).toFixed(2)}`;
  console.log(
    `${name.padEnd(10)} ${fmt(base).padStart(14)} ${fmt(s.with).padStart(14)} ${ratio(s.with).padStart(14)} ${ratio(s.empty).padStart(17)} ${ratio(s.spin).padStart(16)} ${ratio(s.pino).padStart(13)} ${ratio(s.floor).padStart(14)} ${median(cpu.without).toFixed(1).padStart(12)} ${median(cpu.with).toFixed(1).padStart(9)} ${median(cpu.floor).toFixed(1).padStart(10)} ${`${records.delivered}/${records.responses}`.padStart(18)}`,
  );
  const withMed = medianRatio(s.with);
  const floorMed = medianRatio(s.floor);
  goals.push(
    `${name.padEnd(10)} adapter ${withMed.toFixed(3)}× (goal ≥ 0.9×: ${withMed >= 0.9 ? "met" : "NOT met"}); floor ${floorMed.toFixed(3)}× (${floorMed >= 0.9 ? "within" : "below"} the goal); adapter/floor ${(withMed / floorMed).toFixed(2)}`,
  );
}
console.log("\n-- goal check (medians)");
for (const g of goals) console.log(g);

const record = spawn(process.execPath, ["--input-type=module", "-e", RECORD], {
  cwd: ROOT,
  stdio: ["ignore", "pipe", "inherit"],
});
let out = "";
record.stdout.on("data", (c: Buffer) => (out += c));
await new Promise((resolve) => record.on("close", resolve));
console.log("\n-- the request record without HTTP: µs per request (min of 7 rounds × 50,000)");
for (const [name, us] of Object.entries(JSON.parse(out) as Record<string, number>))
  console.log(`${name.padEnd(52)} ${us.toFixed(2).padStart(6)} µs`);
