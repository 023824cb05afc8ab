/**
 * The spool worker's loop driven in-process (SPEC §3.2, §3.4, §4): the same
 * WorkerLoop the worker thread runs, on a real SqliteSpool file, its messages captured.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSpool } from "./sqlite-spool.js";
import { WorkerLoop } from "./worker-loop.js";
import type { FromWorker, SpoolWorkerConfig } from "./worker-protocol.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function spoolPath(): string {
  const d = mkdtempSync(join(tmpdir(), "stowage-worker-loop-"));
  dirs.push(d);
  return join(d, "spool.db");
}

/** A WorkerLoop on `path` whose posted messages land in `msgs`; `next(t)` waits for one of type t. */
function start(path: string, over: Partial<SpoolWorkerConfig> = {}, now?: () => number) {
  const cfg: SpoolWorkerConfig = {
    path,
    prefix: "app/",
    leaseMs: 3_000,
    maxBatchBytes: 1 << 20,
    maxBatchRecords: 1_000,
    flushIntervalMs: 60_000,
    window: 4,
    ...over,
  };
  const msgs: FromWorker[] = [];
  const waiters: { t: FromWorker["t"]; from: number; resolve: (m: FromWorker) => void }[] = [];
  const post = (m: FromWorker) => {
    msgs.push(m);
    for (const w of [...waiters]) {
      if (w.t === m.t) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  const loop = new WorkerLoop(
    SqliteSpool.open(path, { leaseMs: cfg.leaseMs, ...(now ? { now } : {}) }),
    cfg,
    post,
  );
  const next = <T extends FromWorker["t"]>(t: T) =>
    new Promise<Extract<FromWorker, { t: T }>>((resolve) =>
      waiters.push({ t, from: msgs.length, resolve: resolve as (m: FromWorker) => void }),
    );
  return { loop, msgs, next };
}

const lines = (n: number, tag: string, ms: number) => ({
  lines: Array.from({ length: n }, (_, i) => JSON.stringify({ message: `${tag}${i}` })),
  ts: Array.from({ length: n }, (_, i) => ms + i),
});

const decoded = (body: Uint8Array) =>
  gunzipSync(body)
    .toString("utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { message: string }).message);

describe("WorkerLoop in-process", () => {
  it("§3.2 acks a committed group, seals on sync, hands the batch out once, and empties the spool after its outcome", async () => {
    const path = spoolPath();
    const w = start(path);
    expect(w.msgs[0]).toMatchObject({ t: "ready", bytes: 0 });
    const hour = Date.UTC(2026, 0, 1, 5);
    const ack = w.next("ack");
    w.loop.handle({ t: "rec", seq: 1, ...lines(5, "a", hour) });
    expect(await ack).toMatchObject({ seq: 1 });
    expect((await ack).bytes).toBeGreaterThan(0);
    const synced = w.next("synced");
    w.loop.handle({ t: "sync", id: 9 });
    expect(await synced).toMatchObject({ id: 9, busy: true, held: 0 });
    const batches = w.msgs.filter((m) => m.t === "batch");
    expect(batches).toHaveLength(1);
    const b = batches[0]!.batch;
    expect(b.records).toBe(5);
    expect(b.key.startsWith("app/v1/2026/01/01/05/")).toBe(true);
    expect(decoded(b.body)).toEqual(["a0", "a1", "a2", "a3", "a4"]);
    const doneAck = w.next("doneAck");
    w.loop.handle({ t: "done", id: b.id, ok: true });
    expect(await doneAck).toMatchObject({ count: 1 });
    const idle = w.next("synced");
    w.loop.handle({ t: "sync", id: 10 });
    expect(await idle).toMatchObject({ id: 10, busy: false });
    const closed = w.next("closed");
    w.loop.handle({ t: "close" });
    await closed;
    const after = SqliteSpool.open(path, { leaseMs: 3_000 });
    expect(after.bytes()).toBe(0);
    after.close();
  });

  it("§3.4 seals by record count and never hands out more than `window` batches at once", async () => {
    const w = start(spoolPath(), { maxBatchRecords: 10, window: 2 });
    const hour = Date.UTC(2026, 0, 2, 7);
    const ack = w.next("ack");
    w.loop.handle({ t: "rec", seq: 1, ...lines(50, "b", hour) });
    await ack;
    const synced = w.next("synced");
    w.loop.handle({ t: "sync", id: 1 });
    await synced;
    const out = () => w.msgs.filter((m) => m.t === "batch").map((m) => m.batch);
    expect(out()).toHaveLength(2);
    expect(out().every((b) => b.records === 10)).toBe(true);
    // each outcome frees a slot of the window for the next sealed batch
    const doneAck = w.next("doneAck");
    w.loop.handle({ t: "done", id: out()[0]!.id, ok: true });
    await doneAck;
    await new Promise((r) => setImmediate(r));
    expect(out().length).toBe(3);
    const all = new Set<string>();
    for (let i = 0; i < 10 && all.size < 5; i++) {
      for (const b of out()) {
        if (all.has(b.id)) continue;
        all.add(b.id);
        const a = w.next("doneAck");
        w.loop.handle({ t: "done", id: b.id, ok: true });
        await a;
        await new Promise((r) => setImmediate(r));
      }
    }
    expect(all.size).toBe(5);
    const ids = new Set(out().map((b) => b.id));
    expect(ids.size).toBe(out().length); // no batch handed out twice
    const closed = w.next("closed");
    w.loop.handle({ t: "close" });
    await closed;
  });

  it("§4 adopts records a closed owner left unsealed and delivers them after a restart", async () => {
    const path = spoolPath();
    const first = start(path);
    const ack = first.next("ack");
    first.loop.handle({ t: "rec", seq: 1, ...lines(7, "c", Date.UTC(2026, 0, 3, 1)) });
    await ack;
    const closed = first.next("closed");
    first.loop.handle({ t: "close" });
    await closed;
    // a later clock: the first owner's lease has run out, so it counts as dead
    const second = start(path, {}, () => Date.now() + 60_000);
    const delivered = () =>
      second.msgs.filter((m) => m.t === "batch").flatMap((m) => decoded(m.batch.body));
    // recovery re-seals adopted records in pages between turns: sync until it is done
    for (let id = 1; id <= 50 && delivered().length < 7; id++) {
      const synced = second.next("synced");
      second.loop.handle({ t: "sync", id });
      await synced;
      await new Promise((r) => setImmediate(r));
    }
    expect(second.msgs).toContainEqual({ t: "adopted", records: 7 });
    expect(delivered().sort()).toEqual(["c0", "c1", "c2", "c3", "c4", "c5", "c6"]);
    const done = second.next("closed");
    second.loop.handle({ t: "close" });
    await done;
  });

  it("§4 a failed outcome keeps the batch in the spool; messages after close are ignored", async () => {
    const path = spoolPath();
    const w = start(path);
    const ack = w.next("ack");
    w.loop.handle({ t: "rec", seq: 1, ...lines(3, "d", Date.UTC(2026, 0, 4, 2)) });
    await ack;
    const synced = w.next("synced");
    w.loop.handle({ t: "sync", id: 1 });
    await synced;
    const b = w.msgs.find((m) => m.t === "batch")!;
    const doneAck = w.next("doneAck");
    w.loop.handle({
      t: "done",
      id: b.t === "batch" ? b.batch.id : "",
      ok: false,
      failure: { category: "auth", code: "AccessDenied", message: "denied" },
    });
    await doneAck;
    const closed = w.next("closed");
    w.loop.handle({ t: "close" });
    await closed;
    const count = w.msgs.length;
    w.loop.handle({ t: "rec", seq: 2, ...lines(1, "late", Date.UTC(2026, 0, 4, 2)) });
    await new Promise((r) => setImmediate(r));
    expect(w.msgs.length).toBe(count);
    const s = SqliteSpool.open(path, { leaseMs: 3_000 });
    expect(s.bytes()).toBeGreaterThan(0);
    s.close();
  });
});
