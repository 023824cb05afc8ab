// Issue 31 §4: `stowage spool retry` on a full disk. A real spool with a failed batch on a
// 2 MiB tmpfs, the disk then filled: the command says the disk is full and what to do, exit 1,
// no SQLite stack, and the failed batch is still failed; with space again it re-arms it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/index.js";
import { getS3SpoolStatus } from "../../src/spool/sqlite-status.js";
import { runStowage } from "../support/cli.js";

const mountPoint = mkdtempSync(join(tmpdir(), "stowage-fulldisk-"));
const spoolPath = join(mountPoint, "spool.db");

beforeAll(() => {
  // A real small filesystem (the test machine runs as root; a refusal here fails the test).
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint]);
});
afterAll(() => {
  execFileSync("umount", [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

describe("issue 31 §4: spool retry on a full disk", () => {
  it("names the full disk with a hint, exit 1, no stack; nothing changed; re-arms once there is room", async () => {
    const log = createLogger({
      console: false,
      destination: "s3",
      s3: {
        bucket: "stowage-nowhere",
        region: "us-east-1",
        endpoint: "http://127.0.0.1:9",
        forcePathStyle: true,
        credentials: { accessKeyId: "a", secretAccessKey: "b" },
        delivery: { buffer: "sqlite", spoolPath, maxAttempts: 1 },
      },
    });
    for (let i = 0; i < 200; i++) log.info("kept for later", { i });
    await log.close({ timeoutMs: 10_000 });
    expect((await getS3SpoolStatus(spoolPath)).failed).toBe(1);

    const filler = join(mountPoint, "filler");
    try {
      writeFileSync(filler, Buffer.alloc(4 * 1024 * 1024));
    } catch {
      // ENOSPC: the disk is full now, which is the point
    }
    const full = await runStowage(["spool", "retry", "--path", spoolPath]);
    expect(full.code).toBe(1);
    expect(full.stderr).toContain(`the disk holding the spool ${spoolPath} is full`);
    expect(full.stderr).toContain("Hint: Free space on that disk");
    expect(full.stderr).not.toMatch(/\n\s+at /);
    rmSync(filler);
    expect((await getS3SpoolStatus(spoolPath)).failed).toBe(1);

    const room = await runStowage(["spool", "retry", "--path", spoolPath]);
    expect(room.code, room.stderr).toBe(0);
    expect(room.stdout).toContain("re-armed 1 failed batch");
  }, 60_000);
});
