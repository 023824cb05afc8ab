/**
 * The process-end commit against the worker's commits on a real spool file (issue 30 row 4):
 * each record group is stored exactly once whoever commits it first (writer marks), groups
 * committed at process end are adopted and handed out once, and a spool bound to another
 * destination (issue 30 row 1) receives nothing. The child-process tests are in
 * test/hostile/spool-crash-records.test.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { isStowageError } from "../shared/errors.js";
import { commitAtProcessEnd, markKey } from "./exit-commit.js";
import { openDatabase } from "./sqlite-driver.js";
import { SqliteSpool } from "./sqlite-spool.js";
import { WorkerLoop } from "./worker-loop.js";
import type { FromWorker, SpoolWorkerConfig } from "./worker-protocol.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const spoolPath = () => {
  const d = mkdtempSync(join(tmpdir(), "stowage-exit-commit-"));
  dirs.push(d);
  return join(d, "spool.db");
};

const DEST = JSON.stringify({ kind: "s3", endpoint: null, bucket: "logs", prefix: "app" });
const OTHER = JSON.stringify({ kind: "s3", endpoint: null, bucket: "other", prefix: "app" });
const HOUR = Date.UTC(2026, 0, 1, 5);
const group = (seq: number, n: number, tag: string) => ({
  seq,
  lines: Array.from({ length: n }, (_, i) => JSON.stringify({ message: `${tag}${i}` })),
  ts: Array.from({ length: n }, (_, i) => HOUR + i),
});

function meta(path: string, key: string): string | undefined {
  const db = openDatabase(path, { readonly: true, busyTimeoutMs: 1000 });
  try {
    return (db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string })
      ?.value;
  } finally {
    db.close();
  }
}

/** The worker's loop in-process, on `path`, as writer `writer`; its messages land in `msgs`. */
function startLoop(path: string, writer: string) {
  const cfg: SpoolWorkerConfig = {
    path,
    prefix: "app",
    leaseMs: 3_000,
    maxBatchBytes: 1 << 20,
    maxBatchRecords: 1_000,
    flushIntervalMs: 60_000,
    window: 8,
    destination: DEST,
    writer,
  };
  const msgs: FromWorker[] = [];
  const spool = SqliteSpool.open(path, { leaseMs: cfg.leaseMs, destination: DEST, writer });
  const loop = new WorkerLoop(spool, cfg, (m) => msgs.push(m));
  const settle = () => new Promise((r) => setTimeout(r, 20)); // let setImmediate cycles run
  return { loop, msgs, settle };
}

describe("issue 30 row 4: process-end commit and worker commit", () => {
  it("issue 30 row 4: a group the worker committed is not stored again at process end; one stored at process end is skipped by the worker (transferred), adopted and handed out once", async () => {
    const path = spoolPath();
    const w = startLoop(path, "w1");
    w.loop.handle({ t: "rec", ...group(1, 5, "a") });
    await w.settle();
    expect(w.msgs.filter((m) => m.t === "ack")).toMatchObject([{ t: "ack", seq: 1 }]);
    // Process end: group 1 (committed, its ack not yet seen) and group 2 (posted, not committed).
    const stored = commitAtProcessEnd({
      path,
      writer: "w1",
      destination: DEST,
      groups: [group(1, 5, "a"), group(2, 3, "b")],
    });
    expect(stored).toBe(3);
    expect(meta(path, markKey("w1"))).toMatch(/^2:\d+$/);
    // The worker receives group 2 after all: acknowledged (it is committed), not stored again.
    w.loop.handle({ t: "rec", ...group(2, 3, "b") });
    await w.settle();
    expect(w.msgs).toContainEqual(expect.objectContaining({ t: "ack", seq: 2 }));
    expect(w.msgs).toContainEqual({ t: "transferred", records: 3 });
    // The records stored at process end belong to a closed owner: adopted at once, sealed, handed out.
    const handed: string[] = [];
    for (let i = 0; i < 20 && handed.length < 8; i++) {
      w.loop.handle({ t: "sync", id: i });
      await w.settle();
      for (const m of w.msgs.splice(0)) {
        if (m.t !== "batch") continue;
        handed.push(...gunzipSync(m.batch.body).toString("utf8").split("\n").filter(Boolean));
        w.loop.handle({ t: "done", id: m.batch.id, ok: true });
      }
    }
    const messages = handed.map((l) => (JSON.parse(l) as { message: string }).message).sort();
    expect(messages).toEqual(["a0", "a1", "a2", "a3", "a4", "b0", "b1", "b2"]);
    w.loop.handle({ t: "close" });
    await w.settle();
    const after = SqliteSpool.open(path, { leaseMs: 3_000 });
    expect(after.status()).toMatchObject({ records: 0, pending: 0, bytes: 0 });
    after.close();
  });

  it("issue 30 row 4: before the worker ever ran, the process-end commit creates the spool, binds it, and the next opener adopts its records at once", () => {
    const path = spoolPath();
    expect(
      commitAtProcessEnd({ path, writer: "w2", destination: DEST, groups: [group(1, 4, "c")] }),
    ).toBe(4);
    expect(meta(path, "destination")).toBe(DEST);
    try {
      SqliteSpool.open(path, { leaseMs: 3_000, destination: OTHER }).close();
      expect.unreachable("a spool bound to another destination was opened");
    } catch (err) {
      expect(isStowageError(err, "config")).toBe(true);
      expect((err as Error).message).toContain("is bound to s3://logs/app on AWS S3");
      expect((err as Error).message).toContain("this logger writes to s3://other/app");
    }
    const next = SqliteSpool.open(path, { leaseMs: 3_000, destination: DEST });
    expect(next.adopt({ sweep: true })).toBe(4);
    expect(next.readAdopted(0, 10).map((r) => r.line)).toEqual(group(1, 4, "c").lines);
    next.close();
  });

  it("issue 30 row 1: a spool bound to another destination receives nothing at process end", () => {
    const path = spoolPath();
    SqliteSpool.open(path, { leaseMs: 3_000, destination: OTHER }).close();
    const n = commitAtProcessEnd({
      path,
      writer: "w3",
      destination: DEST,
      groups: [group(1, 2, "d")],
    });
    expect(n).toBe(0);
    const s = SqliteSpool.open(path, { leaseMs: 3_000 });
    expect(s.status()).toMatchObject({ records: 0, bytes: 0 });
    s.close();
  });

  it("a writer's mark outlives its owners for a lease, then the next opener sweeps it", () => {
    const path = spoolPath();
    commitAtProcessEnd({ path, writer: "w4", destination: DEST, groups: [group(1, 1, "e")] });
    const adopter = SqliteSpool.open(path, { leaseMs: 60_000 });
    expect(adopter.adopt({ sweep: true })).toBe(1); // its owner row is dropped; the mark is young
    adopter.close();
    expect(meta(path, markKey("w4"))).toBeDefined();
    const later = SqliteSpool.open(path, { leaseMs: 1_000, now: () => Date.now() + 10_000 });
    later.adopt({ sweep: true });
    later.close();
    expect(meta(path, markKey("w4"))).toBeUndefined();
  });
});
