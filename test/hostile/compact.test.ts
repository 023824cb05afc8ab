/**
 * Issue 32 §2 faults: compaction on MinIO under 503s, resets and responses dropped after the
 * write landed (the fault proxy); a compactor SIGKILLed at random moments and rerun; two
 * compactors at once; late objects between runs. After each, every v1 record is in the
 * Parquet exactly once, checked by id through ClickHouse (chdb) — and after each kill, before
 * the rerun, no id is there twice (what an engine would count).
 */
import { spawn } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/index.js";
import { compactLogs } from "../../src/compact/index.js";
import { ch, s3Args } from "../support/clickhouse.js";
import { BIN, runStowage } from "../support/cli.js";
import { randomFaults, startFaultProxy, type FaultProxy } from "../support/fault-proxy.js";
import { s3Config } from "../support/loggers.js";
import { minio, minioStore, uniquePrefix } from "../support/minio.js";
import { seeded } from "../support/spool-procs.js";

const DAY = Date.UTC(2026, 10, 3);
const H = 3_600_000;
const proxies: FaultProxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
});

/** Writes ids [from, to) through the real logger into MinIO, spread over `hours` hours from 06:00. */
async function write(prefix: string, from: number, to: number, hours = 4): Promise<void> {
  const log = createLogger({ ...s3Config(prefix, { maxBatchRecords: 150 }), service: "api" });
  for (let id = from; id < to; id++)
    await log.write({
      timestamp: new Date(DAY + 6 * H + ((id * 7919) % (hours * H))).toISOString(),
      level: id % 9 === 0 ? "error" : "info",
      message: `request ${id}`,
      data: { id },
    });
  expect((await log.close()).ok).toBe(true);
}

async function partKeys(store: ReturnType<typeof minioStore>, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await store.list({ prefix: `${prefix}/parquet/dt=`, continuationToken: token });
    keys.push(...page.entries.map((e) => e.key));
    token = page.nextContinuationToken;
  } while (token);
  return keys;
}

/** Rows, distinct ids and ids seen more than once in the prefix's Parquet, through ClickHouse. */
async function parquetIds(prefix: string): Promise<{ rows: number; ids: number; dup: number }> {
  const src = `s3(${s3Args(`${prefix}/parquet/dt=*/hour=*/*.parquet`)}, 'Parquet')`;
  try {
    const got = await ch<{ rows: number; ids: number; dup: number }>(
      `SELECT sum(c) AS rows, count() AS ids, countIf(c > 1) AS dup FROM
         (SELECT JSONExtractInt(toJSONString(data), 'id') AS id, count() AS c FROM ${src} GROUP BY id)`,
    );
    return got.rows[0]!;
  } catch (err) {
    if (/no files with provided path|CANNOT_EXTRACT_TABLE_STRUCTURE/.test(String(err)))
      return { rows: 0, ids: 0, dup: 0 };
    throw err;
  }
}

function cliArgs(prefix: string, extra: string[] = []): string[] {
  const m = minio();
  return [
    BIN,
    "compact",
    "--source",
    `s3://${m.bucket}/${prefix}`,
    "--endpoint",
    m.endpoint,
    "--region",
    m.region,
    "--force-path-style",
    "--access-key-env",
    "T_KEY",
    "--secret-key-env",
    "T_SECRET",
    "--from",
    new Date(DAY).toISOString(),
    "--to",
    new Date(DAY + 24 * H).toISOString(),
    "--settle",
    "0",
    "--file-rows",
    "400",
    "--row-group-rows",
    "100",
    "--json",
    ...extra,
  ];
}

interface Child {
  done: Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>;
  kill(): void;
}

function compactor(prefix: string): Child {
  const m = minio();
  const child = spawn(process.execPath, cliArgs(prefix), {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.cwd(),
      AWS_EC2_METADATA_DISABLED: "true",
      T_KEY: m.accessKeyId,
      T_SECRET: m.secretAccessKey,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return {
    done: new Promise((resolve) =>
      child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
    ),
    kill: () => child.kill("SIGKILL"),
  };
}

describe("§2 compaction under faults, kills and concurrency: every record exactly once", () => {
  it("§2 503s, resets and dropped responses (the write landed, the answer did not): exactly once, and a rerun writes nothing", async () => {
    const prefix = uniquePrefix("compact-faults");
    await write(prefix, 0, 4000);
    const proxy = await startFaultProxy(minio().endpoint);
    proxies.push(proxy);
    proxy.setRule(randomFaults(0.12, ["slowdown", "reset", "drop", "500"], { seed: 7 }));
    const store = minioStore({ endpoint: proxy.endpoint, maxAttempts: 1, requestTimeoutMs: 5_000 });
    try {
      const opts = {
        store,
        prefix,
        fromMs: DAY,
        toMs: DAY + 24 * H,
        nowMs: DAY + 48 * H,
        maxAttempts: 12,
        fileRows: 300,
        rowGroupRows: 100,
      };
      const out = await compactLogs(opts);
      expect(out.ok, JSON.stringify(out.hours.map((h) => h.error))).toBe(true);
      expect(out.totals.rows).toBe(4000);
      expect(out.totals.retries).toBeGreaterThan(0);
      expect(proxy.injected.drop).toBeGreaterThan(0);
      expect(proxy.injected.slowdown).toBeGreaterThan(0);
      expect(await parquetIds(prefix)).toEqual({ rows: 4000, ids: 4000, dup: 0 });
      const again = await compactLogs({ ...opts, nowMs: DAY + 49 * H });
      expect(again.ok).toBe(true);
      expect(again.totals.generations).toBe(0);
      expect(await parquetIds(prefix)).toEqual({ rows: 4000, ids: 4000, dup: 0 });
    } finally {
      store.close();
    }
  }, 240_000);

  it("§2 a compactor SIGKILLed at random moments, late objects between runs, then a rerun: no id twice after any kill, every id once at the end", async () => {
    const seed = Number(process.env.STOWAGE_CRASH_SEED ?? Date.now() % 100_000);
    const rand = seeded(seed);
    const prefix = uniquePrefix("compact-kill");
    let written = 8000;
    await write(prefix, 0, written);
    const reader = minioStore({ maxAttempts: 3 });
    let midRun = 0;
    try {
      for (let cycle = 0; cycle < 6; cycle++) {
        const before = await partKeys(reader, prefix);
        const child = compactor(prefix);
        let exited = false;
        void child.done.then(() => (exited = true));
        // Kill once this run has written a new part (so mid-run), after a random extra moment.
        while (!exited && (await partKeys(reader, prefix)).length <= before.length)
          await new Promise((r) => setTimeout(r, 15));
        await new Promise((r) => setTimeout(r, Math.floor(rand() * 400)));
        child.kill();
        const end = await child.done;
        if (end.signal !== "SIGKILL") expect(end.code, `seed ${seed}: ${end.stderr}`).toBe(0);
        const seen = await parquetIds(prefix);
        if (end.signal === "SIGKILL" && seen.rows < written) midRun++;
        expect(seen.dup, `seed ${seed}, cycle ${cycle}: an id twice after a kill`).toBe(0);
        expect(seen.rows).toBeLessThanOrEqual(written);
        await write(prefix, written, written + 400); // late objects, some into compacted hours
        written += 400;
      }
    } finally {
      reader.close();
    }
    expect(midRun, `seed ${seed}`).toBeGreaterThan(0);
    const end = await compactor(prefix).done;
    expect(end.code, end.stderr).toBe(0);
    const summary = JSON.parse(end.stdout) as {
      ok: boolean;
      hours: { generations: { resumed: boolean }[] }[];
    };
    expect(summary.ok).toBe(true);
    expect(await parquetIds(prefix), `seed ${seed}`).toEqual({
      rows: written,
      ids: written,
      dup: 0,
    });
  }, 300_000);

  it("§2 two compactors at once: both succeed, every id once, and neither left work for a third", async () => {
    const prefix = uniquePrefix("compact-two");
    await write(prefix, 0, 5000, 6);
    const [a, b] = [compactor(prefix), compactor(prefix)];
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect(ra.code, ra.stderr).toBe(0);
    expect(rb.code, rb.stderr).toBe(0);
    type Out = { totals: { rows: number; inProgress: number } };
    const [sa, sb] = [JSON.parse(ra.stdout) as Out, JSON.parse(rb.stdout) as Out];
    // Each hour was compacted by one of them; the other found it claimed or committed.
    expect(sa.totals.rows + sb.totals.rows).toBe(5000);
    expect(await parquetIds(prefix)).toEqual({ rows: 5000, ids: 5000, dup: 0 });
    const third = await compactor(prefix).done;
    expect(third.code).toBe(0);
    expect(
      (JSON.parse(third.stdout) as { totals: { generations: number } }).totals.generations,
    ).toBe(0);
  }, 240_000);

  it("§1 a compactor without credentials, or with its endpoint down, says what is wrong and how to fix it (no stack, no secret)", async () => {
    const args = [
      "compact",
      "--source",
      "s3://logs/app",
      "--endpoint",
      "http://127.0.0.1:1",
      "--settle",
      "0",
    ];
    const none = await runStowage(args);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain("compaction on s3://logs/app failed: no credentials");
    expect(none.stderr).toMatch(/Hint: .*--access-key-env/);
    const down = await runStowage(args, {
      env: { AWS_ACCESS_KEY_ID: "AKIAEXAMPLE", AWS_SECRET_ACCESS_KEY: "secret-never-printed" },
    });
    expect(down.code).not.toBe(0);
    expect(down.stderr).toContain("cannot reach the storage endpoint");
    expect(down.stderr).toMatch(/Hint: .*stowage doctor/);
    for (const r of [none, down])
      expect(r.stderr + r.stdout).not.toMatch(/secret-never-printed|\n\s+at /);
    // A mistyped local folder is not an empty store that compacts "0 hours" and exits 0, or
    // verifies as "[OK] 0 objects".
    for (const cmd of [
      ["compact", "--source", "file:///no/such/folder", "--settle", "0"],
      ["verify", "--source", "file:///no/such/folder", "--compacted"],
    ]) {
      const typo = await runStowage(cmd);
      expect(typo.code).not.toBe(0);
      expect(typo.stderr).toContain("the store /no/such/folder does not exist");
      expect(typo.stderr).toMatch(/Hint: .*holds v1\//);
    }
  });
});
