// Issue 30 row 1: a spool file is bound to one destination. Tenant A (a real child process)
// acknowledges writes with its endpoint down and is killed; tenant B, configured for another
// bucket and prefix on the same spoolPath, must be refused — never deliver A's records into B's
// bucket — and A's records must still reach A's bucket exactly once. Real MinIO, real processes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveLoggerConfig } from "../../src/config/logger-config.js";
import { createLogger, type Logger } from "../../src/index.js";
import { getS3SpoolStatus, retryS3Spool } from "../../src/s3.js";
import { StowageError } from "../../src/shared/errors.js";
import { SqliteSpool } from "../../src/spool/sqlite-spool.js";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy.js";
import { bucketIdCounts, s3Config, s3Reader } from "../support/loggers.js";
import { freshBucket, minio, uniquePrefix } from "../support/minio.js";
import { listAll } from "../support/read-back.js";
import { exitsOnItsOwn, spawnSpoolChild } from "../support/spool-procs.js";

const dirs: string[] = [];
const proxies: FaultProxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const spoolFile = () => {
  const d = mkdtempSync(join(tmpdir(), "stowage-spool-dest-"));
  dirs.push(d);
  return join(d, "shared.db");
};
const LEASE_ENV = { STOWAGE_SPOOL_LEASE_MS: "1500" };
const DELIVERY = {
  maxBatchRecords: 40,
  flushIntervalMs: 600_000,
  requestTimeoutMs: 1000,
  maxAttempts: 50,
  initialBackoffMs: 20,
  maxBackoffMs: 200,
};

type Cfg = ReturnType<typeof s3Config>;
const sqlite = (cfg: Cfg, spoolPath: string): Cfg => ({
  ...cfg,
  s3: { ...cfg.s3, delivery: { ...DELIVERY, buffer: "sqlite", spoolPath } },
});

/** Opens a logger, flushes and closes it; returns the error createLogger (or a write) threw, if any. */
async function runLogger(cfg: Cfg, write?: string): Promise<unknown> {
  let log: Logger | undefined;
  try {
    log = createLogger(cfg as Parameters<typeof createLogger>[0]);
    if (write) await log.write({ level: "info", message: "b", data: { id: write } });
    await log.flush({ timeoutMs: 30_000 });
    return null;
  } catch (err) {
    return err;
  } finally {
    await log?.close({ timeoutMs: 10_000 });
  }
}

function expectBindingRefusal(err: unknown, spoolPath: string, bound: string, mine: string): void {
  expect(err, "the logger for another destination was not refused").toBeInstanceOf(StowageError);
  const e = err as StowageError;
  expect(e.code).toBe("config");
  const text = `${e.message}\n${e.hint ?? ""}`;
  expect(text).toContain(spoolPath);
  expect(text).toContain(bound); // the destination the spool is bound to
  expect(text).toContain(mine); // and this logger's
  expect(text).toMatch(/spoolPath/);
  expect(text).toMatch(/default/); // the default path is per destination
  expect(text).not.toContain(minio().secretAccessKey);
  expect(text).not.toContain(minio().accessKeyId);
}

describe("issue 30 row 1: one spool file, two destinations", () => {
  it("issue 30 row 1: tenant B (other bucket and prefix, same spoolPath) is refused and delivers none of killed tenant A's records; A's destination later delivers them exactly once", async () => {
    const spoolPath = spoolFile();
    const prefixA = uniquePrefix("tenant-a");
    const prefixB = uniquePrefix("tenant-b");
    const bucketB = await freshBucket("tenant-b");
    // A's endpoint is "down": every PUT stalls until its attempt times out.
    const proxy = await startFaultProxy(minio().endpoint, (r) =>
      r.kind === "put" ? "stall" : undefined,
    );
    proxies.push(proxy);
    const a = spawnSpoolChild(
      {
        mode: "log",
        spoolPath,
        prefix: prefixA,
        endpoint: proxy.endpoint,
        tag: "a",
        inFlight: 1,
        delivery: DELIVERY,
      },
      LEASE_ENV,
    );
    await a.until(() => a.acked.length >= 100, 60_000, "tenant A acknowledged 100 writes");
    await a.kill();
    const aAcked = [...a.acked];
    expect(aAcked.length).toBeGreaterThanOrEqual(100);

    const cfgB = sqlite(s3Config(prefixB, {}, { bucket: bucketB }), spoolPath);
    const err = await runLogger(cfgB, "b-0");
    const reader = s3Reader(bucketB);
    const leaked = await listAll(reader, "");
    reader.close();
    expect(leaked, "tenant A's records were delivered into tenant B's bucket").toEqual([]);
    expectBindingRefusal(err, spoolPath, `${minio().bucket}/${prefixA}`, `${bucketB}/${prefixB}`);
    expect((err as Error).message).toContain(proxy.endpoint);

    // The default path is per destination: B without spoolPath gets a file of its own.
    const env = { env: {} };
    expect(
      resolveLoggerConfig({ ...cfgB, s3: { ...cfgB.s3, delivery: {} } }, env).delivery.spoolPath,
    ).not.toBe(
      resolveLoggerConfig(
        sqlite(s3Config(prefixA, {}, { endpoint: proxy.endpoint }), spoolPath),
        env,
      ).delivery.spoolPath,
    );

    // status and retry never deliver: they work on any spool, whatever it is bound to.
    const status = await getS3SpoolStatus(spoolPath);
    expect(status.records + status.pendingRecords).toBeGreaterThanOrEqual(aAcked.length);
    expect(await retryS3Spool(spoolPath)).toEqual({ rearmed: 0 });

    // A's own destination (endpoint back up) delivers A's records where they belong, once each.
    proxy.setRule(undefined);
    const drain = spawnSpoolChild(
      { mode: "drain", spoolPath, prefix: prefixA, endpoint: proxy.endpoint, delivery: DELIVERY },
      LEASE_ENV,
    );
    expect(await exitsOnItsOwn(drain, 120_000)).toBe(0);
    const counts = await bucketIdCounts(prefixA);
    for (const id of aAcked) expect(counts.get(id), id).toBe(1);
    expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
  }, 240_000);

  it("issue 30 row 1: a spool from before binding (no destination recorded) is bound by the first logger that opens it", async () => {
    const spoolPath = spoolFile();
    // A spool as older versions wrote it: no destination row.
    SqliteSpool.open(spoolPath, { leaseMs: 1000 }).close();
    const prefixA = uniquePrefix("first");
    const prefixB = uniquePrefix("second");
    expect(await runLogger(sqlite(s3Config(prefixA), spoolPath), "first-0")).toBeNull();
    const err = await runLogger(sqlite(s3Config(prefixB), spoolPath), "second-0");
    expectBindingRefusal(
      err,
      spoolPath,
      `${minio().bucket}/${prefixA}`,
      `${minio().bucket}/${prefixB}`,
    );
    // The same destination still shares the file.
    expect(await runLogger(sqlite(s3Config(prefixA), spoolPath), "first-1")).toBeNull();
    const counts = await bucketIdCounts(prefixA);
    expect([counts.get("first-0"), counts.get("first-1")]).toEqual([1, 1]);
    expect((await bucketIdCounts(prefixB)).size).toBe(0);
    expect(await getS3SpoolStatus(spoolPath)).toMatchObject({ records: 0, pending: 0, failed: 0 });
  }, 120_000);

  it("issue 30 row 1: two loggers for different destinations opening a new spool at once: one binds it, the other's records are refused, none cross", async () => {
    const spoolPath = spoolFile();
    const prefixA = uniquePrefix("race-a");
    const prefixB = uniquePrefix("race-b");
    const settle = async (cfg: Cfg, id: string) => {
      let log: Logger | undefined;
      try {
        log = createLogger(cfg as Parameters<typeof createLogger>[0]);
        await log.write({ level: "info", message: "race", data: { id } });
        return null;
      } catch (err) {
        return err;
      } finally {
        await log?.close({ timeoutMs: 20_000 });
      }
    };
    const [ea, eb] = await Promise.all([
      settle(sqlite(s3Config(prefixA), spoolPath), "ra"),
      settle(sqlite(s3Config(prefixB), spoolPath), "rb"),
    ]);
    const refused = [ea, eb].filter((e) => e !== null);
    expect(refused, "both destinations were accepted on one spool").toHaveLength(1);
    expect((refused[0] as Error).message).toMatch(/bound to/);
    const a = await bucketIdCounts(prefixA);
    const b = await bucketIdCounts(prefixB);
    expect([...a.keys(), ...b.keys()].sort()).toEqual([ea === null ? "ra" : "rb"]);
  }, 120_000);
});
