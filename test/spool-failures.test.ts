/**
 * SPEC §4 failure paths of the sqlite buffer (real MinIO, real spool files):
 * permanent failure → `failed` on disk → retryS3Spool → delivered by a new logger;
 * a full spool rejects and counts, losing nothing accepted; foreign or corrupt
 * files are reported clearly and never modified.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger, StowageError } from "../src/index.js";
import { getS3SpoolStatus, retryS3Spool } from "../src/s3.js";
import { openDatabase } from "../src/spool/sqlite-driver.js";
import { startFaultProxy, type FaultProxy } from "./support/fault-proxy.js";
import { s3Config, s3Reader, bucketIdCounts } from "./support/loggers.js";
import { readBack } from "./support/read-back.js";
import { minio, uniquePrefix } from "./support/minio.js";

type Cfg = Parameters<typeof createLogger>[0];
const dirs: string[] = [];
const proxies: FaultProxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tmpFile = (name = "spool.db") => {
  const d = mkdtempSync(join(tmpdir(), "stowage-spool-fail-"));
  dirs.push(d);
  return join(d, name);
};
const sqlite = (spoolPath: string, extra: Record<string, unknown> = {}) => ({
  buffer: "sqlite",
  spoolPath,
  ...extra,
});

describe("§4 permanent failure: failed on disk, status, retry, delivery by a new logger", () => {
  it("§3.5 §4 wrong secret → batches end failed; retryS3Spool re-arms them; the right secret delivers each record once", async () => {
    const spoolPath = tmpFile();
    const prefix = uniquePrefix("spool-perm");
    const delivery = sqlite(spoolPath, {
      maxBatchRecords: 10,
      requestTimeoutMs: 2000,
      maxAttempts: 2,
      initialBackoffMs: 1,
      maxBackoffMs: 5,
    });
    const bad = createLogger(s3Config(prefix, delivery, { secret: "not-the-secret" }) as Cfg);
    for (let i = 0; i < 50; i++) await bad.write({ message: "order", data: { id: i } });
    const res = await bad.flush({ timeoutMs: 30_000 });
    const d = res.destinations.sink!;
    expect(res).toMatchObject({ ok: false, timedOut: false });
    expect(d.failure).toMatchObject({ category: "auth", code: "SignatureDoesNotMatch" });
    expect(d.delivered).toBe(0);
    expect(JSON.stringify(res)).not.toContain("not-the-secret");
    await bad.close({ timeoutMs: 5_000 });

    const status = await getS3SpoolStatus(spoolPath);
    expect(status.failed).toBeGreaterThanOrEqual(1);
    expect(status).toMatchObject({
      records: 0,
      pending: 5 - status.failed,
      failedRecords: status.failed * 10,
      leased: 0,
    });
    expect(status.pendingRecords + status.failedRecords).toBe(50);
    expect((await bucketIdCounts(prefix)).size).toBe(0);

    expect(await retryS3Spool(spoolPath)).toEqual({ rearmed: status.failed });
    expect(await getS3SpoolStatus(spoolPath)).toMatchObject({
      failed: 0,
      pending: 5,
      pendingRecords: 50,
    });
    expect(await retryS3Spool(spoolPath)).toEqual({ rearmed: 0 });

    const good = createLogger(s3Config(prefix, delivery) as Cfg);
    const ok = await good.close({ timeoutMs: 30_000 });
    expect(ok.destinations.sink).toMatchObject({
      ok: true,
      delivered: 50,
      objects: 5,
      pending: 0,
      failure: null,
    });
    const counts = await bucketIdCounts(prefix);
    expect(counts.size).toBe(50);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(await getS3SpoolStatus(spoolPath)).toMatchObject({
      records: 0,
      pending: 0,
      failed: 0,
      bytes: 0,
    });
  }, 120_000);
});

describe("§4 maxSpoolBytes", () => {
  it("§4 a full spool rejects new records (counted, write() rejects); every accepted record is delivered once", async () => {
    let stall = true;
    const proxy = await startFaultProxy(minio().endpoint, (r) =>
      stall && r.kind === "put" ? "stall" : undefined,
    );
    proxies.push(proxy);
    const spoolPath = tmpFile();
    const prefix = uniquePrefix("spool-full");
    const log = createLogger(
      s3Config(
        prefix,
        sqlite(spoolPath, {
          maxSpoolBytes: "48KiB",
          maxRecordBytes: 4096,
          maxBatchRecords: 20,
          requestTimeoutMs: 500,
          maxAttempts: 100,
          initialBackoffMs: 20,
          maxBackoffMs: 100,
        }),
        { endpoint: proxy.endpoint },
      ) as Cfg,
    );
    const accepted: number[] = [];
    let rejections = 0;
    for (let i = 0; i < 2000 && rejections < 20; i++) {
      try {
        await log.write({
          message: "fill",
          data: { id: i, pad: randomBytes(150).toString("hex") },
        });
        accepted.push(i);
      } catch (err) {
        expect(err).toBeInstanceOf(StowageError);
        expect((err as StowageError).code).toBe("rejected");
        expect((err as Error).message).toMatch(/spool is full/);
        rejections++;
      }
    }
    for (let i = 0; i < 200; i++)
      log.info("burst", { id: `burst-${i}`, pad: randomBytes(150).toString("hex") }); // never throws
    const mid = await log.flush({ timeoutMs: 300 });
    const m = mid.destinations.sink!;
    expect(mid.timedOut).toBe(true);
    expect(m.rejected.spoolFull).toBeGreaterThanOrEqual(20 + 1);
    expect(m.rejected.queueFull + m.rejected.oversized).toBe(0);
    const status = await getS3SpoolStatus(spoolPath);
    expect(status.bytes).toBeLessThanOrEqual(48 * 1024);
    stall = false;
    const res = await log.close({ timeoutMs: 60_000 });
    const d = res.destinations.sink!;
    expect(res.ok).toBe(true);
    const burstAccepted = 200 - (d.rejected.spoolFull - rejections);
    expect(d.delivered).toBe(accepted.length + burstAccepted);
    const counts = await bucketIdCounts(prefix);
    for (const id of accepted) expect(counts.get(id)).toBe(1);
    expect(counts.size).toBe(d.delivered);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  }, 120_000);
});

describe("§3.3 §4 the spool holds redacted records only", () => {
  it("§3.3 §4 secrets never reach the spool file (records or sealed batches)", async () => {
    let stall = true;
    const proxy = await startFaultProxy(minio().endpoint, (r) =>
      stall && r.kind === "put" ? "stall" : undefined,
    );
    proxies.push(proxy);
    const spoolPath = tmpFile();
    const prefix = uniquePrefix("spool-redact");
    const log = createLogger(
      s3Config(
        prefix,
        sqlite(spoolPath, {
          maxBatchRecords: 5,
          requestTimeoutMs: 500,
          maxAttempts: 100,
          initialBackoffMs: 10,
          maxBackoffMs: 50,
        }),
        { endpoint: proxy.endpoint },
      ) as Cfg,
    );
    for (let i = 0; i < 12; i++) {
      await log.write({
        message: "login Bearer abcdefghijklmnopqrstuvwxyz0123",
        data: { id: i, password: "hunter2-do-not-store", apiKey: "k-do-not-store" },
      });
    }
    const files = [spoolPath, `${spoolPath}-wal`]
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f));
    const status = await getS3SpoolStatus(spoolPath);
    expect(status.records + status.pendingRecords).toBe(12);
    expect(status.pending).toBeGreaterThanOrEqual(2); // sealed batches are in the file too (gzip: checked after delivery below)
    const all = Buffer.concat(files);
    expect(all.includes("hunter2")).toBe(false);
    expect(all.includes("k-do-not-store")).toBe(false);
    expect(all.includes("abcdefghijklmnopqrstuvwxyz0123")).toBe(false);
    expect(all.includes("[REDACTED]")).toBe(true); // the unsealed records are there, redacted
    stall = false;
    expect((await log.close({ timeoutMs: 30_000 })).ok).toBe(true);
    const reader = s3Reader();
    const text = (await readBack(reader, `${prefix}/`)).map((o) => o.text).join("");
    reader.close();
    expect(text).not.toContain("hunter2");
    expect(text).toContain("[REDACTED]");
  }, 60_000);
});

describe("§4 corrupt or foreign file at spoolPath", () => {
  const digest = (p: string) => createHash("sha256").update(readFileSync(p)).digest("hex");
  const cases: [string, (p: string) => void, RegExp][] = [
    [
      "not SQLite at all",
      (p) => writeFileSync(p, "name,amount\nalice,3\n".repeat(200)),
      /not a Stowage spool: it is not an SQLite database/,
    ],
    [
      "an SQLite database of another application",
      (p) =>
        foreignDb(
          p,
          "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5);",
        ),
      /other tables \(invoices\)/,
    ],
    [
      "an SQLite database with a meta table but no magic row",
      (p) =>
        foreignDb(
          p,
          "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('magic', 'other-app');",
        ),
      /without the stowage-spool magic row/,
    ],
    [
      "a spool of another schema version",
      (p) =>
        foreignDb(
          p,
          "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('magic', 'stowage-spool'), ('schema', '99');",
        ),
      /schema 99; this version reads schema 1/,
    ],
    ["a spool whose pages are corrupt", corruptSpool, /corrupt or not a Stowage spool/],
  ];
  it.each(cases)(
    "§4 %s: a clear StowageError('spool') naming the path; the file is not modified",
    async (_name, make, message) => {
      const spoolPath = tmpFile();
      make(spoolPath);
      const before = digest(spoolPath);
      const cfg = s3Config(uniquePrefix("foreign"), sqlite(spoolPath)) as Cfg;
      let thrown: unknown;
      try {
        createLogger(cfg);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(StowageError);
      expect((thrown as StowageError).code).toBe("spool");
      expect((thrown as Error).message).toContain(spoolPath);
      expect((thrown as Error).message).toMatch(message);
      expect((thrown as StowageError).hint).toMatch(/spoolPath/);
      await expect(getS3SpoolStatus(spoolPath)).rejects.toThrow(message);
      await expect(retryS3Spool(spoolPath)).rejects.toThrow(message);
      expect(digest(spoolPath)).toBe(before);
    },
  );

  it("§4 status and retry of a path with no spool say so and create nothing", async () => {
    const missing = tmpFile("missing.db");
    await expect(getS3SpoolStatus(missing)).rejects.toMatchObject({
      code: "not-found",
      message: expect.stringContaining(missing),
    });
    await expect(retryS3Spool(missing)).rejects.toMatchObject({ code: "not-found" });
    expect(existsSync(missing)).toBe(false);
  });
});

function foreignDb(path: string, sql: string): void {
  const db = openDatabase(path, { busyTimeoutMs: 1000 });
  db.exec(sql);
  db.close();
}

/** A real spool file whose schema page is overwritten with garbage (header kept). */
function corruptSpool(path: string): void {
  const db = openDatabase(path, { busyTimeoutMs: 1000 });
  db.exec(
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('magic', 'stowage-spool'), ('schema', '1');",
  );
  db.close();
  const bytes = readFileSync(path);
  randomBytes(3000).copy(bytes, 100);
  writeFileSync(path, bytes);
}
