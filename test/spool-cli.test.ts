/** SPEC §4 `stowage spool status|retry` through the real CLI binary (dist/, built by `npm test`'s pretest). */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildBatch } from "../src/spool/spool.contract.js";
import { SqliteSpool } from "../src/spool/sqlite-spool.js";
import { runStowage, type CliRun } from "./support/cli.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function stowage(args: string[], cwd: string): Promise<CliRun> {
  return runStowage(args, { cwd, base: "inherit" });
}

/** A spool with 3 unsealed records, one pending batch (2 records) and one failed batch (4 records). */
function makeSpool(path: string): void {
  const spool = SqliteSpool.open(path, { leaseMs: 1000 });
  const recs = (n: number, t: string) =>
    Array.from({ length: n }, (_, i) => ({
      line: `{"message":"${t}${i}"}`,
      timestampMs: Date.UTC(2026, 0, 1, 3) + i,
    }));
  for (const [n, tag] of [
    [2, "p"],
    [4, "f"],
  ] as const) {
    const rs = recs(n, tag);
    const ids = spool.append(rs);
    let id = "";
    spool.seal(ids, "own", (kept) => {
      const b = buildBatch(rs, kept);
      id = b.id;
      return b;
    });
    if (tag === "f")
      spool.complete([
        { id, ok: false, failure: { category: "auth", code: "AccessDenied", message: "denied" } },
      ]);
  }
  spool.append(recs(3, "r"));
  spool.close();
}

describe("§4 the compiled package", () => {
  it("§3.2 §4 dist/ runs the compiled spool worker: records committed, delivered, and the process exits on its own", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stowage-spool-dist-"));
    dirs.push(dir);
    const dist = join(import.meta.dirname, "../dist");
    const script = `
      const { createLogger } = await import(${JSON.stringify(join(dist, "index.js"))});
      const { getS3SpoolStatus } = await import(${JSON.stringify(join(dist, "s3.js"))});
      const log = createLogger({ console: false, destination: "local", local: { path: ${JSON.stringify(join(dir, "store"))},
        delivery: { buffer: "sqlite", spoolPath: ${JSON.stringify(join(dir, "spool.db"))}, maxBatchRecords: 100 } } });
      for (let i = 0; i < 250; i++) await log.write({ message: "m", data: { id: i } });
      const res = await log.close({ timeoutMs: 20000 });
      console.log(JSON.stringify({ res, status: await getS3SpoolStatus(${JSON.stringify(join(dir, "spool.db"))}) }));`;
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve) => {
        const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
          stdio: ["ignore", "pipe", "pipe"],
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
        child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        child.on("close", (code) => resolve({ code, stdout, stderr }));
      },
    );
    expect(out.code, out.stderr).toBe(0);
    const { res, status } = JSON.parse(out.stdout) as {
      res: { ok: boolean; destinations: { sink: unknown } };
      status: unknown;
    };
    expect(res.destinations.sink).toMatchObject({ ok: true, delivered: 250, objects: 3 });
    expect(status).toMatchObject({ records: 0, pending: 0, bytes: 0 });
  }, 60_000);
});

describe("§4 stowage spool", () => {
  const dir = mkdtempSync(join(tmpdir(), "stowage-spool-cli-"));
  dirs.push(dir);
  const path = join(dir, "spool.db");
  makeSpool(path);

  it("§4 status --json reports records, pending, failed and bytes; the human form says how to retry", async () => {
    const json = await stowage(["spool", "status", "--path", path, "--json"], dir);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      path,
      records: 3,
      pending: 1,
      failed: 1,
      pendingRecords: 2,
      failedRecords: 4,
    });
    expect(JSON.parse(json.stdout).bytes).toBeGreaterThan(0);
    const human = await stowage(["spool", "status", "--path", path], dir);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/failed\s+1 batches \(4 records\)/);
    expect(human.stdout).toContain("stowage spool retry");
  });

  it("§4 retry re-arms failed batches, and status without --path finds the spool through stowage.config.json", async () => {
    const project = mkdtempSync(join(tmpdir(), "stowage-spool-cli-proj-"));
    dirs.push(project);
    writeFileSync(
      join(project, "stowage.config.json"),
      JSON.stringify({
        s3: {
          bucket: "logs",
          region: "eu-west-1",
          delivery: { buffer: "sqlite", spoolPath: path },
        },
      }),
    );
    const retry = await stowage(["spool", "retry", "--json"], project);
    expect(retry.code).toBe(0);
    expect(JSON.parse(retry.stdout)).toEqual({ path, rearmed: 1 });
    const after = await stowage(["spool", "status", "--json"], project);
    expect(JSON.parse(after.stdout)).toMatchObject({ path, failed: 0, pending: 2 });
  });

  it("§4 a missing spool or a foreign file is a clear error with exit code 1", async () => {
    const missing = await stowage(["spool", "status"], dir); // no config here: the default destination's spool under HOME
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /no spool at .*\.stowage\/s3\/[0-9a-f]{16}\.db \(the spool of the default destination/,
    );
    const foreign = join(dir, "notes.txt");
    writeFileSync(foreign, "just some notes, not a database\n".repeat(10));
    const res = await stowage(["spool", "retry", "--path", foreign], dir);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`${foreign} is not a Stowage spool`);
    expect(res.stderr).toMatch(/Hint: .*spoolPath/);
  });
});
