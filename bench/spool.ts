/**
 * Durable spool benchmarks (issue: SQLite spool), each a ratio against a
 * reference measured in this same run, against a MinIO this script starts:
 * 1. acknowledged records/s through `await write()` with `buffer: "sqlite"`
 *    (1 and 64 writes in flight) vs `buffer: "memory"` vs raw better-sqlite3
 *    inserts of the same rows in 1,000-row transactions (WAL, synchronous=NORMAL);
 * 2. spool bytes per record (file and logical payload, unsealed and sealed);
 * 3. recovery: a spool left holding N unsealed records (default 1,000,000) is
 *    re-sealed and delivered by a new logger; vs the memory buffer delivering the same N.
 * Usage: node --import jiti/register bench/spool.ts [--records N] [--acks N]
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync, statSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../src/index.js";
import { getS3SpoolStatus } from "../src/s3.js";
import { SqliteSpool } from "../src/spool/sqlite-spool.js";
import { startMinio, type RunningMinio } from "../test/support/minio-server.js";
import { positiveArg, requestFields } from "./_shared.js";

const RECOVERY_RECORDS = positiveArg("records", 1_000_000);
const ACKS = positiveArg("acks", 50_000);
const dir = mkdtempSync(join(tmpdir(), "stowage-bench-spool-"));
const data = requestFields;
const line = (i: number) =>
  JSON.stringify({
    timestamp: new Date().toISOString(),
    level: "info",
    message: "request completed",
    data: data(i),
  });
const fmt = (n: number) => Math.round(n).toLocaleString().padStart(10);
const fileBytes = (p: string) =>
  [p, `${p}-wal`].reduce((n, f) => n + (existsSync(f) ? statSync(f).size : 0), 0);

function loggerFor(server: RunningMinio, prefix: string, delivery: Record<string, unknown>) {
  return createLogger({
    console: false,
    destination: "s3",
    s3: {
      bucket: server.bucket,
      prefix,
      region: server.region,
      endpoint: server.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
      delivery: { maxQueueBytes: "256MiB", ...delivery },
    },
  } as Parameters<typeof createLogger>[0]);
}

/** Records/s acknowledged by `await write()` with `inFlight` writers; the logger is closed (delivered) afterwards. */
async function ackRate(
  server: RunningMinio,
  name: string,
  delivery: Record<string, unknown>,
  inFlight: number,
  n: number,
): Promise<number> {
  const log = loggerFor(server, `bench/${name}-${inFlight}-${Date.now()}`, delivery);
  await log.write({ message: "warm-up" }); // worker start-up is not part of the rate
  let next = 0;
  const t = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < n)
        await log.write({ level: "info", message: "request completed", data: data(next++) });
    }),
  );
  const seconds = Number(process.hrtime.bigint() - t) / 1e9;
  const res = await log.close({ timeoutMs: 600_000 });
  if (!res.ok) throw new Error(`${name}: delivery failed ${JSON.stringify(res)}`);
  return n / seconds;
}

/** Raw better-sqlite3: the same rows, 1,000 per transaction, WAL + synchronous=NORMAL. */
function rawInsertRate(n: number): number {
  const path = join(dir, "raw.db");
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(
    "CREATE TABLE records (id INTEGER PRIMARY KEY, owner INTEGER, ts_ms INTEGER NOT NULL, line TEXT NOT NULL)",
  );
  const ins = db.prepare("INSERT INTO records (owner, ts_ms, line) VALUES (1, ?, ?)");
  const tx = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) ins.run(Date.now(), line(i));
  });
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i += 1000) tx(i, Math.min(n, i + 1000));
  const rate = n / (Number(process.hrtime.bigint() - t) / 1e9);
  db.close();
  return rate;
}

async function acknowledged(server: RunningMinio): Promise<void> {
  const raw = rawInsertRate(ACKS);
  const rows: [string, number][] = [];
  for (const inFlight of [1, 64]) {
    rows.push([
      `sqlite buffer, ${inFlight} in flight`,
      await ackRate(
        server,
        "sqlite",
        { buffer: "sqlite", spoolPath: join(dir, `ack-${inFlight}.db`) },
        inFlight,
        inFlight === 1 ? Math.min(ACKS, 10_000) : ACKS,
      ),
    ]);
    rows.push([
      `memory buffer, ${inFlight} in flight`,
      await ackRate(server, "memory", {}, inFlight, ACKS),
    ]);
  }
  console.log(
    `\n-- acknowledged records/s through await write() (${ACKS.toLocaleString()} records; 10,000 with 1 in flight)`,
  );
  console.log(
    `${"raw better-sqlite3, 1,000-row txns".padEnd(36)} ${fmt(raw)} rows/s   (reference)`,
  );
  for (const [name, rate] of rows)
    console.log(
      `${name.padEnd(36)} ${fmt(rate)} records/s   ${(rate / raw).toFixed(3)}× raw inserts`,
    );
  const [s1, m1, s64, m64] = rows.map((r) => r[1]);
  console.log(
    `sqlite/memory: ${(s1! / m1!).toFixed(3)}× with 1 in flight, ${(s64! / m64!).toFixed(3)}× with 64 in flight`,
  );
}

/** Spool payload and file bytes per record, unsealed and sealed; uploads go to a closed port so nothing leaves the spool. */
async function bytesPerRecord(server: RunningMinio): Promise<void> {
  // ~300 B records: 60,000 stay under the 25 MiB batch cap, so the first spool stays unsealed.
  const n = 60_000;
  const nowhere = { ...server, endpoint: "http://127.0.0.1:9" } as RunningMinio;
  const hold = { maxAttempts: 100, initialBackoffMs: 30_000, maxBackoffMs: 30_000 };
  const measure = async (path: string, batching: Record<string, unknown>) => {
    const log = loggerFor(nowhere, "bench/bytes", {
      buffer: "sqlite",
      spoolPath: path,
      ...hold,
      ...batching,
    });
    const writes: Promise<void>[] = [];
    for (let i = 0; i < n; i++)
      writes.push(log.write({ level: "info", message: "request completed", data: data(i) }));
    await Promise.all(writes);
    return log;
  };
  const p1 = join(dir, "bytes-unsealed.db");
  const a = await measure(p1, {
    maxBatchRecords: 10_000_000,
    maxBatchBytes: "25MiB", // the most a reader reads per object, the largest batch allowed
    flushIntervalMs: 3_600_000,
  });
  const unsealed = await getS3SpoolStatus(p1);
  const unsealedFile = fileBytes(p1);
  await a.close({ timeoutMs: 100 });
  const p2 = join(dir, "bytes-sealed.db");
  const b = await measure(p2, {}); // default batch limits (1 MiB / 5,000 records)
  await b.flush({ timeoutMs: 2_000 }); // seals what is open; uploads cannot succeed
  let sealed = await getS3SpoolStatus(p2);
  while (sealed.records > 0) {
    await new Promise((r) => setTimeout(r, 200));
    sealed = await getS3SpoolStatus(p2);
  }
  const sealedFile = fileBytes(p2);
  await b.close({ timeoutMs: 100 });
  console.log(
    `\n-- spool bytes per record (${n.toLocaleString()} records of ~${line(1).length} B JSON)`,
  );
  console.log(
    `unsealed: ${(unsealed.bytes / n).toFixed(1)} B logical payload, ${(unsealedFile / n).toFixed(1)} B on disk (db + wal) = ${(unsealedFile / unsealed.bytes).toFixed(2)}× payload`,
  );
  console.log(
    `sealed:   ${(sealed.bytes / n).toFixed(1)} B logical payload (gzip 6, default batches), ${(sealedFile / n).toFixed(1)} B on disk incl. free pages = ${(unsealed.bytes / sealed.bytes).toFixed(1)}× smaller payload than unsealed`,
  );
}

async function recovery(server: RunningMinio): Promise<void> {
  const n = RECOVERY_RECORDS;
  const path = join(dir, "recovery.db");
  const fill = SqliteSpool.open(path, { leaseMs: 60_000 });
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i += 1000)
    fill.append(
      Array.from({ length: Math.min(1000, n - i) }, (_, k) => ({
        line: line(i + k),
        timestampMs: Date.now(),
      })),
    );
  fill.close(); // leaves the records behind with heartbeat 0: the next opener adopts them at once
  const fillSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const before = await getS3SpoolStatus(path);
  const t1 = process.hrtime.bigint();
  const log = loggerFor(server, `bench/recovery-${Date.now()}`, {
    buffer: "sqlite",
    spoolPath: path,
  });
  const res = await log.close({ timeoutMs: 1_800_000 });
  const seconds = Number(process.hrtime.bigint() - t1) / 1e9;
  const d = res.destinations.sink!;
  // Reference: the memory buffer delivering the same number of records from RAM.
  const mem = loggerFor(server, `bench/recovery-ref-${Date.now()}`, { maxQueueBytes: "2GiB" });
  const t2 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) mem.info("request completed", data(i));
  const memRes = await mem.close({ timeoutMs: 1_800_000 });
  const memSeconds = Number(process.hrtime.bigint() - t2) / 1e9;
  console.log(
    `\n-- recovery of a spool holding ${n.toLocaleString()} unsealed records (${(before.bytes / 1e6).toFixed(0)} MB payload, ${(fileBytes(path) / 1e6).toFixed(0)} MB file; filled in ${fillSeconds.toFixed(1)} s)`,
  );
  console.log(
    `re-seal + deliver to MinIO: ${seconds.toFixed(1)} s (${fmt(n / seconds)} records/s), delivered ${d.delivered.toLocaleString()} in ${d.objects} objects, ok=${res.ok}`,
  );
  console.log(
    `memory buffer, same records from RAM: ${memSeconds.toFixed(1)} s (ok=${memRes.ok})   recovery = ${(seconds / memSeconds).toFixed(2)}× the memory path`,
  );
}

const server = await startMinio();
try {
  await acknowledged(server);
  await bytesPerRecord(server);
  await recovery(server);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
