// Object Lock through the logger: both buffers write locked objects
// to a lock-enabled bucket, through a proxy that throttles and drops responses after
// the PUT landed — still exactly once, every object locked until its newest record
// + retain_days (the same date on every attempt), and `verify --depth full` passes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/index.js";
import { parseObjectKey } from "../src/v1-format/object-key.js";
import { verifyLogs } from "../src/verify/verify-logs.js";
import { startFaultProxy, type FaultProxy } from "./support/fault-proxy.js";
import { freshBucket, minio, minioStore, uniquePrefix } from "./support/minio.js";
import { idCounts, readBack } from "./support/read-back.js";
import { s3Config } from "./support/loggers.js";

const N = 2_000;
const DAY = 86_400_000;
const proxies: FaultProxy[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

describe("the logger writes locked objects", () => {
  it.each(["memory", "sqlite"] as const)(
    "%s buffer: exactly once under faults, locked until max-ms + retain_days",
    async (buffer) => {
      const bucket = await freshBucket(`lock-${buffer}`, { objectLock: true });
      // Every third PUT lands but loses its answer, the next one is throttled: retries galore.
      let puts = 0;
      const proxy = await startFaultProxy(minio().endpoint, (r) => {
        if (r.kind !== "put") return undefined;
        puts++;
        return puts % 3 === 1 ? "drop" : puts % 3 === 2 ? "slowdown" : undefined;
      });
      proxies.push(proxy);
      const dir = mkdtempSync(join(tmpdir(), "stowage-lock-"));
      dirs.push(dir);
      const prefix = uniquePrefix(`lock-${buffer}`);
      const base = s3Config(
        prefix,
        {
          buffer,
          ...(buffer === "sqlite" ? { spoolPath: join(dir, "spool.db") } : {}),
          maxBatchRecords: 200,
          requestTimeoutMs: 2_000,
          maxAttempts: 12,
          initialBackoffMs: 20,
          maxBackoffMs: 300,
        },
        { endpoint: proxy.endpoint, bucket },
      );
      const log = createLogger({
        ...base,
        s3: { ...base.s3, objectLock: { mode: "GOVERNANCE", retainDays: 2 } },
      } as Parameters<typeof createLogger>[0]);
      for (let i = 0; i < N; i++) log.info("audited event", { id: i });
      const res = await log.close({ timeoutMs: 120_000 });
      expect(res.ok, JSON.stringify(res)).toBe(true);
      expect(proxy.injected.drop).toBeGreaterThanOrEqual(5);
      expect(proxy.injected.slowdown).toBeGreaterThanOrEqual(5);

      const store = minioStore({ bucket });
      const objects = await readBack(store, `${prefix}/`);
      const counts = idCounts(objects);
      expect(counts.size).toBe(N);
      expect([...counts.values()].every((c) => c === 1)).toBe(true);
      for (const o of objects) {
        const head = await store.head(o.key);
        const parts = parseObjectKey(o.key, prefix)!;
        expect(head.objectLock).toEqual({
          mode: "GOVERNANCE",
          retainUntil: new Date(Math.ceil((parts.maxMs + 2 * DAY) / 1000) * 1000),
        });
      }
      const report = await verifyLogs(store, {
        prefix,
        fromMs: Date.now() - 3_600_000,
        toMs: Date.now(),
        depth: "full",
        objectLock: { mode: "GOVERNANCE", retainDays: 2 },
      });
      expect(report.failures).toEqual([]);
      expect(report.checked).toBe(objects.length);
      store.close();
    },
    180_000,
  );
});
