// Object Lock on export data files: a SQLite export into a lock-enabled
// bucket with `object_lock:` writes every data file locked until the run's start +
// retain_days; validate --depth full passes; the locked version cannot be deleted.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeleteObjectCommand, HeadObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, expect, it } from "vitest";
import { runStowage } from "./support/cli.js";
import { createTable, exportEnv, exportYaml, listAll } from "./support/export-project.js";
import { freshBucket, minio, minioStore, uniquePrefix } from "./support/minio.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

it("export data files are locked; validate --depth full passes; a locked version stays", async () => {
  const bucket = await freshBucket("explock", { objectLock: true });
  const t = await createTable("sqlite", 5_000);
  const dir = mkdtempSync(join(tmpdir(), "stowage-explock-"));
  dirs.push(dir);
  const prefix = uniquePrefix("explock");
  const file = exportYaml(dir, t, "format: csv", prefix);
  writeFileSync(
    file,
    readFileSync(file, "utf8")
      .replace(`bucket: ${minio().bucket}`, `bucket: ${bucket}`)
      .replace(
        "      secret_key_env: SK\n",
        "      secret_key_env: SK\n      object_lock:\n        mode: GOVERNANCE\n        retain_days: 3\n",
      ),
  );
  const env = exportEnv(minio().endpoint, t.url);
  const before = Date.now();
  const run = await runStowage(["run", "--config", file], { env, cwd: dir });
  expect(run.code, run.stdout + run.stderr).toBe(0);
  const store = minioStore({ bucket });
  const data = (await listAll(store, `${prefix}/`)).filter((k) => k.endsWith(".csv"));
  expect(data.length).toBeGreaterThan(0);
  for (const key of data) {
    const head = await store.head(key);
    expect(head.objectLock?.mode).toBe("GOVERNANCE");
    const until = head.objectLock!.retainUntil.getTime();
    expect(until).toBeGreaterThanOrEqual(Math.floor((before + 3 * 86_400_000) / 1000) * 1000);
    expect(until).toBeLessThanOrEqual(Date.now() + 3 * 86_400_000 + 1000);
    expect(head.checksumSha256).toBeTruthy();
  }
  const validate = await runStowage(["validate", "--config", file, "--depth", "full"], {
    env,
    cwd: dir,
  });
  expect(validate.code, validate.stdout + validate.stderr).toBe(0);
  // stowage verify over the export run: checksums and locks of every part.
  const verify = await runStowage(["verify", "--config", file, "--depth", "full"], {
    env,
    cwd: dir,
  });
  expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  expect(verify.stdout).toMatch(
    /\[OK\]  export orders: run .*, Object Lock GOVERNANCE 3 d required/,
  );
  writeFileSync(file, readFileSync(file, "utf8").replace("retain_days: 3", "retain_days: 30"));
  const strict = await runStowage(["verify", "--config", file, "--json"], { env, cwd: dir });
  expect(strict.code, strict.stderr).toBe(3);
  const report = JSON.parse(strict.stdout) as { ok: boolean; exports: { problems: string[] }[] };
  expect(report.ok).toBe(false);
  expect(report.exports[0]!.problems.join(" ")).toMatch(/is locked only until .* required until/);
  const v = await store.client.send(new HeadObjectCommand({ Bucket: bucket, Key: data[0]! }));
  const del = await store.client
    .send(new DeleteObjectCommand({ Bucket: bucket, Key: data[0]!, VersionId: v.VersionId }))
    .catch((e: unknown) => e);
  expect(del).toBeInstanceOf(Error);
  expect((await store.head(data[0]!)).size).toBeGreaterThan(0);
  store.close();
});
