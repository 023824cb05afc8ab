/**
 * Issue 30 rows 2 and 3: the pino worker transport through the ends of a real app's life.
 * pino 10 in a real child process (test/hostile/fixtures/pino-lifetime-app.mjs, importing
 * the built `stowage/pino`), the real MinIO behind the fault proxy, the bucket read back.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startFaultProxy, type FaultProxy, type FaultRule } from "../support/fault-proxy.js";
import { bucketIdCounts, s3Config } from "../support/loggers.js";
import { minio, uniquePrefix } from "../support/minio.js";

const APP = join(import.meta.dirname, "fixtures", "pino-lifetime-app.mjs");
const proxies: FaultProxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
});

interface AppRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the app asynchronously: the fault proxy lives in this process and must keep answering. */
function runApp(mode: string, variant: string, config: object): Promise<AppRun> {
  const child = spawn(process.execPath, [APP, mode, variant], {
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
  return new Promise((resolve) =>
    child.on("close", (status) => resolve({ status, stdout, stderr })),
  );
}

async function proxied(rule: FaultRule) {
  const proxy = await startFaultProxy(minio().endpoint, rule);
  proxies.push(proxy);
  return proxy;
}

/** Nothing is sealed by time: only flush and close deliver. Short backoff keeps the outage brief. */
const delivery = {
  flushIntervalMs: 600_000,
  maxAttempts: 2,
  initialBackoffMs: 10,
  maxBackoffMs: 50,
};

describe("issue 30 row 2: pino's logger.flush(cb) while delivery fails", () => {
  it.each(["plain", "listener", "wrapped"])(
    "issue 30 row 2 (%s transport): no crash, the transport lives on and the 1,000 later lines reach the bucket",
    async (variant) => {
      let puts = 0;
      // A 2-PUT outage: the first batch (ids 0–99) exhausts its 2 attempts, then the store is healthy.
      const proxy = await proxied((r) =>
        r.kind === "put" && ++puts <= 2 ? "slowdown" : undefined,
      );
      const prefix = uniquePrefix("pino-flush-outage");
      const config = s3Config(prefix, delivery, { endpoint: proxy.endpoint });
      const res = await runApp("flush-outage", variant, config);

      expect(res.status, res.stderr).toBe(0);
      expect(proxy.injected.slowdown).toBe(2);
      const counts = await bucketIdCounts(prefix);
      expect(counts.size).toBe(1_000);
      for (let i = 100; i < 1_100; i++)
        if (counts.get(i) !== 1) expect([i, counts.get(i)]).toEqual([i, 1]);
      expect(res.stdout).not.toContain("transport error");
      expect(res.stdout).toContain("flush2");
      // The failed flush is reported from the worker, without secrets.
      expect(res.stderr).toMatch(/stowage\/pino: flush failed .*100 of 100 record\(s\)/);
      expect(res.stderr).not.toContain(minio().secretAccessKey);
      if (variant === "wrapped") {
        // With withFlushErrors, pino's flush callback gets the error.
        expect(res.stdout).toMatch(/flush1 error: stowage: flush did not deliver every record/);
      }
    },
  );
});

describe("issue 30 row 3: pino transport, store down at exit", () => {
  it.each(["natural", "exit"])(
    "issue 30 row 3 (%s end): the loss of 3,000 lines is reported on stderr while the main thread blocks in exit",
    async (variant) => {
      // The store is down for the whole run: every request's connection is reset.
      const proxy = await proxied(() => "reset");
      const prefix = uniquePrefix("pino-exit-down");
      const config = s3Config(prefix, delivery, { endpoint: proxy.endpoint });
      const res = await runApp("exit-down", variant, config);

      expect(res.status, res.stderr).toBe(0);
      expect(proxy.injected.reset).toBeGreaterThan(0);
      expect(res.stderr).toMatch(
        /stowage\/pino: close failed .*; 3000 of 3000 record\(s\) not delivered/,
      );
      expect((await bucketIdCounts(prefix)).size).toBe(0);
    },
  );
});

describe("issue 30: pino transport, an app that ends badly with the store up", () => {
  it.each([
    ["exit", 3],
    ["throw", 1],
  ] as const)(
    "process ends by %s: every line logged before it is in the bucket once, exit code %i unchanged",
    async (variant, code) => {
      const proxy = await proxied(() => undefined);
      const prefix = uniquePrefix("pino-crash");
      const config = s3Config(prefix, delivery, { endpoint: proxy.endpoint });
      const res = await runApp("crash", variant, config);
      expect(res.status, res.stderr).toBe(code);
      const counts = await bucketIdCounts(prefix);
      expect(counts.size).toBe(2_000);
      expect([...counts.values()].every((c) => c === 1)).toBe(true);
    },
  );
});
