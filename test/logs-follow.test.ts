// `stowage logs --follow` (issue 34 §4) against real MinIO: a writer in another process
// (test/support/follow-writer.mjs, the built package) logs records with unique ids and
// flushes each; the built CLI follows in its own process. Every record the writer
// delivered is printed exactly once, in time order; Ctrl-C prints the spend and exits 130;
// with storage failing (503 SlowDown and resets from a fault proxy) the follow says so in
// one line, backs off, and prints the records written meanwhile once it heals.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFaultProxy } from "./support/fault-proxy.js";
import { minio, uniquePrefix } from "./support/minio.js";
import { delivered, startFollower, startWriter, stopWriter, type Proc } from "./support/procs.js";

let home: string;
const procs: Proc[] = [];

beforeAll(() => {
  if (!existsSync(join(import.meta.dirname, "..", "dist", "reader", "follow.js")))
    throw new Error("dist/ is missing: run `npx tsc -p tsconfig.build.json`");
  home = mkdtempSync(join(tmpdir(), "stowage-follow-home-"));
});
afterAll(() => {
  for (const p of procs) p.child.kill("SIGKILL");
  rmSync(home, { recursive: true, force: true });
});

interface Printed {
  timestamp: string;
  data: { id: string; n: number };
}

function printed(follower: Proc): Printed[] {
  return follower.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Printed);
}

const polls = (follower: Proc) =>
  (follower.stderr.match(/^stowage logs: poll \d+ /gm) ?? []).length;

/** Every id printed once, in the writer's order, with times that never go back. */
function expectExactlyOnceInOrder(follower: Proc, ids: string[]): void {
  const got = printed(follower);
  expect(got.map((r) => r.data.id)).toEqual(ids);
  const times = got.map((r) => Date.parse(r.timestamp));
  expect(times).toEqual([...times].sort((a, b) => a - b));
}

/** Waits for every id to be printed, then for three more polls (a late duplicate would show). */
async function waitAllPrinted(follower: Proc, ids: string[]): Promise<void> {
  await follower.waitFor(() => {
    const seen = new Set(printed(follower).map((r) => r.data.id));
    return ids.every((id) => seen.has(id));
  }, `all ${ids.length} delivered records printed`);
  const after = polls(follower);
  await follower.waitFor(() => polls(follower) >= after + 3, "three more polls");
}

describe("stowage logs --follow against MinIO, with a writer in another process", () => {
  it("prints each delivered record exactly once in time order; Ctrl-C prints the spend and exits 130", async () => {
    const prefix = uniquePrefix("follow");
    const writer = startWriter(prefix, "a", home);
    procs.push(writer);
    await writer.waitFor(() => delivered(writer).length >= 3, "the writer's first records");
    const follower = startFollower(prefix, minio().endpoint, home, [
      "--from",
      "10m",
      "--json",
      "--stats",
      "--interval",
      "300ms",
    ]);
    procs.push(follower);
    await follower.waitFor(
      () =>
        /^stowage logs: following, a poll every 0\.3 s; budget per poll: LIST 8 · GET 32 /m.test(
          follower.stderr,
        ),
      "the first read and the budget line",
    );
    const atStart = delivered(writer).length;
    await writer.waitFor(
      () => delivered(writer).length >= atStart + 20,
      "20 more records delivered",
    );
    const ids = await stopWriter(writer);
    expect(writer.stdout).not.toMatch(/^FAILED/m);
    await waitAllPrinted(follower, ids);
    follower.child.kill("SIGINT");
    expect(await follower.code).toBe(130);
    expectExactlyOnceInOrder(follower, ids);
    // The first read's stats line, a line per poll (--stats), then the spend of the whole follow.
    expect(follower.stderr).toMatch(/^stowage logs: \d+ records shown .* grants 1\/5 · complete$/m);
    expect(follower.stderr).toMatch(
      /^stowage logs: poll \d+ \(hours [\d, ]+ UTC\): [1-9]\d* new records \(\d+ analysed\) · LIST [12] · GET [1-9]/m,
    );
    const spend = new RegExp(
      `^stowage logs: follow interrupted · ${ids.length} records shown · first read: LIST \\d+ · GET \\d+ · .* · \\d+ polls: LIST \\d+ · GET \\d+ · .* objects \\d+ read, 0 skipped, \\d+ cached$`,
      "m",
    );
    expect(follower.stderr).toMatch(spend);
    expect(follower.stdout + follower.stderr).not.toContain(minio().secretAccessKey);
  }, 180_000);

  it("storage failing mid-follow (503 SlowDown, resets): one notice line, backoff, then the records written meanwhile once when it heals", async () => {
    const prefix = uniquePrefix("follow-outage");
    const proxy = await startFaultProxy(minio().endpoint);
    try {
      const writer = startWriter(prefix, "b", home);
      procs.push(writer);
      await writer.waitFor(() => delivered(writer).length >= 2, "the writer's first records");
      const follower = startFollower(prefix, proxy.endpoint, home, [
        "--from",
        "10m",
        "--json",
        "--stats",
        "--interval",
        "300ms",
        // Fewer attempts per poll: a failing poll ends sooner (the backoff is what is tested).
        "--poll-limit",
        "listAttempts=3",
        "--poll-limit",
        "getAttempts=4",
      ]);
      procs.push(follower);
      await follower.waitFor(() => polls(follower) >= 2, "two polls");
      proxy.setRule((r) => (r.seq % 2 === 0 ? "slowdown" : "reset"));
      await follower.waitFor(
        () => /storage is failing/.test(follower.stderr),
        "the outage notice",
        120_000,
      );
      const atNotice = delivered(writer).length;
      await writer.waitFor(
        () => delivered(writer).length >= atNotice + 5,
        "records during the outage",
      );
      // Several failed polls, each stopped by its LIST attempts, with one notice for all of them.
      const failedPolls = () => (follower.stderr.match(/stopped by listAttempts$/gm) ?? []).length;
      await follower.waitFor(() => failedPolls() >= 3, "three failed polls", 120_000);
      const duringOutage = delivered(writer).slice(atNotice);
      proxy.setRule(undefined);
      await follower.waitFor(
        () => /storage answers again/.test(follower.stderr),
        "the recovery line",
        120_000,
      );
      const ids = await stopWriter(writer);
      await waitAllPrinted(follower, ids);
      follower.child.kill("SIGINT");
      expect(await follower.code).toBe(130);
      expect(proxy.injected.slowdown).toBeGreaterThan(0);
      expect(proxy.injected.reset).toBeGreaterThan(0);
      expectExactlyOnceInOrder(follower, ids);
      expect(printed(follower).map((r) => r.data.id)).toEqual(expect.arrayContaining(duringOutage));
      // One line said storage was failing (not one per retry or per failed poll), one that it is back.
      const lines = follower.stderr.split("\n").filter((l) => !/^stowage logs: poll \d+ /.test(l));
      const notices = lines.filter((l) => l.includes("storage is failing"));
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatch(
        /^stowage logs: storage is failing \((LIST|GET) .*\); backing off \(next poll in [\d.]+ s, then longer\); records written meanwhile follow when it answers$/,
      );
      expect(lines.filter((l) => l.includes("storage answers again"))).toEqual([
        expect.stringMatching(
          /^stowage logs: storage answers again after \d+ failed polls; following$/,
        ),
      ]);
      expect(follower.stderr).toMatch(
        /^stowage logs: follow interrupted · \d+ records shown · .* · \d+ polls \(\d+ failed\): LIST \d+ · GET \d+ \(\d+ retries\)/m,
      );
    } finally {
      proxy.setRule(undefined);
      await proxy.close();
    }
  }, 300_000);
});
