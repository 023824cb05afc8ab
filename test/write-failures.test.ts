/** SPEC §3.5 permanent failures (pause + latch) and limits (rejections, flush timeout). */
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/index.js";
import { startFaultProxy, type FaultProxy } from "./support/fault-proxy.js";
import { s3Config, bucketIdCounts } from "./support/loggers.js";
import { minio, uniquePrefix } from "./support/minio.js";

type Cfg = Parameters<typeof createLogger>[0];
const proxies: FaultProxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
});

describe("§3.5 permanent failures pause dispatch and latch", () => {
  it("wrong credentials: auth failure latched, nothing reported delivered", async () => {
    const prefix = uniquePrefix("perm-auth");
    const log = createLogger(
      s3Config(prefix, { maxBatchRecords: 10 }, { secret: "not-the-secret" }) as Cfg,
    );
    for (let i = 0; i < 50; i++) log.info("x", { id: i });
    const res = await log.flush({ timeoutMs: 20_000 });
    const d = Object.values(res.destinations)[0]!;
    expect(res.ok).toBe(false);
    expect(res.timedOut).toBe(false); // paused: flush returns promptly instead of waiting out the timeout
    expect(d.failure).toMatchObject({ category: "auth", code: "SignatureDoesNotMatch" });
    expect(d.delivered).toBe(0);
    expect(d.pending).toBeGreaterThan(0);
    expect(JSON.stringify(res)).not.toContain("not-the-secret");
    expect((await bucketIdCounts(prefix)).size).toBe(0);
    await log.close({ timeoutMs: 1000 });
  });

  it("missing bucket: bucket-not-found latched", async () => {
    const log = createLogger(
      s3Config("p", { maxBatchRecords: 10 }, { bucket: "stowage-no-such-bucket" }) as Cfg,
    );
    for (let i = 0; i < 20; i++) log.info("x", { id: i });
    const res = await log.flush({ timeoutMs: 20_000 });
    expect(Object.values(res.destinations)[0]!.failure).toMatchObject({
      category: "bucket-not-found",
      code: "NoSuchBucket",
    });
    await log.close({ timeoutMs: 1000 });
  });

  it("the latch holds after a later success; delivered counts only what is in the bucket", async () => {
    // Exhaust one batch's attempts with 500s, then let everything through.
    let failing = true;
    const proxy = await startFaultProxy(minio().endpoint, (r) =>
      failing && r.kind === "put" ? "500" : undefined,
    );
    proxies.push(proxy);
    const prefix = uniquePrefix("latch");
    const log = createLogger(
      s3Config(
        prefix,
        { maxBatchRecords: 10, maxAttempts: 2, initialBackoffMs: 1, maxBackoffMs: 5 },
        { endpoint: proxy.endpoint },
      ) as Cfg,
    );
    for (let i = 0; i < 10; i++) log.info("first", { id: i });
    const first = await log.flush({ timeoutMs: 20_000 });
    expect(Object.values(first.destinations)[0]!.failure).toMatchObject({
      category: "other",
      batches: 1,
    });
    failing = false;
    for (let i = 10; i < 30; i++) log.info("later", { id: i });
    const later = await log.flush({ timeoutMs: 20_000 });
    const d = Object.values(later.destinations)[0]!;
    expect(later.ok).toBe(false);
    expect(d.failure).not.toBeNull();
    expect(d.delivered).toBe(20);
    const ids = await bucketIdCounts(prefix);
    expect(ids.size).toBe(d.delivered);
    for (let i = 0; i < 10; i++) expect(ids.has(i)).toBe(false);
    expect((await log.close()).ok).toBe(false);
  });
});

describe("§3.5 limits: rejections are counted, never thrown, never evict", () => {
  it("oversized records and a full queue are rejected; accepted records all land", async () => {
    // Stall every PUT so the queue fills, then release.
    let stall = true;
    const proxy = await startFaultProxy(minio().endpoint, (r) =>
      stall && r.kind === "put" ? "stall" : undefined,
    );
    proxies.push(proxy);
    const prefix = uniquePrefix("limits");
    const log = createLogger(
      s3Config(
        prefix,
        {
          maxRecordBytes: 2048,
          maxQueueBytes: 64 * 1024,
          maxBatchRecords: 20,
          requestTimeoutMs: 500,
          maxAttempts: 50,
          initialBackoffMs: 50,
          maxBackoffMs: 100,
        },
        { endpoint: proxy.endpoint },
      ) as Cfg,
    );
    expect(() => log.info("huge", { id: -1, blob: "x".repeat(10_000) })).not.toThrow();
    await expect(
      log.write({ message: "huge", data: { blob: "y".repeat(10_000) } }),
    ).rejects.toThrow(/maxRecordBytes/);
    let accepted = 0;
    for (let i = 0; i < 2000; i++) log.info("fill", { id: i, pad: "p".repeat(100) });
    const mid = await log.flush({ timeoutMs: 300 });
    const m = Object.values(mid.destinations)[0]!;
    expect(mid.timedOut).toBe(true);
    expect(m.pending).toBeGreaterThan(0);
    expect(m.rejected.oversized).toBe(2);
    expect(m.rejected.queueFull).toBeGreaterThan(0);
    accepted = m.pending + m.delivered;
    stall = false;
    const res = await log.close({ timeoutMs: 60_000 });
    const d = Object.values(res.destinations)[0]!;
    expect(res.ok).toBe(true);
    expect(d.delivered).toBe(accepted);
    expect(d.delivered + d.rejected.queueFull).toBe(2000);
    const ids = await bucketIdCounts(prefix);
    expect(ids.size).toBe(accepted);
    expect([...ids.values()].every((c) => c === 1)).toBe(true);
  }, 90_000);

  it("flush timeout returns pending > 0 and delivery continues afterwards", async () => {
    let stall = true;
    const proxy = await startFaultProxy(minio().endpoint, (r) =>
      stall && r.kind === "put" ? "stall" : undefined,
    );
    proxies.push(proxy);
    const prefix = uniquePrefix("flush-timeout");
    const log = createLogger(
      s3Config(
        prefix,
        { requestTimeoutMs: 400, maxAttempts: 100, initialBackoffMs: 20, maxBackoffMs: 50 },
        { endpoint: proxy.endpoint },
      ) as Cfg,
    );
    for (let i = 0; i < 100; i++) log.info("x", { id: i });
    const first = await log.flush({ timeoutMs: 200 });
    expect(first).toMatchObject({ ok: false, timedOut: true });
    expect(Object.values(first.destinations)[0]!.pending).toBe(100);
    stall = false;
    const second = await log.flush({ timeoutMs: 30_000 });
    expect(second.ok).toBe(true);
    expect(Object.values(second.destinations)[0]!.delivered).toBe(100);
    await log.close();
  });
});
