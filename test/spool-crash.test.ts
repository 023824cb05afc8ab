/**
 * SPEC §4 crash safety with real child processes, a real fault proxy and MinIO:
 * SIGKILL at random moments loses nothing acknowledged and duplicates nothing;
 * a PUT that landed before the kill is re-sent after the lease and counted delivered (412).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { getS3SpoolStatus } from "../src/s3.js";
import {
  randomFaults,
  startFaultProxy,
  type FaultAction,
  type FaultProxy,
  type FaultRule,
} from "./support/fault-proxy.js";
import { s3Reader, bucketIdCounts } from "./support/loggers.js";
import { minio, uniquePrefix } from "./support/minio.js";
import { listAll } from "./support/read-back.js";
import { exitsOnItsOwn, seeded, spawnSpoolChild } from "./support/spool-procs.js";

const dirs: string[] = [];
const proxies: FaultProxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "stowage-spool-crash-"));
  dirs.push(d);
  return d;
}

const LEASE_ENV = { STOWAGE_SPOOL_LEASE_MS: "1500" };
/** 6 in the suite; a soak: `STOWAGE_CRASH_CYCLES=60 npx vitest run test/spool-crash.test.ts`. */
const CYCLES = Math.max(5, Number(process.env.STOWAGE_CRASH_CYCLES ?? 6));
const DELIVERY = {
  maxBatchRecords: 40,
  flushIntervalMs: 250,
  requestTimeoutMs: 1000,
  maxAttempts: 30,
  initialBackoffMs: 20,
  maxBackoffMs: 200,
};

describe("§4 crash loop: SIGKILL at random moments, MinIO sometimes failing", () => {
  it(
    "§4 every acknowledged id is in the bucket exactly once after a final restart and flush",
    async () => {
      const seed = Number(process.env.STOWAGE_CRASH_SEED ?? Date.now() % 100_000);
      const rand = seeded(seed);
      const proxy = await startFaultProxy(minio().endpoint);
      proxies.push(proxy);
      const spoolPath = join(tmp(), "spool.db");
      const prefix = uniquePrefix("crash-loop");
      const plans: [string, FaultRule | undefined][] = [
        ["no faults", undefined],
        [
          "503/500 on 30% of PUTs",
          randomFaults(0.3, ["slowdown", "500"] as FaultAction[], { seed, kinds: ["put"] }),
        ],
        [
          "dropped responses (PUT landed) on 30%",
          randomFaults(0.3, ["drop"], { seed: seed + 1, kinds: ["put", "head"] }),
        ],
        [
          "resets and stalls on 20%",
          randomFaults(0.2, ["reset", "stall"], { seed: seed + 2, kinds: ["put", "head"] }),
        ],
        ["no faults", undefined],
        [
          "mixed 25%",
          randomFaults(0.25, ["slowdown", "500", "reset", "drop"], {
            seed: seed + 3,
            kinds: ["put", "head"],
          }),
        ],
      ];
      const acked = new Set<string>();
      let cycle = 0;
      for (let k = 0; k < CYCLES; k++) {
        const [, rule] = plans[k % plans.length]!;
        proxy.setRule(rule);
        const child = spawnSpoolChild(
          {
            mode: "log",
            spoolPath,
            prefix,
            endpoint: proxy.endpoint,
            tag: `c${cycle}`,
            inFlight: 8,
            delivery: DELIVERY,
          },
          LEASE_ENV,
        );
        const target = 100 + Math.floor(rand() * 700);
        await child.until(
          () => child.acked.length >= target,
          60_000,
          `${target} acknowledged writes in cycle ${cycle}`,
        );
        await new Promise((r) => setTimeout(r, Math.floor(rand() * 400))); // kill at a random moment, mid-write/seal/upload
        await child.kill();
        for (const id of child.acked) acked.add(id);
        cycle++;
      }
      proxy.setRule(undefined);
      const final = spawnSpoolChild(
        {
          mode: "drain",
          spoolPath,
          prefix,
          endpoint: proxy.endpoint,
          deadlineMs: 90_000,
          delivery: DELIVERY,
        },
        LEASE_ENV,
      );
      expect(await exitsOnItsOwn(final, 120_000)).toBe(0);
      const drained = final.final as { status: Record<string, number>; closed: { ok: boolean } };
      expect(drained.status).toMatchObject({ records: 0, pending: 0, failed: 0, bytes: 0 });
      expect(drained.closed.ok).toBe(true);

      const counts = await bucketIdCounts(prefix);
      const missing = [...acked].filter((id) => counts.get(id) !== 1 && !counts.has(id));
      const duplicates = [...counts].filter(([, n]) => n > 1);
      const found = [...acked].filter((id) => counts.get(id) === 1).length;
      console.log(
        `crash-loop tally (seed ${seed}): cycles=${cycle} acknowledged=${acked.size} found=${found} duplicates=${duplicates.length} ` +
          `delivered-unacknowledged=${counts.size - found} injected=${JSON.stringify(proxy.injected)}`,
      );
      expect(cycle).toBeGreaterThanOrEqual(5);
      expect(missing).toEqual([]);
      expect(duplicates).toEqual([]);
      expect(found).toBe(acked.size);
      expect(proxy.injected.drop + proxy.injected.slowdown + proxy.injected["500"]).toBeGreaterThan(
        0,
      );
    },
    600_000 + CYCLES * 30_000,
  );
});

describe("§4 kill during upload", () => {
  it("§3.5 §4 a PUT that landed before SIGKILL is re-sent after the lease, answered 412, counted delivered, not duplicated", async () => {
    const prefix = uniquePrefix("kill-upload");
    let puts = 0;
    // The first PUT lands in MinIO but its answer is cut; every later PUT stalls: the child is held in the window.
    const proxy = await startFaultProxy(minio().endpoint, (r) =>
      r.kind === "put" ? (puts++ === 0 ? "drop" : "stall") : undefined,
    );
    proxies.push(proxy);
    const spoolPath = join(tmp(), "spool.db");
    const delivery = {
      maxBatchRecords: 20,
      flushIntervalMs: 600_000,
      requestTimeoutMs: 2000,
      maxAttempts: 50,
      initialBackoffMs: 10,
      maxBackoffMs: 50,
    };
    const child = spawnSpoolChild(
      {
        mode: "log",
        spoolPath,
        prefix,
        endpoint: proxy.endpoint,
        tag: "k",
        inFlight: 4,
        max: 20,
        delivery,
      },
      LEASE_ENV,
    );
    await child.until(
      () => proxy.injected.drop === 1 && child.acked.length === 20,
      60_000,
      "the first PUT landed and its answer was dropped",
    );
    const reader = s3Reader();
    // The drop is counted when the proxy forwards the PUT: wait until MinIO has stored it.
    let keys = await listAll(reader, `${prefix}/`);
    for (let i = 0; keys.length === 0 && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      keys = await listAll(reader, `${prefix}/`);
    }
    expect(keys).toHaveLength(1); // the object is there …
    await child.kill(); // … but the process dies before it could mark the batch delivered
    expect(await getS3SpoolStatus(spoolPath)).toMatchObject({
      records: 0,
      pending: 1,
      leased: 1,
      pendingRecords: 20,
    });

    proxy.setRule(undefined);
    const before = { put: proxy.counts.put ?? 0, head: proxy.counts.head ?? 0 };
    const drain = spawnSpoolChild(
      { mode: "drain", spoolPath, prefix, endpoint: proxy.endpoint, delivery },
      LEASE_ENV,
    );
    expect(await exitsOnItsOwn(drain, 90_000)).toBe(0);
    const out = drain.final as {
      last: { destinations: { sink: Record<string, unknown> } };
      status: Record<string, number>;
    };
    expect(out.status).toMatchObject({ records: 0, pending: 0, failed: 0 });
    expect(out.last.destinations.sink).toMatchObject({
      ok: true,
      delivered: 20,
      objects: 1,
      pending: 0,
      failure: null,
    });
    expect((proxy.counts.put ?? 0) - before.put).toBe(1); // re-sent once, same key: 412
    expect((proxy.counts.head ?? 0) - before.head).toBeGreaterThanOrEqual(1); // the HEAD that confirmed it
    expect(await listAll(reader, `${prefix}/`)).toEqual(keys);
    const counts = await bucketIdCounts(prefix);
    expect(counts.size).toBe(20);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    reader.close();
  }, 240_000);
});
