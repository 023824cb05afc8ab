/**
 * SPEC §4 several processes on one spool file (real child processes, MinIO):
 * no loss, no duplicate; a survivor delivers the work of one that was killed;
 * a process that ends without close() exits by itself and leaves its records on disk.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { getS3SpoolStatus } from "../src/s3.js";
import { bucketIdCounts } from "./support/loggers.js";
import { uniquePrefix } from "./support/minio.js";
import { exitsOnItsOwn, spawnSpoolChild } from "./support/spool-procs.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const spoolFile = () => {
  const d = mkdtempSync(join(tmpdir(), "stowage-spool-share-"));
  dirs.push(d);
  return join(d, "nested", "dir", "spool.db"); // parent directories are created
};
const LEASE_ENV = { STOWAGE_SPOOL_LEASE_MS: "1500" };
const DELIVERY = {
  maxBatchRecords: 50,
  flushIntervalMs: 300,
  requestTimeoutMs: 2000,
  maxAttempts: 10,
  initialBackoffMs: 20,
  maxBackoffMs: 200,
};

describe("§4 two processes sharing one spool", () => {
  it("§4 both write and close concurrently: every id exactly once, each process delivers its own", async () => {
    const spoolPath = spoolFile();
    const prefix = uniquePrefix("share");
    const a = spawnSpoolChild(
      { mode: "log", spoolPath, prefix, tag: "a", inFlight: 6, max: 1500, delivery: DELIVERY },
      LEASE_ENV,
    );
    const b = spawnSpoolChild(
      { mode: "log", spoolPath, prefix, tag: "b", inFlight: 6, max: 1500, delivery: DELIVERY },
      LEASE_ENV,
    );
    expect(await exitsOnItsOwn(a, 120_000)).toBe(0);
    expect(await exitsOnItsOwn(b, 120_000)).toBe(0);
    for (const c of [a, b]) {
      expect(c.acked).toHaveLength(1500);
      expect(
        (c.final as { ok: boolean; destinations: { sink: unknown } }).destinations.sink,
      ).toMatchObject({ ok: true, delivered: 1500, pending: 0 });
    }
    const counts = await bucketIdCounts(prefix);
    expect(counts.size).toBe(3000);
    expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
    expect(await getS3SpoolStatus(spoolPath)).toMatchObject({
      records: 0,
      pending: 0,
      failed: 0,
      bytes: 0,
    });
  }, 180_000);

  it("§4 one is killed: the survivor adopts its unsealed records (its pid is gone: at once); nothing lost or doubled", async () => {
    const spoolPath = spoolFile();
    const prefix = uniquePrefix("share-kill");
    // a never seals (no count, bytes or interval seal): all it acknowledged stays unsealed under its owner id.
    const a = spawnSpoolChild(
      {
        mode: "log",
        spoolPath,
        prefix,
        tag: "a",
        inFlight: 8,
        delivery: {
          ...DELIVERY,
          maxBatchRecords: 1_000_000,
          maxBatchBytes: "25MiB", // the most a reader reads per object (issue 30 row 11)
          flushIntervalMs: 600_000,
        },
      },
      LEASE_ENV,
    );
    const b = spawnSpoolChild(
      { mode: "log", spoolPath, prefix, tag: "b", inFlight: 2, delivery: DELIVERY },
      LEASE_ENV,
    );
    await a.until(() => a.acked.length >= 520, 60_000, "a acknowledged 520 writes");
    await b.until(() => b.acked.length >= 50, 60_000, "b is writing");
    await a.kill();
    const aAcked = new Set(a.acked);
    // The survivor, still running, must deliver everything a acknowledged.
    const deadline = Date.now() + 90_000;
    let counts = await bucketIdCounts(prefix);
    while ([...aAcked].some((id) => !counts.has(id)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      counts = await bucketIdCounts(prefix);
    }
    expect([...aAcked].filter((id) => !counts.has(id))).toEqual([]);
    b.proc.kill("SIGTERM"); // stop writing, close normally
    expect(await exitsOnItsOwn(b, 90_000)).toBe(0);
    const closed = (
      b.final as { destinations: { sink: { ok: boolean; delivered: number; pending: number } } }
    ).destinations.sink;
    expect(closed).toMatchObject({ ok: true, pending: 0 });
    expect(closed.delivered).toBeGreaterThanOrEqual(b.acked.length + aAcked.size); // its own + what it adopted from a
    counts = await bucketIdCounts(prefix);
    expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
    for (const id of [...aAcked, ...b.acked]) expect(counts.get(id), id).toBe(1);
    expect(await getS3SpoolStatus(spoolPath)).toMatchObject({
      records: 0,
      pending: 0,
      failed: 0,
      bytes: 0,
    });
  }, 240_000);
});

describe("§3.2 §4 process lifetime", () => {
  it("§3.2 a process that logs and never closes exits on its own; its committed records stay in the spool", async () => {
    const spoolPath = spoolFile();
    const prefix = uniquePrefix("no-close");
    const c = spawnSpoolChild(
      {
        mode: "log",
        spoolPath,
        prefix,
        tag: "n",
        inFlight: 1,
        max: 30,
        delivery: { ...DELIVERY, flushIntervalMs: 600_000 },
      },
      {
        ...LEASE_ENV,
        STOWAGE_TEST_NO_CLOSE: "1",
      },
    );
    expect(await exitsOnItsOwn(c, 60_000)).toBe(0);
    expect(c.acked).toHaveLength(30);
    expect(await getS3SpoolStatus(spoolPath)).toMatchObject({ records: 30, pending: 0 });
    const drain = spawnSpoolChild(
      { mode: "drain", spoolPath, prefix, delivery: DELIVERY },
      LEASE_ENV,
    );
    expect(await exitsOnItsOwn(drain, 90_000)).toBe(0);
    const counts = await bucketIdCounts(prefix);
    expect(counts.size).toBe(30);
  }, 180_000);
});
