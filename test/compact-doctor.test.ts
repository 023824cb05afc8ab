/**
 * Issue 32 §1: "v1 kept N days, Parquet kept M days" — `stowage policy --lifecycle
 * --parquet-days M` adds the Parquet rule (refused when shorter than v1's), and doctor, on a
 * bucket being compacted, warns when v1 hours expire soon without a compaction manifest, and
 * is quiet once they are compacted. Real MinIO, real CLI.
 */
import { rmSync } from "node:fs";
import { PutBucketLifecycleConfigurationCommand, type LifecycleRule } from "@aws-sdk/client-s3";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/index.js";
import { compactLogs } from "../src/compact/index.js";
import { runStowage } from "./support/cli.js";
import { s3Config } from "./support/loggers.js";
import { freshBucket, minioStore, uniquePrefix } from "./support/minio.js";
import { s3YamlConfig, yamlEnv } from "./support/yaml-config.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const H = 3_600_000;

describe("§1 compaction in lifecycle rules and doctor", () => {
  it("§1 --parquet-days adds the Parquet rule; doctor warns about v1 hours expiring uncompacted, then is quiet", async () => {
    const bucket = await freshBucket("clife");
    const prefix = uniquePrefix("clife");
    // A day 29 days ago: with v1 kept 30 days, its hours expire within two days.
    const day =
      Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) -
      29 * 24 * H;
    const log = createLogger({
      ...s3Config(prefix, { maxBatchRecords: 100 }, { bucket }),
      service: "api",
    });
    for (let i = 0; i < 400; i++)
      await log.write({
        timestamp: new Date(day + 10 * H + i * 18_000).toISOString(), // 10:00 → 11:59
        level: "info",
        message: `m${i}`,
        data: { id: i },
      });
    expect((await log.close()).ok).toBe(true);
    const store = minioStore({ bucket });
    const hour10 = { store, prefix, fromMs: day + 10 * H, toMs: day + 11 * H };
    expect((await compactLogs(hour10)).totals.rows).toBe(200);

    const c = s3YamlConfig({ bucket, prefix, extra: ["  lifecycle:", "    expire_days: 30"] });
    dirs.push(c.dir);
    const env = yamlEnv();
    const short = await runStowage(
      ["policy", "--config", c.file, "--lifecycle", "--parquet-days", "10"],
      { env, cwd: c.dir },
    );
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/Parquet kept 10 days is shorter than v1 kept 30 days/);
    const out = await runStowage(
      ["policy", "--config", c.file, "--lifecycle", "--parquet-days", "400"],
      { env, cwd: c.dir },
    );
    expect(out.code, out.stderr).toBe(0);
    const { Rules } = JSON.parse(out.stdout) as { Rules: LifecycleRule[] };
    expect(Rules).toEqual([
      expect.objectContaining({ Filter: { Prefix: `${prefix}/v1/` }, Expiration: { Days: 30 } }),
      {
        ID: expect.stringMatching(/^stowage-parquet-/),
        Status: "Enabled",
        Filter: { Prefix: `${prefix}/parquet/` },
        Expiration: { Days: 400 },
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
      },
    ]);
    await store.client.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: bucket,
        LifecycleConfiguration: { Rules },
      }),
    );
    const dt = new Date(day).toISOString().slice(0, 10);
    const before = await runStowage(["doctor", "--config", c.file], { env, cwd: c.dir });
    expect(before.code, before.stdout).toBe(0);
    expect(before.stdout).toMatch(
      new RegExp(
        `\\[WARN\\] Compaction \\(v1 kept 30 d, Parquet kept 400 d\\) -- 1 v1 hour\\(s\\) of ${dt} \\(11\\) expire in \\d+ h and have no compaction manifest`,
      ),
    );
    expect(before.stdout).toContain(`Hint: run stowage compact --from ${dt}T00:00:00Z`);
    expect((await compactLogs({ ...hour10, toMs: day + 12 * H })).totals.rows).toBe(200);
    const after = await runStowage(["doctor", "--config", c.file], { env, cwd: c.dir });
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).toContain("[OK]  Compaction (v1 kept 30 d, Parquet kept 400 d)\n");
    store.close();
  }, 120_000);
});
