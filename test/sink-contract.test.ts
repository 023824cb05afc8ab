/**
 * The Sink contract (SPEC §3.2, §3.5, §4), run on both buffers (memory and sqlite) through
 * createLogger and a real store. What every buffer must do the same way:
 * counting (accepted = delivered + failed + pending, refused records only in
 * `rejected`, a refused time counted nowhere), flush that never rejects, close that
 * is final, and the result shape. The rules live once, in delivery/delivery-sink.ts.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger, isStowageError, type DeliveryEvent } from "../src/index.js";
import { localConfig, s3Config } from "./support/loggers.js";
import { uniquePrefix } from "./support/minio.js";
import { readBack } from "./support/read-back.js";

type Cfg = Parameters<typeof createLogger>[0];
type Buffer = "memory" | "sqlite";

function delivery(buffer: Buffer, extra: Record<string, unknown> = {}) {
  return {
    ...(buffer === "sqlite"
      ? { buffer, spoolPath: join(mkdtempSync(join(tmpdir(), "stowage-sink-")), "s.db") }
      : {}),
    ...extra,
  };
}

describe.each(["memory", "sqlite"] as const)("Sink contract: %s buffer", (buffer) => {
  it("counts add up: accepted records are delivered, refused ones are only in rejected", async () => {
    const { config, store } = localConfig(delivery(buffer, { maxRecordBytes: 512 }));
    const events: DeliveryEvent[] = [];
    const log = createLogger({ ...config, onEvent: (e: DeliveryEvent) => events.push(e) } as Cfg);
    for (let i = 0; i < 300; i++) log.info("ok", { i });
    for (let i = 0; i < 7; i++) log.info("too big", { pad: "x".repeat(600) });
    const mid = await log.flush();
    expect(mid.destinations.sink).toMatchObject({
      kind: "local",
      ok: true,
      delivered: 300,
      pending: 0,
      retries: 0,
      failure: null,
      rejected: { oversized: 7, queueFull: 0, spoolFull: 0 },
    });
    expect(events.filter((e) => e.type === "rejected")).toHaveLength(7);
    const res = await log.close();
    expect(res).toMatchObject({ ok: true, timedOut: false });
    expect((await readBack(store, "")).reduce((n, o) => n + o.lines.length, 0)).toBe(300);
  });

  it("after close: logging is a no-op, write() rejects with 'rejected', flush and close answer the same", async () => {
    const { config } = localConfig(delivery(buffer));
    const log = createLogger(config as Cfg);
    await log.write({ level: "info", message: "before" });
    const closed = await log.close();
    log.info("after");
    const err = await log.write({ level: "info", message: "after" }).catch((e: unknown) => e);
    expect(isStowageError(err, "rejected")).toBe(true);
    const again = await log.close();
    const flushed = await log.flush();
    for (const r of [closed, again, flushed])
      expect(r.destinations.sink).toMatchObject({ delivered: 1, pending: 0 });
  });

  it("a write() refused for its time throws 'usage' before anything is counted: nothing stays pending", async () => {
    const { config, store } = localConfig(delivery(buffer));
    const log = createLogger(config as Cfg);
    const err = await log
      .write({ level: "info", message: "too early", timestamp: "1969-12-31T23:59:59.000Z" })
      .catch((e: unknown) => e);
    expect(isStowageError(err, "usage")).toBe(true);
    expect((err as Error).message).toMatch(/outside 1970\.\.2286/);
    await log.write({ level: "info", message: "fine" });
    const res = await log.flush();
    expect(res).toMatchObject({ ok: true, timedOut: false });
    expect(res.destinations.sink).toMatchObject({
      delivered: 1,
      pending: 0,
      failure: null,
      rejected: { oversized: 0, queueFull: 0, spoolFull: 0 },
    });
    expect((await log.close()).destinations.sink).toMatchObject({ ok: true, pending: 0 });
    expect((await readBack(store, "")).reduce((n, o) => n + o.lines.length, 0)).toBe(1);
  });

  it("queue-full refusals: every record is delivered or counted rejected, never both, never lost", async () => {
    const { config, store } = localConfig(
      delivery(buffer, { maxQueueBytes: "8KiB", maxRecordBytes: 1024, maxBatchRecords: 10 }),
    );
    const events: DeliveryEvent[] = [];
    const log = createLogger({ ...config, onEvent: (e: DeliveryEvent) => events.push(e) } as Cfg);
    const N = 2_000;
    // No yield between calls: the buffer cannot hand anything off, so the queue limit is reached.
    for (let i = 0; i < N; i++) log.info("burst", { i, pad: "y".repeat(100) });
    const res = await log.flush({ timeoutMs: 30_000 });
    const d = res.destinations.sink;
    expect(res).toMatchObject({ ok: true, timedOut: false });
    expect(d.rejected.queueFull).toBeGreaterThan(0);
    expect(d.pending).toBe(0);
    expect(d.delivered + d.rejected.queueFull).toBe(N);
    expect(events.filter((e) => e.type === "rejected")).toHaveLength(d.rejected.queueFull);
    const closed = (await log.close()).destinations.sink;
    log.info("after close"); // refused as closed: not a rejection, not pending
    const again = (await log.flush()).destinations.sink;
    for (const r of [closed, again])
      expect(r).toMatchObject({ delivered: d.delivered, pending: 0, rejected: d.rejected });
    const ids = (await readBack(store, "")).flatMap((o) =>
      o.lines.map((l) => (l as { data: { i: number } }).data.i),
    );
    expect(ids).toHaveLength(d.delivered);
    expect(new Set(ids).size).toBe(d.delivered);
  }, 60_000);

  it("flush never rejects: an unreachable endpoint times out with the records pending", async () => {
    const log = createLogger(
      s3Config(
        uniquePrefix("sink-contract"),
        delivery(buffer, {
          requestTimeoutMs: 200,
          maxAttempts: 100,
          initialBackoffMs: 20,
          maxBackoffMs: 50,
        }),
        { endpoint: "http://127.0.0.1:9" },
      ) as Cfg,
    );
    // The first record awaited: the sqlite buffer's worker is up (and its commit done)
    // before the timed flush, so a slow start on a loaded machine is not in the window.
    await log.write({ level: "info", message: "x", data: { i: 0 } });
    for (let i = 1; i < 5; i++) log.info("x", { i });
    const res = await log.flush({ timeoutMs: 1_500 });
    expect(res.ok).toBe(false);
    expect(res.timedOut).toBe(true);
    expect(res.destinations.sink.pending).toBe(5);
    expect(res.destinations.sink.retries).toBeGreaterThan(0);
    await log.close({ timeoutMs: 100 });
  }, 30_000);
});
