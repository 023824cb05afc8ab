// Issue 34 §4, hostile: what a `stowage logs --follow` poll meets in the hour folder it
// watches, on real MinIO through the built CLI. A record carrying terminal control
// sequences (BEL, ESC ] title, ESC [ clear, \r, a C1 CSI, a bidi override) is printed with
// them made visible, never executed; an object that is not a v1 log object (with a BEL
// and a bidi override in its key) is skipped, named escaped, counted once — and the follow
// goes on printing what comes next.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hourPrefix, utcHourStart } from "../../src/v1-format/object-key.js";
import { minio, minioStore, uniquePrefix } from "../support/minio.js";
import { startFollower, type Proc } from "../support/procs.js";
import { putBatch } from "../reader-fixtures.js";

let home: string;
const procs: Proc[] = [];
beforeAll(() => void (home = mkdtempSync(join(tmpdir(), "stowage-follow-hostile-"))));
afterAll(() => {
  for (const p of procs) p.child.kill("SIGKILL");
  rmSync(home, { recursive: true, force: true });
});

const polls = (p: Proc) => (p.stderr.match(/^stowage logs: poll \d+ /gm) ?? []).length;
const record = (at: number, message: string) =>
  JSON.stringify({ timestamp: new Date(at).toISOString(), level: "error", message });
/** Control characters that must never reach the terminal raw (a newline ends a line). */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

describe("stowage logs --follow meets hostile objects", () => {
  it("a record with BEL/escape sequences is printed escaped; a foreign object in the hour folder is skipped and counted once, not fatal", async () => {
    const prefix = uniquePrefix("follow-hostile");
    const store = minioStore();
    try {
      await putBatch(store, prefix, [record(Date.now() - 1000, "before the follow")]);
      const follower = startFollower(prefix, minio().endpoint, home, [
        "--from",
        "10m",
        "--stats",
        "--interval",
        "300ms",
      ]);
      procs.push(follower);
      await follower.waitFor(() => /budget per poll/.test(follower.stderr), "the first read");
      expect(follower.stdout).toContain("before the follow");

      // Dropped while it follows: met by its polls, not by the first read.
      const t = Date.now();
      await putBatch(store, prefix, [
        record(t, "pwn \u001b]0;owned\u0007\u001b[2J\rdone \u009b1m \u202eevil"),
      ]);
      const foreign = `${hourPrefix(prefix, utcHourStart(t))}drop\u0007bell\u202eevil.txt`;
      await store.put(foreign, "not a log object", { ifNoneMatch: "*" });
      await follower.waitFor(
        () => follower.stdout.includes("pwn") && /skipped .*drop/.test(follower.stderr),
        "the hostile record and the foreign object",
      );
      await putBatch(store, prefix, [record(Date.now(), "after the foreign object")]);
      await follower.waitFor(
        () => follower.stdout.includes("after the foreign object"),
        "the next record",
      );
      const seen = polls(follower);
      await follower.waitFor(() => polls(follower) >= seen + 3, "three more polls");
      follower.child.kill("SIGINT");
      expect(await follower.code).toBe(130);

      expect(follower.stdout).not.toMatch(RAW_CONTROL);
      expect(follower.stderr).not.toMatch(RAW_CONTROL);
      expect(follower.stdout).toContain("pwn \\e]0;owned\\x07\\e[2J\\rdone \\x9b1m \\u202eevil");
      const skips = follower.stderr.split("\n").filter((l) => l.includes("skipped t/"));
      expect(skips).toEqual([
        `stowage logs: skipped ${foreign.replace("\u0007", "\\x07").replace("\u202e", "\\u202e")}: foreign-format (not a format-v1 log object key; ignored)`,
      ]);
      expect(follower.stderr).toMatch(
        /^stowage logs: follow interrupted · 3 records shown · .* objects 2 read, 1 skipped, \d+ cached$/m,
      );
    } finally {
      store.close();
    }
  }, 180_000);
});
