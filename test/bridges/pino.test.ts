/**
 * pino 10 with the stowage transport in a real
 * child process, against the real MinIO (and a fault proxy for the 503 burst).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy.js";
import { s3Config, s3Reader } from "../support/loggers.js";
import { minio, uniquePrefix } from "../support/minio.js";
import { idCounts, readBack, type ReadBackObject } from "../support/read-back.js";

const APP = join(import.meta.dirname, "fixtures", "pino-app.mjs");
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
      STOWAGE_PINO_CONFIG: JSON.stringify(config),
    },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c));
  child.stderr.on("data", (c: Buffer) => (stderr += c));
  return new Promise<{ status: number | null; stdout: string; stderr: string; pid: number }>(
    (resolve) =>
      child.on("close", (status) => resolve({ status, stdout, stderr, pid: child.pid ?? -1 })),
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

// A long interval: nothing is delivered unless flush or close asks for it.
const delivery = { flushIntervalMs: 600_000, maxBatchRecords: 2_000 };

it("§1 10,000 records across child loggers arrive exactly once with pino's fields mapped; exit after logger.flush() loses nothing", async () => {
  const prefix = uniquePrefix("pino");
  const res = await runApp("flush-exit", { ...s3Config(prefix, delivery), service: "orders" });
  expect(res.status, res.stderr).toBe(0);
  expect(res.stdout).toContain("flushed ok");
  const objects = await objectsUnder(prefix);
  expectExactlyOnce(objects);
  const lines = objects.flatMap((o) => o.lines);
  const info = lines.find((l) => (l.data as { id: number }).id === 5)!;
  expect(info).toMatchObject({
    level: "info",
    message: "order event",
    service: "orders",
    bindings: { worker: 1, requestId: "req-1", pid: res.pid },
    data: { id: 5, route: "/orders/:id" },
  });
  expect(Date.parse(info.timestamp as string)).toBeGreaterThan(Date.now() - 120_000);
  const failed = lines.find((l) => (l.data as { id: number }).id === 999)!;
  expect(failed).toMatchObject({ level: "error", message: "failed", bindings: { worker: 3 } });
  expect(failed.error).toMatchObject({ name: "Error", message: "boom 999" });
  expect(String((failed.error as { stack: string }).stack)).toContain("pino-app.mjs");
});

it("§1 a process that just ends: pino's exit hook ends the transport, which delivers before the worker stops", async () => {
  const prefix = uniquePrefix("pino-natural");
  const res = await runApp("natural", s3Config(prefix, delivery), 3_000);
  expect(res.status, res.stderr).toBe(0);
  expectExactlyOnce(await objectsUnder(prefix), 3_000);
});

it("§1 a 503 SlowDown burst on the first uploads is survived: still exactly once", async () => {
  let puts = 0;
  const proxy = await startFaultProxy(minio().endpoint, (r) =>
    r.kind === "put" && ++puts <= 6 ? "slowdown" : undefined,
  );
  proxies.push(proxy);
  const prefix = uniquePrefix("pino-503");
  const config = s3Config(
    prefix,
    { ...delivery, initialBackoffMs: 20, maxBackoffMs: 200, maxAttempts: 10 },
    { endpoint: proxy.endpoint },
  );
  const res = await runApp("flush-exit", config);
  expect(res.status, res.stderr).toBe(0);
  expect(res.stdout, res.stderr).toContain("flushed ok");
  expect(proxy.injected.slowdown).toBe(6);
  expectExactlyOnce(await objectsUnder(prefix));
});

it("§1 the main-thread destination (no worker): same mapping, flushDelivery() reports delivery", async () => {
  const prefix = uniquePrefix("pino-main");
  const res = await runApp("main-thread", s3Config(prefix, delivery), 2_000);
  expect(res.status, res.stderr).toBe(0);
  expect(res.stdout).toContain("flushed ok");
  const objects = await objectsUnder(prefix);
  expectExactlyOnce(objects, 2_000);
  expect(objects[0]!.lines[0]).toMatchObject({ bindings: { requestId: "req-0" }, data: { id: 0 } });
});

it("§1 a failed delivery is reported on stderr and by pino's flush callback", async () => {
  const prefix = uniquePrefix("pino-fail");
  const config = s3Config(prefix, { ...delivery, maxAttempts: 1 }, { secret: "wrong-secret" });
  const res = await runApp("flush-exit", config, 50);
  expect(res.status).toBe(0);
  expect(res.stdout).toContain("flushed stowage: flush did not deliver every record");
  expect(res.stderr).toMatch(/stowage\/pino: flush failed \(s3: .*auth SignatureDoesNotMatch/);
  expect(res.stderr).not.toContain("wrong-secret");
});
