// Issue 30 rows 5, 6, 7 and 11, each as it was found: a script that logs and ends without
// flush (memory buffer), batches that landed but were reported failed after lost answers,
// one corrupted request body or one back-dated record latching the logger for life, and a
// batch size no reader can read. Real MinIO, the real fault proxy, real child processes.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/index.js";
import { StowageError } from "../../src/shared/errors.js";
import { runStowage } from "../support/cli.js";
import { startFaultProxy, type FaultAction, type FaultProxy } from "../support/fault-proxy.js";
import { bucketIdCounts, s3Config } from "../support/loggers.js";
import { freshBucket, minio, minioStore, uniquePrefix } from "../support/minio.js";
import { idCounts, readBack } from "../support/read-back.js";

const DIST = join(import.meta.dirname, "..", "..", "dist", "index.js");
const DAY = 86_400_000;
const proxies: FaultProxy[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "stowage-hostile-delivery-"));
  dirs.push(d);
  return d;
};
type Config = Parameters<typeof createLogger>[0];

/** Runs `code` as a real ESM child process with the bucket's keys in K and S. */
function runScript(code: string): Promise<{ code: number | null; out: string; err: string }> {
  const dir = tempDir();
  const file = join(dir, "app.mjs");
  writeFileSync(file, code);
  const m = minio();
  const child = spawn(process.execPath, [file], {
    cwd: dir,
    env: {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      K: m.accessKeyId,
      S: m.secretAccessKey,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise((resolve) =>
    child.on("close", (exit) => {
      clearTimeout(guard);
      resolve({ code: exit, out, err });
    }),
  );
}

function childConfig(prefix: string, endpoint = minio().endpoint): string {
  const m = minio();
  return JSON.stringify({
    console: false,
    destination: "s3",
    s3: {
      bucket: m.bucket,
      prefix,
      region: m.region,
      endpoint,
      forcePathStyle: true,
      access_key_env: "K",
      secret_key_env: "S",
      delivery: { initialBackoffMs: 50, maxBackoffMs: 500 },
    },
  });
}

describe("issue 30 row 5: memory buffer, a script that logs and ends without flush()", () => {
  it("delivers every record before the process exits on its own (exit 0)", async () => {
    const prefix = uniquePrefix("row5");
    const res = await runScript(`import { createLogger } from ${JSON.stringify(DIST)};
const log = createLogger(${childConfig(prefix)});
for (let i = 0; i < 1000; i++) log.info("work item", { id: i });
console.log("logged");`);
    expect(res.code, res.err).toBe(0);
    expect(res.out).toBe("logged\n");
    const counts = await bucketIdCounts(prefix);
    expect(counts.size).toBe(1000);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
  }, 90_000);

  it("through 503s on the first PUTs: the exit waits for the retries, then exits 0", async () => {
    let puts = 0;
    const proxy = await startFaultProxy(minio().endpoint, (r) =>
      r.kind === "put" && ++puts <= 2 ? "slowdown" : undefined,
    );
    proxies.push(proxy);
    const prefix = uniquePrefix("row5-503");
    const res = await runScript(`import { createLogger } from ${JSON.stringify(DIST)};
const log = createLogger(${childConfig(prefix, proxy.endpoint)});
for (let i = 0; i < 300; i++) log.info("work item", { id: i });`);
    expect(res.code, res.err).toBe(0);
    expect(proxy.injected.slowdown).toBe(2);
    expect((await bucketIdCounts(prefix)).size).toBe(300);
  }, 90_000);

  it("a logger that was flushed leaves no beforeExit listener behind", async () => {
    const prefix = uniquePrefix("row5-idle");
    const log = createLogger(s3Config(prefix) as Config);
    log.info("one", { id: 1 });
    expect(process.listenerCount("beforeExit")).toBeGreaterThan(0);
    await log.flush();
    expect(process.listeners("beforeExit").map((f) => f.name)).not.toContain("onBeforeExit");
    await log.close();
  });
});

describe("issue 30 row 6: a batch the bucket holds is delivered, never reported failed", () => {
  it("lost answers then exhausted attempts: the close result equals what the bucket holds", async () => {
    // PUTs only: every answer to a HEAD is true, so what the logger says can be checked.
    let state = 11;
    const rand = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const proxy = await startFaultProxy(minio().endpoint, (r): FaultAction | undefined => {
      if (r.kind !== "put") return undefined;
      const x = rand();
      return x < 0.25 ? "drop" : x < 0.55 ? "slowdown" : undefined;
    });
    proxies.push(proxy);
    const prefix = uniquePrefix("row6");
    const N = 20_000;
    const log = createLogger(
      s3Config(
        prefix,
        {
          maxBatchRecords: 250,
          maxAttempts: 3,
          requestTimeoutMs: 2_000,
          initialBackoffMs: 10,
          maxBackoffMs: 50,
        },
        { endpoint: proxy.endpoint },
      ) as Config,
    );
    for (let i = 0; i < N; i++) log.info("order event", { id: i });
    const res = await log.close({ timeoutMs: 120_000 });
    const sink = res.destinations["sink"]!;
    expect(proxy.injected.drop).toBeGreaterThan(10);
    const counts = await bucketIdCounts(prefix);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    expect(sink.delivered).toBe(counts.size); // today: fewer delivered than the bucket holds
    expect(sink.pending).toBe(0);
  }, 180_000);
});

describe("issue 30 row 7: one transient refusal never stops delivery for the logger's life", () => {
  it("a request body corrupted in flight (XAmzContentSHA256Mismatch) is retried with the same bytes", async () => {
    let puts = 0;
    const proxy = await startFaultProxy(minio().endpoint, (r) =>
      r.kind === "put" && ++puts === 1 ? "flip-request" : undefined,
    );
    proxies.push(proxy);
    const prefix = uniquePrefix("row7-flip");
    const log = createLogger(
      s3Config(
        prefix,
        { initialBackoffMs: 10, maxBackoffMs: 50 },
        { endpoint: proxy.endpoint },
      ) as Config,
    );
    for (let i = 0; i < 100; i++) log.info("first", { id: i });
    const first = await log.flush();
    for (let i = 100; i < 200; i++) log.info("second", { id: i });
    const res = await log.close();
    expect(proxy.injected["flip-request"]).toBe(1);
    expect(first.ok, JSON.stringify(first)).toBe(true);
    expect(res.ok, JSON.stringify(res)).toBe(true);
    expect((await bucketIdCounts(prefix)).size).toBe(200);
  }, 60_000);

  it("a record older than retainDays on an Object Lock prefix is stored (locked an hour ahead), and later records still deliver", async () => {
    const bucket = await freshBucket("row7-lock", { objectLock: true });
    const prefix = uniquePrefix("row7-lock");
    const base = s3Config(prefix, { initialBackoffMs: 10, maxBackoffMs: 50 }, { bucket });
    const log = createLogger({
      ...base,
      s3: { ...base.s3, objectLock: { mode: "GOVERNANCE", retainDays: 1 } },
    } as Config);
    const old = new Date(Date.now() - 3 * DAY).toISOString();
    await log.write({ timestamp: old, level: "info", message: "back-dated", data: { id: "old" } });
    const first = await log.flush();
    for (let i = 0; i < 50; i++) log.info("fresh", { id: i });
    const res = await log.close();
    expect(first.ok, JSON.stringify(first)).toBe(true);
    expect(res.ok, JSON.stringify(res)).toBe(true);
    const store = minioStore({ bucket });
    const objects = await readBack(store, `${prefix}/`);
    expect(idCounts(objects).size).toBe(51);
    const oldKey = objects.find((o) =>
      o.lines.some((l) => (l.data as { id?: unknown } | undefined)?.id === "old"),
    )!.key;
    const info = await store.head(oldKey);
    expect(info.objectLock?.retainUntil.getTime()).toBeGreaterThan(Date.now());
    store.close();
  }, 60_000);
});

describe("issue 30 row 11: a batch size no reader can read is refused up front", () => {
  it("createLogger refuses maxBatchBytes over the readers' 25 MiB per-object cap, naming the cap", () => {
    for (const key of ["maxBatchBytes", "maxRecordBytes"]) {
      let error: unknown;
      try {
        createLogger(
          s3Config(uniquePrefix("row11"), { [key]: "40MiB", maxQueueBytes: "64MiB" }) as Config,
        );
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(StowageError);
      expect((error as StowageError).code).toBe("config");
      expect((error as StowageError).message).toMatch(
        new RegExp(`${key}.*40 MiB.*25 MiB.*never read back`),
      );
    }
  });

  it("doctor fails the config check with the same rule (exit 1, no stack)", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "stowage.config.json"),
      JSON.stringify({
        destination: "local",
        local: { path: "store", delivery: { maxBatchBytes: "40MiB", maxQueueBytes: "64MiB" } },
      }),
    );
    const run = await runStowage(["doctor"], { cwd: dir });
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toMatch(/maxBatchBytes.*25 MiB/);
    expect(run.stdout + run.stderr).not.toMatch(/\n\s+at /);
  });
});
