/**
 * winston 3 with the stowage/winston transport in a real child process
 * (test/bridges/fixtures/winston-app.mjs, importing the built package), against the real
 * MinIO (and the fault proxy for the 503 burst); the bucket is read back.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy.js";
import { s3Config, s3Reader } from "../support/loggers.js";
import { minio, uniquePrefix } from "../support/minio.js";
import { idCounts, readBack, type ReadBackObject } from "../support/read-back.js";

const APP = join(import.meta.dirname, "fixtures", "winston-app.mjs");
const N = 10_000;
const proxies: FaultProxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
});

/** Runs the app asynchronously: the fault proxy lives in this process and must keep answering. */
function runApp(mode: string, config: object, n = N) {
  const child = spawn(process.execPath, [APP, String(n), mode], {
    timeout: 60_000,
    env: {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      STOWAGE_WINSTON_CONFIG: JSON.stringify(config),
    },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c));
  child.stderr.on("data", (c: Buffer) => (stderr += c));
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (status) => resolve({ status, stdout, stderr })),
  );
}

async function objectsUnder(prefix: string): Promise<ReadBackObject[]> {
  const reader = s3Reader();
  try {
    return await readBack(reader, `${prefix}/`);
  } finally {
    reader.close();
  }
}

function expectExactlyOnce(objects: ReadBackObject[], n = N): void {
  const counts = idCounts(objects);
  expect(counts.size).toBe(n);
  for (let i = 0; i < n; i++) if (counts.get(i) !== 1) expect([i, counts.get(i)]).toEqual([i, 1]);
}

// A long interval: nothing is delivered unless close (at logger.end()) asks for it. Level
// trace: winston's level (silly) is the only filter.
const delivery = { flushIntervalMs: 600_000, maxBatchRecords: 2_000 };
const config = (prefix: string, over: { endpoint?: string } = {}, d: object = {}) => ({
  ...s3Config(prefix, { ...delivery, ...d }, over),
  service: "orders",
  level: "trace" as const,
});

/** What the app logs for id `i` (see the fixture). */
const NPM = ["info", "http", "verbose", "debug", "silly", "warn"];
const STOWAGE = ["info", "info", "debug", "debug", "trace", "warning"];

it("10,000 records across child loggers arrive exactly once, levels/messages/stacks/bindings mapped; exit at winston's 'finish' after logger.end() loses nothing", async () => {
  const prefix = uniquePrefix("winston");
  const res = await runApp("end-exit", config(prefix));
  expect(res.status, res.stderr).toBe(0);
  expect(res.stdout).toContain("finished ok");
  expect(res.stderr).toBe("");
  const objects = await objectsUnder(prefix);
  expectExactlyOnce(objects);
  const byId = new Map(
    objects.flatMap((o) => o.lines).map((l) => [(l.data as { id: number }).id, l]),
  );
  for (const i of [0, 1, 2, 3, 4, 5, 6, 7, 13]) {
    expect(byId.get(i), `id ${i} (${NPM[i % 6]})`).toMatchObject({
      level: STOWAGE[i % 6],
      message: "order event",
      service: "orders",
      bindings: { app: "shop", worker: i % 4, requestId: `req-${i % 4}` },
      data: { id: i, route: "/orders/:id" },
    });
  }
  const plain = byId.get(5)!;
  expect(Object.keys(plain.data as object).sort()).toEqual(["id", "route"]);
  expect(Date.parse(plain.timestamp as string)).toBeGreaterThan(Date.now() - 120_000);

  const failed = byId.get(999)!; // child.error("failed", { id, err })
  expect(failed).toMatchObject({
    level: "error",
    message: "failed",
    bindings: { worker: 3, requestId: "req-3", app: "shop" },
    data: { id: 999 },
    error: { name: "TypeError", message: "boom 999" },
  });
  expect(String((failed.error as { stack: string }).stack)).toContain("winston-app.mjs");
  const thrown = byId.get(499)!; // child.error(err) through format.errors({ stack: true })
  expect(thrown).toMatchObject({
    level: "error",
    message: "range 499",
    bindings: { worker: 3, requestId: "req-3" },
    data: { id: 499 },
    error: { name: "RangeError", message: "range 499" },
  });
  expect(String((thrown.error as { stack: string }).stack)).toContain("winston-app.mjs");
});

it("an app that just ends (no logger.end()): the logger drains before the process exits", async () => {
  const prefix = uniquePrefix("winston-natural");
  const res = await runApp("natural", config(prefix), 3_000);
  expect(res.status, res.stderr).toBe(0);
  expectExactlyOnce(await objectsUnder(prefix), 3_000);
});

it("handleExceptions: winston logs an uncaught exception and exits 1 once the transport has delivered it", async () => {
  const prefix = uniquePrefix("winston-uncaught");
  const res = await runApp("uncaught", config(prefix), 1_000);
  expect(res.status, res.stderr).toBe(1);
  const lines = (await objectsUnder(prefix)).flatMap((o) => o.lines);
  expect(lines.filter((l) => (l.data as { id?: number }).id !== undefined)).toHaveLength(1_000);
  const crash = lines.filter((l) => (l.data as { exception?: boolean }).exception === true);
  expect(crash).toHaveLength(1);
  expect(crash[0]).toMatchObject({
    level: "error",
    error: { name: "Error", message: "uncaught boom" },
  });
  expect(String(crash[0]!.message)).toMatch(/^uncaughtException: uncaught boom/);
});

it("a 503 SlowDown burst on the first uploads is survived: still exactly once, 'finish' reports ok", async () => {
  let puts = 0;
  const proxy = await startFaultProxy(minio().endpoint, (r) =>
    r.kind === "put" && ++puts <= 6 ? "slowdown" : undefined,
  );
  proxies.push(proxy);
  const prefix = uniquePrefix("winston-503");
  const cfg = config(
    prefix,
    { endpoint: proxy.endpoint },
    { initialBackoffMs: 20, maxBackoffMs: 200, maxAttempts: 10 },
  );
  const res = await runApp("end-exit", cfg);
  expect(res.status, res.stderr).toBe(0);
  expect(res.stdout, res.stderr).toContain("finished ok");
  expect(proxy.injected.slowdown).toBe(6);
  expect(proxy.counts.put).toBeGreaterThan(6);
  expectExactlyOnce(await objectsUnder(prefix));
});
