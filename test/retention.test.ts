// Lifecycle and Object Lock checks: `stowage policy --lifecycle`
// applied with PutBucketLifecycleConfiguration reads back healthy in doctor; each
// misconfiguration is reported with a hint; doctor's lock probe proves the writer
// may set retention and leaves no version behind. Real MinIO, real CLI.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ListObjectVersionsCommand,
  PutBucketLifecycleConfigurationCommand,
  type LifecycleRule,
} from "@aws-sdk/client-s3";
import { afterAll, describe, expect, it } from "vitest";
import { freshBucket, minio, minioStore, uniquePrefix } from "./support/minio.js";
import { runStowage } from "./support/cli.js";
import { s3YamlConfig, yamlEnv } from "./support/yaml-config.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function config(bucket: string, prefix: string, extra: string[] = []) {
  const c = s3YamlConfig({ bucket, prefix, extra });
  dirs.push(c.dir);
  return c;
}
const env = yamlEnv;
const doctor = (c: { dir: string; file: string }) =>
  runStowage(["doctor", "--config", c.file], { env: env(), cwd: c.dir });

async function applyRules(bucket: string, Rules: LifecycleRule[]) {
  const store = minioStore({ bucket });
  await store.client.send(
    new PutBucketLifecycleConfigurationCommand({
      Bucket: bucket,
      LifecycleConfiguration: { Rules },
    }),
  );
  store.close();
}

describe("lifecycle", () => {
  it("policy --lifecycle output, applied to the bucket, reads back healthy in doctor", async () => {
    const bucket = await freshBucket("life");
    const prefix = uniquePrefix("life");
    const c = config(bucket, prefix, ["  lifecycle:", "    expire_days: 30"]);
    const before = await doctor(c);
    expect(before.code, before.stdout).toBe(0);
    expect(before.stdout).toMatch(
      /\[WARN\] Lifecycle rules -- no lifecycle rule expires objects under t\/life-\w+\/v1\/: it grows/,
    );
    expect(before.stdout).toContain("Hint: apply `stowage policy --lifecycle`");
    const out = await runStowage(["policy", "--config", c.file, "--lifecycle"], {
      env: env(),
      cwd: c.dir,
    });
    expect(out.code, out.stderr).toBe(0);
    const lifecycle = JSON.parse(out.stdout) as { Rules: LifecycleRule[] };
    expect(lifecycle.Rules).toEqual([
      {
        ID: expect.stringMatching(/^stowage-logs-t-life-/),
        Status: "Enabled",
        Filter: { Prefix: `${prefix}/v1/` },
        Expiration: { Days: 30 },
      },
    ]);
    expect(out.stderr).toContain("expires after 30 d");
    await applyRules(bucket, lifecycle.Rules);
    const after = await doctor(c);
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).toContain("[OK]  Lifecycle rules\n");
  });

  it("expiry inside the reader's 7-day window is a warning; expiry before the lock ends fails with a hint", async () => {
    const bucket = await freshBucket("lifelock", { objectLock: true });
    const prefix = uniquePrefix("ll");
    await applyRules(bucket, [
      { ID: "short", Status: "Enabled", Filter: { Prefix: `${prefix}/` }, Expiration: { Days: 3 } },
    ]);
    const plain = await doctor(config(bucket, prefix));
    expect(plain.code, plain.stdout).toBe(0);
    expect(plain.stdout).toMatch(
      /\[WARN\] Lifecycle rules -- objects under .* expire after 3 days, inside the reader's 7-day window/,
    );
    const locked = await doctor(
      config(bucket, prefix, ["  object_lock:", "    mode: GOVERNANCE", "    retain_days: 10"]),
    );
    expect(locked.code).toBe(2); // a config error: doctor exits 2 for those
    expect(locked.stdout).toMatch(
      /\[FAIL\] Lifecycle rules -- config error: objects under .* expire after 3 days, before their 10-day Object Lock ends/,
    );
    expect(locked.stdout).toContain("Hint: expire after at least 10 days");
    const refused = await runStowage(
      [
        "policy",
        "--config",
        config(bucket, prefix, [
          "  object_lock:",
          "    mode: GOVERNANCE",
          "    retain_days: 10",
          "  lifecycle:",
          "    expire_days: 5",
        ]).file,
        "--lifecycle",
      ],
      { env: env() },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "expire_days (5) is shorter than object_lock.retain_days (10)",
    );
  });

  it("an export prefix without an abort rule for incomplete multipart uploads is reported (MinIO does not keep that rule)", async () => {
    const bucket = await freshBucket("lifeexp");
    const m = minio();
    const dir = mkdtempSync(join(tmpdir(), "stowage-retention-"));
    dirs.push(dir);
    const file = join(dir, "export.yaml");
    writeFileSync(
      file,
      [
        "source: { type: sqlite, path: ./none.db }",
        "exports:",
        "  - name: orders",
        "    query: select 1",
        "    format: csv",
        "    destination:",
        "      type: s3",
        `      bucket: ${bucket}`,
        "      prefix: exports/{export}/{date}",
        `      region: ${m.region}`,
        `      endpoint: ${m.endpoint}`,
        "      force_path_style: true",
        "      access_key_env: STOWAGE_TEST_AK",
        "      secret_key_env: STOWAGE_TEST_SK",
        "      lifecycle:",
        "        expire_days: 90",
        "",
      ].join("\n"),
    );
    const out = await runStowage(["policy", "--config", file, "--lifecycle", "--json"], {
      env: env(),
      cwd: dir,
    });
    expect(out.code, out.stderr).toBe(0);
    const rules = (JSON.parse(out.stdout) as { Rules: LifecycleRule[] }).Rules;
    expect(rules).toEqual([
      {
        ID: "stowage-export-exports-orders",
        Status: "Enabled",
        Filter: { Prefix: "exports/orders/" },
        Expiration: { Days: 90 },
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
      },
    ]);
    await applyRules(bucket, rules); // MinIO accepts the rule but drops the abort action
    const run = await runStowage(["doctor", "--config", file], { env: env(), cwd: dir });
    expect(run.stdout).toMatch(
      /\[WARN\] Lifecycle rules -- no rule aborts incomplete multipart uploads under exports\/orders\//,
    );
  });
});

describe("Object Lock in doctor and policy", () => {
  it("a lock-enabled bucket: the lock probe passes and no version of any probe is left", async () => {
    const bucket = await freshBucket("dlock", { objectLock: true });
    const prefix = uniquePrefix("dl");
    const c = config(bucket, prefix, [
      "  object_lock:",
      "    mode: COMPLIANCE",
      "    retain_days: 1",
    ]);
    const run = await doctor(c);
    expect(run.stdout).toContain("[OK]  Object Lock (COMPLIANCE, 1 d)\n");
    expect(run.stdout).toContain("[OK]  Cleanup (DeleteObject)");
    const store = minioStore({ bucket });
    const versions = await store.client.send(
      new ListObjectVersionsCommand({ Bucket: bucket, Prefix: `${prefix}/` }),
    );
    expect(versions.Versions ?? []).toEqual([]);
    expect(versions.DeleteMarkers ?? []).toEqual([]);
    store.close();
  });

  it("a bucket without Object Lock fails the check with how to fix it; the writer policy adds the retention actions", async () => {
    const bucket = await freshBucket("dnolock");
    const c = config(bucket, uniquePrefix("dn"), [
      "  object_lock:",
      "    mode: GOVERNANCE",
      "    retain_days: 7",
    ]);
    const run = await doctor(c);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /\[FAIL\] Object Lock \(GOVERNANCE, 7 d\) -- capability missing: bucket .* does not have Object Lock enabled/,
    );
    expect(run.stdout).toContain("--object-lock-enabled-for-bucket");
    const pol = await runStowage(["policy", "--config", c.file, "--role", "writer", "--json"], {
      env: env(),
      cwd: c.dir,
    });
    const actions = (
      JSON.parse(pol.stdout) as { Statement: { Action: string[] }[] }
    ).Statement.flatMap((s) => s.Action);
    expect(actions).toEqual(
      expect.arrayContaining([
        "s3:PutObjectRetention",
        "s3:GetBucketObjectLockConfiguration",
        "s3:GetLifecycleConfiguration",
      ]),
    );
    const plain = config(bucket, uniquePrefix("dp"));
    const plainPol = await runStowage(
      ["policy", "--config", plain.file, "--role", "writer", "--json"],
      { env: env(), cwd: plain.dir },
    );
    expect(plainPol.stdout).not.toContain("Retention");
  });
});
