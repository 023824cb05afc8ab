// The reader's follow (source.follow(), issue 34 §4) on a real local-directory store with
// the clock in the test's hands: what the CLI test against MinIO cannot wait for — the UTC
// hour turning, an object delivered late into the previous hour, the hour given up
// `lateMs` after it ended — and the per-poll budget: a poll stopped by its LIST or records
// allowance resumes where it stopped (an hour listed across polls, an object cut at a line),
// with every record once and, once listed, in time order.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hourPrefix } from "../src/v1-format/object-key.js";
import {
  createSource,
  type Follow,
  type FollowEvent,
  type LogRecordLike,
  type Source,
} from "../src/reader/index.js";
import { LocalStore } from "../src/store/local-store.js";
import { putBatch } from "./reader-fixtures.js";

const T = (iso: string) => Date.parse(`2026-11-03T${iso}Z`);
const dirs: string[] = [];
const sources: Source[] = [];
afterEach(() => {
  sources.splice(0).forEach((s) => s.close());
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

function setup(listPageSize?: number): { store: LocalStore; source: Source } {
  const root = mkdtempSync(join(tmpdir(), "stowage-follow-"));
  dirs.push(root);
  const store = new LocalStore({ root });
  const source = createSource(store, {
    prefix: "app",
    ...(listPageSize ? { listPageSize, concurrency: 1 } : {}),
  });
  sources.push(source);
  return { store, source };
}

/** `n` records at `at`, `at + 1 ms`, … with ids `<tag>-<i>`, as one object. */
function put(store: LocalStore, at: number, tag: string, n = 1) {
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      timestamp: new Date(at + i).toISOString(),
      level: "info",
      message: `${tag} ${i}`,
      id: `${tag}-${i}`,
    }),
  );
  return putBatch(store, "app", lines);
}

type Poll = Extract<FollowEvent, { type: "poll" }>;

/** The follow's events one at a time: each `next()` runs one poll (generators are lazy). */
function stepper(follow: Follow) {
  const it = follow[Symbol.asyncIterator]();
  return {
    async first() {
      const ev = (await it.next()).value as FollowEvent;
      if (ev.type !== "first") throw new Error(`expected the first read, got ${ev.type}`);
      return ev.result;
    },
    async poll(): Promise<Poll> {
      const ev = (await it.next()).value as FollowEvent;
      if (ev.type !== "poll") throw new Error(`expected a poll, got ${ev.type}`);
      return ev;
    },
    stop: () => it.return?.(undefined),
  };
}

const ids = (records: LogRecordLike[]) => records.map((r) => String(r.id));

describe("source.follow() with the clock in hand", () => {
  it("the hour turns: the new hour is watched, an object delivered late into the previous one is shown, then that hour is given up lateMs after it ended", async () => {
    const { store, source } = setup();
    await put(store, T("10:50:00"), "a", 3);
    await put(store, T("10:55:00"), "b", 5);
    let clock = T("10:59:30");
    const follow = source.follow({
      from: T("10:00:00"),
      limits: { records: 6 }, // the first read stops inside an object: its next poll resumes at that line
      intervalMs: 1,
      lateMs: 600_000,
      now: () => clock,
    });
    const step = stepper(follow);
    const first = await step.first();
    expect(first.partial).toBe(true);
    expect(first.cursor).toMatchObject({ line: 1 });
    expect(ids(first.records)).toEqual(["a-0", "b-0", "b-1", "b-2", "b-3", "b-4"]);

    clock = T("11:00:10");
    await put(store, T("11:00:05"), "c"); // the new hour
    await put(store, T("10:59:50"), "late"); // delivered late into the previous hour
    const turned = await step.poll();
    expect(turned.hours).toEqual([T("10:00:00"), T("11:00:00")]);
    expect(ids(turned.records)).toEqual(["a-1", "a-2", "late-0", "c-0"]);
    // a's rest comes from the cache (the first read decoded it whole); late and c cost a GET each.
    expect(turned.spend).toMatchObject({ getRequests: 2, objectsCached: 1, objectsRead: 2 });
    expect((await step.poll()).records).toEqual([]); // nothing twice

    clock = T("11:10:30"); // 10 min past 10h's end: this poll's pass over 10h is its last
    await put(store, T("10:59:59"), "later");
    expect(ids((await step.poll()).records)).toEqual(["later-0"]);
    await put(store, T("10:59:58"), "too-late");
    const after = await step.poll();
    expect(after.hours).toEqual([T("11:00:00")]);
    expect(after.records).toEqual([]);
    expect(follow.stats.recordsShown).toBe(6 + 4 + 1);
    await step.stop();
  });

  it("a poll stopped by its budget resumes: an hour listed across polls (LIST allowance), objects read oldest first across polls (records allowance); each record once, in time order", async () => {
    const { store, source } = setup(2);
    let clock = T("12:30:00");
    const follow = source.follow({
      from: T("12:00:00"),
      pollLimits: { listAttempts: 2, records: 4 },
      intervalMs: 1,
      now: () => clock,
    });
    const step = stepper(follow);
    expect((await step.first()).records).toEqual([]);
    for (let i = 0; i < 7; i++) await put(store, T("12:30:00") + i * 1000, `o${i}`, 2);
    clock = T("12:31:00");
    const polls: Poll[] = [];
    while (polls.reduce((n, p) => n + p.records.length, 0) < 14 && polls.length < 20)
      polls.push(await step.poll());
    const all = polls.flatMap((p) => p.records);
    expect(ids(all)).toEqual(Array.from({ length: 7 }, (_, i) => [`o${i}-0`, `o${i}-1`]).flat());
    const stops = polls.map((p) => p.stoppedBy);
    expect(stops).toContain("listAttempts"); // 7 keys at 2 per LIST page: more than one poll's 2 LISTs
    expect(stops).toContain("records");
    expect(polls.every((p) => !p.failing)).toBe(true); // a budget, not a failing store
    for (const p of polls) expect(p.spend.listRequests).toBeLessThanOrEqual(2);
    for (const p of polls) expect(p.spend.records).toBeLessThanOrEqual(4);
    expect((await step.poll()).records).toEqual([]);
    await step.stop();
  });

  it("a foreign object in the hour folder is reported and counted once, by the first read or by the poll that meets it", async () => {
    const { store, source } = setup();
    const hour = T("14:00:00");
    await store.put(`${hourPrefix("app", hour)}notes.txt`, "not a log object");
    await put(store, T("14:10:00"), "x");
    let clock = T("14:20:00");
    const follow = source.follow({ from: hour, intervalMs: 1, now: () => clock });
    const step = stepper(follow);
    const first = await step.first();
    expect(first.skipped.map((s) => s.reason)).toEqual(["foreign-format"]);
    await store.put(`${hourPrefix("app", hour)}more\u0007.bin`, "x");
    await put(store, T("14:15:00"), "y");
    clock = T("14:21:00");
    const p1 = await step.poll();
    expect(ids(p1.records)).toEqual(["y-0"]);
    expect(p1.skipped.map((s) => s.key)).toEqual([`${hourPrefix("app", hour)}more\u0007.bin`]);
    expect(p1.spend.objectsSkipped).toBe(1);
    const p2 = await step.poll();
    expect(p2.skipped).toEqual([]);
    expect(follow.stats.spent.objectsSkipped).toBe(1);
    await step.stop();
  });
});
