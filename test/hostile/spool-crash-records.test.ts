// Issue 30 row 4: with the sqlite buffer, the records logged just before a process ends —
// `log.info()` ×1,000, then process.exit(1), an uncaught exception or a fatal signal with no
// handler — are committed to the spool before the process ends, with its exit code or signal
// unchanged; a fresh process then delivers every one of them exactly once to real MinIO.
// SIGKILL cannot be caught: what was acknowledged before it still survives.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/index.js";
import { getS3SpoolStatus } from "../../src/s3.js";
import { bucketIdCounts, s3Config } from "../support/loggers.js";
import { minio, uniquePrefix } from "../support/minio.js";
import { exitsOnItsOwn, spawnSpoolChild } from "../support/spool-procs.js";

const ROOT = join(import.meta.dirname, "../..");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "stowage-crash-records-"));
  dirs.push(d);
  return d;
};

const COUNT = 1_000;
const LEASE_ENV = { STOWAGE_SPOOL_LEASE_MS: "1500" };
/** Nothing seals or uploads in the child: every record stays in the spool for the next process. */
const DELIVERY = {
  maxBatchRecords: 100_000,
  flushIntervalMs: 600_000,
  requestTimeoutMs: 2000,
  maxAttempts: 10,
  initialBackoffMs: 20,
  maxBackoffMs: 200,
};

type Ending =
  | "exit"
  | "close-exit"
  | "throw"
  | "SIGTERM"
  | "SIGINT"
  | "SIGHUP"
  | "SIGKILL"
  | "app-exits"
  | "app-closes"
  | "signal-exit";

/**
 * The crashing app: creates a sqlite logger, optionally acknowledges `acked` writes (printing
 * each id once its write() resolved), then in ONE synchronous run logs COUNT records with
 * log.info() and ends as `ending` says. `chunks` > 1 spreads the COUNT records over that many
 * event-loop turns first, so record groups are with the spool worker (some committed, some
 * not) when the process ends.
 */
const CHILD = `
import { createLogger } from ${JSON.stringify(pathToFileURL(join(ROOT, "src/index.ts")).href)};
const a = JSON.parse(process.argv[2]);
const log = createLogger({
  console: false,
  destination: "s3",
  s3: {
    bucket: a.bucket, prefix: a.prefix, region: a.region, endpoint: a.endpoint, forcePathStyle: true,
    credentials: { accessKeyId: process.env.STOWAGE_TEST_KEY, secretAccessKey: process.env.STOWAGE_TEST_SECRET },
    delivery: { buffer: "sqlite", spoolPath: a.spoolPath, ...a.delivery },
  },
});
const turn = () => new Promise((r) => setImmediate(r));
function end() {
  switch (a.ending) {
    case "exit": process.exit(1);
    case "close-exit": void log.close(); process.exit(1); // close() not awaited: a common slip
    case "throw": throw new Error("boom: the crash these records explain");
    case "app-exits": // the app's own handler ends the process its way: nothing is re-raised
      process.on("SIGTERM", () => process.exit(42));
      process.kill(process.pid, "SIGTERM");
      return;
    case "app-closes": // the app's handler closes the logger and lives on to end naturally
      process.on("SIGTERM", async () => {
        const res = await log.close({ timeoutMs: 30000 });
        process.stdout.write("CLOSED " + JSON.stringify(res.destinations.sink) + "\\n");
        process.exitCode = 42;
      });
      process.kill(process.pid, "SIGTERM");
      return;
    case "signal-exit": { // a library using signal-exit's protocol (v3/v4): not an app handler
      const emitter = ((process as any).__signal_exit_emitter__ = { count: 1 });
      const listener = () => {
        if (process.listeners("SIGTERM").length !== emitter.count) return; // someone else decides
        process.removeListener("SIGTERM", listener);
        process.stdout.write("SIGNAL-EXIT ran its exit handlers\\n");
        process.kill(process.pid, "SIGTERM");
      };
      process.on("SIGTERM", listener);
      process.kill(process.pid, "SIGTERM");
      return;
    }
    default: process.kill(process.pid, a.ending);
  }
}
function logAndEnd(from) {
  for (let i = from; i < a.count; i++) log.info("crash record", { id: a.tag + "-" + i, pad: "p".repeat(100) });
  end();
}
async function main() {
  for (let i = 0; i < a.acked; i++) {
    await log.write({ level: "info", message: "acked", data: { id: a.tag + "-ack-" + i } });
    process.stdout.write(a.tag + "-ack-" + i + "\\n");
  }
  const per = Math.ceil(a.count / a.chunks);
  let i = 0;
  for (let c = 1; c < a.chunks; c++) {
    for (const end = i + per; i < end; i++) log.info("crash record", { id: a.tag + "-" + i, pad: "p".repeat(100) });
    await turn();
  }
  setImmediate(() => logAndEnd(i)); // a real uncaught exception, thrown from a callback
}
if (a.cold) logAndEnd(0); // right after createLogger: the spool worker has not even started
else void main();
`;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  acked: string[];
  /** Lines that are not acknowledged ids (`CLOSED …`, `SIGNAL-EXIT …`). */
  notes: string[];
  /** The app-closes child's close() result for its destination. */
  closed: Record<string, unknown> | null;
  stderr: string;
}

function runCrashChild(args: Record<string, unknown>): Promise<Run> {
  const m = minio();
  const dir = tmp();
  const file = join(dir, "crash-child.ts");
  writeFileSync(file, CHILD);
  const full = {
    endpoint: m.endpoint,
    bucket: m.bucket,
    region: m.region,
    delivery: DELIVERY,
    count: COUNT,
    acked: 0,
    chunks: 1,
    cold: false,
    ...args,
  };
  const proc = spawn(process.execPath, ["--import", "jiti/register", file, JSON.stringify(full)], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...LEASE_ENV,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      STOWAGE_TEST_KEY: m.accessKeyId,
      STOWAGE_TEST_SECRET: m.secretAccessKey,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  proc.stdout.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`the crash child did not end within 60 s\n${err}`));
    }, 60_000);
    proc.on("close", (code, signal) => {
      clearTimeout(timer);
      const lines = out.split("\n").slice(0, -1); // a line cut by a kill is not counted
      const closed = lines.find((l) => l.startsWith("CLOSED "));
      resolve({
        code,
        signal,
        acked: lines.filter((l) => !/^[A-Z-]+ /.test(l)),
        notes: lines.filter((l) => /^[A-Z-]+ /.test(l)),
        closed: closed ? (JSON.parse(closed.slice(7)) as Record<string, unknown>) : null,
        stderr: err.slice(-4000),
      });
    });
  });
}

/** A fresh process recovers the spool and delivers it (existing recovery); returns the bucket's id counts. */
async function recoverAndCount(spoolPath: string, prefix: string): Promise<Map<unknown, number>> {
  const drain = spawnSpoolChild(
    { mode: "drain", spoolPath, prefix, delivery: DELIVERY, deadlineMs: 60_000 },
    LEASE_ENV,
  );
  expect(await exitsOnItsOwn(drain, 120_000)).toBe(0);
  expect((drain.final as { status: Record<string, number> }).status).toMatchObject({
    records: 0,
    pending: 0,
    failed: 0,
  });
  return bucketIdCounts(prefix);
}

const ids = (tag: string) => Array.from({ length: COUNT }, (_, i) => `${tag}-${i}`);

const endings: [
  string,
  Ending,
  Record<string, unknown>,
  { code: number | null; signal: string | null },
][] = [
  ["process.exit(1)", "exit", {}, { code: 1, signal: null }],
  [
    "process.exit(1) right after createLogger (worker not started)",
    "exit",
    { cold: true },
    { code: 1, signal: null },
  ],
  [
    "process.exit(1) with groups in flight to the worker",
    "exit",
    { chunks: 10 },
    { code: 1, signal: null },
  ],
  [
    "close() not awaited, then process.exit(1) (guard: close racing the exit stores nothing twice)",
    "close-exit",
    { chunks: 10 },
    { code: 1, signal: null },
  ],
  ["an uncaught exception", "throw", {}, { code: 1, signal: null }],
  [
    "an uncaught exception right after createLogger",
    "throw",
    { cold: true },
    { code: 1, signal: null },
  ],
  ["SIGTERM without a handler", "SIGTERM", {}, { code: null, signal: "SIGTERM" }],
  [
    "SIGTERM without a handler, groups in flight",
    "SIGTERM",
    { chunks: 10 },
    { code: null, signal: "SIGTERM" },
  ],
  ["SIGINT without a handler", "SIGINT", {}, { code: null, signal: "SIGINT" }],
  ["SIGHUP without a handler", "SIGHUP", {}, { code: null, signal: "SIGHUP" }],
  ["SIGTERM whose app handler calls process.exit(42)", "app-exits", {}, { code: 42, signal: null }],
  [
    "SIGTERM while a signal-exit style library listens (guard: it re-raises once alone, no deadlock)",
    "signal-exit",
    {},
    { code: null, signal: "SIGTERM" },
  ],
];

describe("issue 30 row 4: the crash records are committed before the process ends", () => {
  it.each(endings)(
    "issue 30 row 4: log.info() ×1,000 then %s → all 1,000 in the spool, then in the bucket exactly once; exit unchanged",
    async (_name, ending, extra, expected) => {
      const spoolPath = join(tmp(), "spool.db");
      const prefix = uniquePrefix(`crash-${ending}`);
      const tag = `r4-${ending}`;
      const run = await runCrashChild({ ending, spoolPath, prefix, tag, acked: 1, ...extra });
      expect({ code: run.code, signal: run.signal }, run.stderr).toEqual(expected);
      if (ending === "throw") expect(run.stderr).toContain("boom: the crash these records explain");
      if (ending === "signal-exit")
        expect(run.notes).toEqual(["SIGNAL-EXIT ran its exit handlers"]);
      const status = await getS3SpoolStatus(spoolPath);
      const acked = extra.cold ? 0 : 1;
      expect(status.records + status.pendingRecords, "records in the spool after the end").toBe(
        COUNT + acked,
      );
      const counts = await recoverAndCount(spoolPath, prefix);
      const missing = ids(tag).filter((id) => !counts.has(id));
      expect(missing.length, `missing ${missing.slice(0, 5).join(", ")}`).toBe(0);
      expect(
        [...counts].filter(([, n]) => n !== 1),
        "duplicates",
      ).toEqual([]);
      expect(counts.size).toBe(COUNT + acked);
    },
    180_000,
  );

  it("issue 30 row 4 (guard): SIGTERM whose app handler closes the logger: not re-raised, and this same process still delivers everything once, counts true", async () => {
    const spoolPath = join(tmp(), "spool.db");
    const prefix = uniquePrefix("crash-app-closes");
    const tag = "r4-app";
    const run = await runCrashChild({ ending: "app-closes", spoolPath, prefix, tag, acked: 1 });
    expect({ code: run.code, signal: run.signal }, run.stderr).toEqual({ code: 42, signal: null });
    expect(run.closed).toMatchObject({ ok: true, delivered: COUNT + 1, pending: 0, failure: null });
    expect(await getS3SpoolStatus(spoolPath)).toMatchObject({ records: 0, pending: 0, failed: 0 });
    const counts = await bucketIdCounts(prefix);
    expect(ids(tag).filter((id) => !counts.has(id))).toEqual([]);
    expect([...counts].filter(([, n]) => n !== 1)).toEqual([]);
    expect(counts.size).toBe(COUNT + 1);
  }, 180_000);

  it("issue 30 row 4 (guard): SIGKILL (cannot be caught) still recovers every acknowledged record, and nothing twice", async () => {
    const spoolPath = join(tmp(), "spool.db");
    const prefix = uniquePrefix("crash-kill");
    const tag = "r4-kill";
    const run = await runCrashChild({
      ending: "SIGKILL",
      spoolPath,
      prefix,
      tag,
      acked: 50,
      chunks: 4,
    });
    expect(run.signal).toBe("SIGKILL");
    expect(run.acked).toHaveLength(50);
    const counts = await recoverAndCount(spoolPath, prefix);
    for (const id of run.acked) expect(counts.get(id), id).toBe(1);
    expect([...counts].filter(([, n]) => n !== 1)).toEqual([]);
  }, 180_000);

  it("issue 30 row 4: the process-end listeners exist only while a sqlite logger is open", async () => {
    const events = ["exit", "SIGTERM", "SIGINT", "SIGHUP"] as const;
    const counts = () => events.map((e) => process.listenerCount(e));
    const before = counts();
    const cfg = s3Config(uniquePrefix("listeners"), {
      ...DELIVERY,
      buffer: "sqlite",
      spoolPath: join(tmp(), "spool.db"),
    });
    const a = createLogger(cfg as Parameters<typeof createLogger>[0]);
    const b = createLogger(cfg as Parameters<typeof createLogger>[0]);
    const open = counts();
    await a.close();
    await b.close();
    expect(counts()).toEqual(before);
    expect(open.map((n, i) => n - before[i]!)).toEqual([1, 1, 1, 1]); // one per event, shared by both loggers
  }, 60_000);
});
