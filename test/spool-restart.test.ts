/**
 * a restarted process delivers what a crashed one left.
 * Writers are SIGKILLed at random moments while MinIO fails through the proxy;
 * the lease is the default (half a minute), so only "same host, pid not running"
 * lets the next process adopt at once. A drain process that calls flush() right
 * after createLogger() must put every acknowledged record in the bucket exactly
 * once — with that single flush. A live owner's records are counted, not taken.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { getS3SpoolStatus } from "../src/s3.js";
import { randomFaults, startFaultProxy, type FaultProxy } from "./support/fault-proxy.js";
import { bucketIdCounts } from "./support/loggers.js";
import { minio, uniquePrefix } from "./support/minio.js";
import { exitsOnItsOwn, seeded, spawnSpoolChild } from "./support/spool-procs.js";

const dirs: string[] = [];
const proxies: FaultProxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "stowage-spool-restart-"));
  dirs.push(d);
  return d;
}

/** Default lease: requestTimeoutMs × maxAttempts + 1 s = 31 s, far longer than the test's kill loop. */
const DELIVERY = {
  maxBatchRecords: 40,
  flushIntervalMs: 250,
  requestTimeoutMs: 1000,
  maxAttempts: 30,
  initialBackoffMs: 20,
  maxBackoffMs: 200,
};

interface Drained {
  flush: { ok: boolean; destinations: { sink: Record<string, number> } };
  status: { records: number; pending: number; failed: number; owners: { state: string }[] };
}

describe("adoption of provably dead owners on open", () => {
  it("SIGKILL loop (6 kills, MinIO failing), then one flush right after open delivers every acknowledged record once", async () => {
    const seed = Number(process.env.STOWAGE_CRASH_SEED ?? Date.now() % 100_000);
    const rand = seeded(seed);
    const proxy = await startFaultProxy(
      minio().endpoint,
      randomFaults(0.3, ["slowdown", "500", "drop", "reset"], { seed, kinds: ["put", "head"] }),
    );
    proxies.push(proxy);
    const spoolPath = join(tmp(), "spool.db");
    const prefix = uniquePrefix("restart");
    const acked = new Set<string>();
    for (let k = 0; k < 6; k++) {
      const child = spawnSpoolChild({
        mode: "log",
        spoolPath,
        prefix,
        endpoint: proxy.endpoint,
        tag: `k${k}`,
        inFlight: 8,
        delivery: DELIVERY,
      });
      const target = 100 + Math.floor(rand() * 300);
      await child.until(() => child.acked.length >= target, 60_000, `${target} acks in run ${k}`);
      await new Promise((r) => setTimeout(r, Math.floor(rand() * 400)));
      await child.kill();
      for (const id of child.acked) acked.add(id);
    }
    const before = await getS3SpoolStatus(spoolPath);
    // The killed owners are within their lease: status must call them dead, not live.
    expect(before.owners.length).toBeGreaterThan(0);
    expect(before.owners.every((o) => o.state !== "live")).toBe(true);

    // The same destination (a spool is bound to its endpoint): through the proxy, faults off.
    proxy.setRule(undefined);
    const drain = spawnSpoolChild({
      mode: "flush-once",
      spoolPath,
      prefix,
      endpoint: proxy.endpoint,
      delivery: DELIVERY,
    });
    expect(await exitsOnItsOwn(drain, 120_000)).toBe(0);
    const out = drain.final as unknown as Drained;
    const sink = out.flush.destinations.sink;
    expect(out.flush.ok, JSON.stringify(out.flush)).toBe(true);
    expect(sink).toMatchObject({ pending: 0, heldByOthers: 0 });
    // Read while the drain is still open: the only owner left is the drain itself.
    expect(out.status).toMatchObject({
      records: 0,
      pending: 0,
      failed: 0,
      owners: [{ state: "live", records: 0, leasedBatches: 0 }],
    });

    const counts = await bucketIdCounts(prefix);
    const missing = [...acked].filter((id) => !counts.has(id));
    const duplicates = [...counts].filter(([, n]) => n > 1);
    console.log(
      `restart tally (seed ${seed}): acknowledged=${acked.size} in-bucket=${counts.size} ` +
        `left-in-spool-before=${before.records}+${before.pendingRecords} drain-delivered=${sink.delivered} injected=${JSON.stringify(proxy.injected)}`,
    );
    expect(missing).toEqual([]);
    expect(duplicates).toEqual([]);
    expect(before.records + before.pendingRecords).toBeGreaterThan(0); // the crash left work behind
    expect(sink.delivered).toBeGreaterThan(0); // …and the single flush delivered it
  }, 300_000);

  it("a live owner's records are counted as held by others, not taken and not reported as delivered", async () => {
    // Every PUT of the live writer hangs (never answered): its batches stay leased by it, none fails.
    const failing = await startFaultProxy(minio().endpoint, (r) =>
      r.kind === "put" ? "stall" : undefined,
    );
    proxies.push(failing);
    const spoolPath = join(tmp(), "spool.db");
    const prefix = uniquePrefix("held");
    const live = spawnSpoolChild({
      mode: "log",
      spoolPath,
      prefix,
      endpoint: failing.endpoint,
      tag: "live",
      max: 200,
      delivery: { ...DELIVERY, requestTimeoutMs: 120_000, maxAttempts: 5 },
    });
    await live.until(() => live.acked.length >= 200, 60_000, "200 acks");
    const drain = spawnSpoolChild({
      mode: "flush-once",
      spoolPath,
      prefix,
      endpoint: failing.endpoint, // the live writer's destination: a spool is bound to its endpoint
      delivery: DELIVERY,
    });
    expect(await exitsOnItsOwn(drain, 120_000)).toBe(0);
    const out = drain.final as unknown as Drained;
    expect(out.flush.destinations.sink.heldByOthers).toBe(200);
    expect(out.flush.destinations.sink.delivered).toBe(0);
    expect(out.status.owners.some((o) => o.state === "live")).toBe(true);
    await live.kill();
  }, 180_000);
});
