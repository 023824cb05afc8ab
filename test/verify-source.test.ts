// `stowage verify --source` (issue 34 §5): an auditor without the app's config verifies the
// objects under an s3:// or file:// source with the source flags of `stowage logs`
// (credentials from the environment or named variables) and gets the same answer as
// `stowage verify --config` — intact, tampered (exit 3), locked as asked (`--object-lock`),
// unreachable (exit 1) — on real MinIO and a real local-directory store.
import { rmSync, writeFileSync } from "node:fs";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/index.js";
import { runStowage, type CliRun } from "./support/cli.js";
import { localConfig, s3Config } from "./support/loggers.js";
import { freshBucket, minio, minioStore, uniquePrefix } from "./support/minio.js";
import { s3YamlConfig, yamlEnv } from "./support/yaml-config.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const LOCK = { mode: "GOVERNANCE" as const, retainDays: 1 };

/** Logs `n` records through the real logger (batches of 40) into `prefix` on MinIO. */
async function writeLogs(prefix: string, n: number, over: { bucket?: string } = {}) {
  const base = s3Config(prefix, { maxBatchRecords: 40 }, over);
  const log = createLogger(over.bucket ? { ...base, s3: { ...base.s3, objectLock: LOCK } } : base);
  for (let i = 0; i < n; i++) log.info("order placed", { i });
  expect((await log.close()).ok).toBe(true);
}

function configFor(prefix: string, o: { bucket?: string; lock?: boolean } = {}) {
  const c = s3YamlConfig({
    prefix,
    ...(o.bucket ? { bucket: o.bucket } : {}),
    ...(o.lock ? { extra: ["  object_lock:", "    mode: GOVERNANCE", "    retain_days: 1"] } : {}),
  });
  dirs.push(c.dir);
  return c;
}

const viaConfig = (file: string, dir: string, args: string[]) =>
  runStowage(["verify", "--config", file, ...args], { env: yamlEnv(), cwd: dir });

/** The source flags of `stowage logs`, credentials from the AWS variables. */
const viaSource = (bucket: string, prefix: string, args: string[], env?: Record<string, string>) =>
  runStowage(
    [
      "verify",
      "--source",
      `s3://${bucket}/${prefix}`,
      "--endpoint",
      minio().endpoint,
      "--force-path-style",
      "--region",
      minio().region,
      ...args,
    ],
    {
      env: env ?? {
        AWS_ACCESS_KEY_ID: minio().accessKeyId,
        AWS_SECRET_ACCESS_KEY: minio().secretAccessKey,
      },
    },
  );

interface Report {
  ok: boolean;
  targets: { target: string; checked: number; failures: { key: string; problems: string[] }[] }[];
}
const report = (run: CliRun) => JSON.parse(run.stdout) as Report;

/** Same exit code and the same JSON report (a range given explicitly, so both see the same hours). */
function expectSameAnswer(a: CliRun, b: CliRun, code: number): void {
  expect(a.code, a.stdout + a.stderr).toBe(code);
  expect(b.code, b.stdout + b.stderr).toBe(code);
  expect(report(b)).toEqual(report(a));
}

describe("stowage verify --source", () => {
  it("s3://: the same answer as with the config — intact at both depths, then exit 3 naming an object overwritten outside Stowage", async () => {
    const prefix = uniquePrefix("vsrc");
    await writeLogs(prefix, 130);
    const { dir, file } = configFor(prefix);
    const range = [
      "--from",
      new Date(Date.now() - 2 * 3_600_000).toISOString(),
      "--to",
      new Date(Date.now() + 60_000).toISOString(),
      "--json",
    ];
    for (const depth of ["metadata", "full"]) {
      const args = [...range, "--depth", depth];
      const a = await viaConfig(file, dir, args);
      const b = await viaSource(minio().bucket, prefix, args);
      expectSameAnswer(a, b, 0);
      expect(report(b).targets[0]!.checked).toBeGreaterThanOrEqual(4);
      expect(report(b).targets[0]!.target).toBe(`s3://${minio().bucket}/${prefix}`);
    }
    // Credentials by variable name, as `stowage logs --access-key-env` takes them.
    const named = await viaSource(
      minio().bucket,
      prefix,
      [...range, "--access-key-env", "STOWAGE_TEST_AK", "--secret-key-env", "STOWAGE_TEST_SK"],
      yamlEnv(),
    );
    expectSameAnswer(await viaConfig(file, dir, range), named, 0);

    const store = minioStore();
    const victim = (await store.list({ prefix })).entries[1]!.key;
    const head = await store.head(victim);
    await store.client.send(
      new PutObjectCommand({
        Bucket: minio().bucket,
        Key: victim,
        Body: gzipSync('{"tampered":true}\n'),
        Metadata: head.metadata,
        ContentEncoding: "gzip",
      }),
    );
    store.close();
    const a = await viaConfig(file, dir, range);
    const b = await viaSource(minio().bucket, prefix, range);
    expectSameAnswer(a, b, 3);
    expect(report(b).targets[0]!.failures.map((f) => f.key)).toEqual([victim]);
    const text = await viaSource(minio().bucket, prefix, range.slice(0, 4));
    expect(text.code).toBe(3);
    expect(text.stdout).toContain(`[FAIL] s3://${minio().bucket}/${prefix}:`);
    expect(text.stdout + text.stderr).not.toContain(minio().secretAccessKey);
  });

  it("--object-lock MODE:DAYS asks what the config's object_lock asks: the same pass, and the same exit 3 for a longer retention", async () => {
    const bucket = await freshBucket("vsrc-lock", { objectLock: true });
    const prefix = uniquePrefix("vsrclock");
    await writeLogs(prefix, 60, { bucket });
    const { dir, file } = configFor(prefix, { bucket, lock: true });
    const range = ["--from", "1h", "--json"];
    expectSameAnswer(
      await viaConfig(file, dir, range),
      await viaSource(bucket, prefix, [...range, "--object-lock", "GOVERNANCE:1"]),
      0,
    );
    const strict = await viaSource(bucket, prefix, [...range, "--object-lock", "governance:30"]);
    expect(strict.code).toBe(3);
    expect(JSON.stringify(report(strict))).toMatch(/locked only until .* required until/);
  });

  it("file://: the same answer as the config's local store", async () => {
    const { config, store } = localConfig({ maxBatchRecords: 25 });
    dirs.push(config.local.path);
    const log = createLogger(config);
    for (let i = 0; i < 60; i++) log.info("local record", { i });
    expect((await log.close()).ok).toBe(true);
    store.close();
    const file = `${config.local.path}.json`;
    writeFileSync(
      file,
      JSON.stringify({ destination: "local", local: { path: config.local.path } }),
    );
    dirs.push(file);
    const args = ["--from", "1h", "--depth", "full", "--json"];
    const a = await runStowage(["verify", "--config", file, ...args]);
    const b = await runStowage(["verify", "--source", `file://${config.local.path}`, ...args]);
    expectSameAnswer(a, b, 0);
    expect(report(b).targets[0]!.checked).toBeGreaterThanOrEqual(3);
  });

  it("usage and failures: source flags without --source, --source with --config, a lock on file:// are exit 2; wrong credentials exit 1 with the doctor --source hint", async () => {
    const noSource = await runStowage(["verify", "--region", "eu-west-1", "--from", "1h"]);
    expect(noSource.code).toBe(2);
    expect(noSource.stderr).toContain("--region goes with --source");
    const both = await runStowage(["verify", "--source", "s3://b/p", "--config", "x.yaml"]);
    expect(both.code).toBe(2);
    const lockLocal = await runStowage([
      "verify",
      "--source",
      "/tmp",
      "--object-lock",
      "GOVERNANCE:1",
    ]);
    expect(lockLocal.code).toBe(2);
    const badLock = await viaSource(minio().bucket, "p", ["--object-lock", "FOREVER"]);
    expect(badLock.code).toBe(2);
    const denied = await viaSource(minio().bucket, uniquePrefix("vsrc-denied"), ["--from", "1h"], {
      AWS_ACCESS_KEY_ID: minio().accessKeyId,
      AWS_SECRET_ACCESS_KEY: "wrong-secret-4321",
    });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/could not verify s3:\/\//);
    expect(denied.stderr).toContain("stowage doctor --source");
    expect(denied.stdout + denied.stderr).not.toContain("wrong-secret-4321");
  });
});
