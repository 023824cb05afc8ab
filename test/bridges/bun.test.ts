/**
 * Stowage under Bun (the `bun` npm package's runtime binary): the
 * logger with the sqlite buffer (Bun's built-in `node:sqlite`, picked by the
 * spool's driver seam) and with the memory buffer delivers into the real MinIO,
 * then `stowage logs` run by Bun reads the records back.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { s3Config } from "../support/loggers.js";
import { minio, uniquePrefix } from "../support/minio.js";
import { bucketIdCounts } from "../support/loggers.js";

const REPO = join(import.meta.dirname, "..", "..");
const BUN = join(REPO, "node_modules", ".bin", "bun");
const APP = join(import.meta.dirname, "fixtures", "bun-app.mjs");
const CLI = join(REPO, "bin", "stowage.js");

function runBun(args: string[], env: Record<string, string>) {
  const child = spawn(BUN, args, {
    env: { PATH: process.env.PATH ?? "", HOME: mkdtempSync(join(tmpdir(), "bun-home-")), ...env },
    timeout: 60_000,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c));
  child.stderr.on("data", (c: Buffer) => (stderr += c));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
}

function fileHeader(path: string): string {
  const fd = openSync(path, "r");
  const buf = Buffer.alloc(15);
  readSync(fd, buf, 0, 15, 0);
  closeSync(fd);
  return buf.toString("latin1");
}

it.each(["sqlite", "memory"])(
  "§5 under Bun, the %s buffer delivers into MinIO exactly once and `stowage logs` under Bun reads it back",
  async (buffer) => {
    expect(existsSync(BUN)).toBe(true);
    const m = minio();
    const prefix = uniquePrefix(`bun-${buffer}`);
    const spoolPath = join(mkdtempSync(join(tmpdir(), "bun-spool-")), "spool.db");
    const delivery =
      buffer === "sqlite"
        ? { buffer, spoolPath, maxBatchRecords: 500 }
        : { buffer, maxBatchRecords: 500 };
    const N = 2_000;
    const run = await runBun([APP, String(N)], {
      STOWAGE_BUN_CONFIG: JSON.stringify(s3Config(prefix, delivery)),
    });
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as {
      result: { ok: boolean; destinations: { sink: { delivered: number } } };
      bun: boolean;
    };
    expect(out.bun).toBe(true);
    expect(out.result.ok, run.stdout).toBe(true);
    expect(out.result.destinations.sink.delivered).toBe(N);
    if (buffer === "sqlite") expect(fileHeader(spoolPath)).toBe("SQLite format 3");

    const counts = await bucketIdCounts(prefix);
    expect(counts.size).toBe(N);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);

    const logs = await runBun(
      [
        CLI,
        "logs",
        "--source",
        `s3://${m.bucket}/${prefix}`,
        "--endpoint",
        m.endpoint,
        "--force-path-style",
        "--region",
        m.region,
        "--from",
        "1h",
        "--to",
        "now",
        "--json",
      ],
      {
        AWS_ACCESS_KEY_ID: m.accessKeyId,
        AWS_SECRET_ACCESS_KEY: m.secretAccessKey,
        AWS_EC2_METADATA_DISABLED: "true",
        NODE_NO_WARNINGS: "1",
      },
    );
    expect(logs.code, logs.stderr).toBe(0);
    const lines = logs.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { data: { id: number }; bindings: { runtime: string } });
    expect(lines).toHaveLength(N);
    expect(new Set(lines.map((l) => l.data.id)).size).toBe(N);
    expect(lines[0]!.bindings.runtime).toMatch(/^bun \d+\.\d+/);
    expect(logs.stderr).toMatch(/stowage logs: 2,000 records shown .* complete/);
  },
);
