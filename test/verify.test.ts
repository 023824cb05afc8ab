// `stowage verify`: the real CLI against MinIO — intact objects pass,
// an object overwritten outside Stowage fails with exit 3 naming it, Object Lock is
// checked against the config, and an unreachable store is exit 1 ("could not verify").
import { rmSync } from "node:fs";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/index.js";
import { encodeV1Object } from "../src/batch/encoder.js";
import { freshBucket, minio, minioStore, uniquePrefix } from "./support/minio.js";
import { s3Config } from "./support/loggers.js";
import { runStowage } from "./support/cli.js";
import { s3YamlConfig, yamlEnv } from "./support/yaml-config.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function config(prefix: string, o: { bucket?: string; endpoint?: string; lock?: string[] } = {}) {
  const c = s3YamlConfig({
    prefix,
    ...(o.bucket ? { bucket: o.bucket } : {}),
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    ...(o.lock ? { extra: o.lock } : {}),
  });
  dirs.push(c.dir);
  return c;
}
const env = yamlEnv;

describe("stowage verify", () => {
  it("logger-written objects verify at both depths; one overwritten outside Stowage is exit 3 naming it", async () => {
    const prefix = uniquePrefix("verify");
    const log = createLogger(s3Config(prefix, { maxBatchRecords: 50 }));
    for (let i = 0; i < 160; i++) log.info("order placed", { i });
    expect((await log.close()).ok).toBe(true);
    const { dir, file } = config(prefix);
    for (const depth of ["metadata", "full"]) {
      const run = await runStowage(["verify", "--config", file, "--from", "2h", "--depth", depth], {
        env: env(),
        cwd: dir,
      });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toMatch(
        new RegExp(`\\[OK\\]  s3://${minio().bucket}/${prefix}: \\d+ objects`),
      );
    }
    // Overwrite one object with other bytes, keeping its metadata (as a careless tool would).
    const store = minioStore();
    const keys = (await store.list({ prefix })).entries.map((e) => e.key);
    const victim = keys[1]!;
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
    const meta = await runStowage(["verify", "--config", file, "--from", "2h", "--json"], {
      env: env(),
      cwd: dir,
    });
    expect(meta.code, meta.stderr).toBe(3);
    const report = JSON.parse(meta.stdout) as {
      ok: boolean;
      targets: { failures: { key: string; problems: string[] }[] }[];
    };
    expect(report.ok).toBe(false);
    expect(report.targets[0]!.failures.map((f) => f.key)).toEqual([victim]);
    expect(report.targets[0]!.failures[0]!.problems.join(" ")).toMatch(/no SHA-256 checksum/);
    const full = await runStowage(["verify", "--config", file, "--from", "2h", "--depth", "full"], {
      env: env(),
      cwd: dir,
    });
    expect(full.code).toBe(3);
    expect(full.stdout).toContain(victim);
    expect(full.stdout).toContain(
      `the body holds 1 lines, metadata records says ${head.metadata["records"]}`,
    );
    expect(full.stdout + full.stderr).not.toContain(minio().secretAccessKey);
    store.close();
  });

  it("Object Lock: locked objects pass; a retention shorter than the config asks, or none, is exit 3", async () => {
    const bucket = await freshBucket("verify-lock", { objectLock: true });
    const prefix = uniquePrefix("vlock");
    const store = minioStore({ bucket });
    const now = Date.now();
    const put = async (n: number, lockDays: number | null) => {
      const obj = encodeV1Object(
        { lines: [`{"n":${n},"timestamp":${now - n}}`], minMs: now - n, maxMs: now - n },
        { prefix },
      );
      await store.put(obj.key, obj.body, {
        ifNoneMatch: "*",
        contentType: "application/x-ndjson",
        contentEncoding: "gzip",
        metadata: obj.metadata,
        ...(lockDays !== null
          ? {
              objectLock: {
                mode: "GOVERNANCE" as const,
                retainUntil: new Date(now + lockDays * 86_400_000),
              },
            }
          : {}),
      });
      return obj.key;
    };
    await put(1, 3);
    await put(2, 3);
    const ok = config(prefix, {
      bucket,
      lock: ["  object_lock:", "    mode: GOVERNANCE", "    retain_days: 2"],
    });
    const pass = await runStowage(
      ["verify", "--config", ok.file, "--from", "1h", "--depth", "full"],
      { env: env(), cwd: ok.dir },
    );
    expect(pass.code, pass.stdout + pass.stderr).toBe(0);
    expect(pass.stdout).toContain("Object Lock GOVERNANCE 2 d required");
    const unlocked = await put(3, null);
    const strict = config(prefix, {
      bucket,
      lock: ["  object_lock:", "    mode: GOVERNANCE", "    retain_days: 30"],
    });
    const fail = await runStowage(["verify", "--config", strict.file, "--from", "1h"], {
      env: env(),
      cwd: strict.dir,
    });
    expect(fail.code).toBe(3);
    expect(fail.stdout).toMatch(/locked only until .* required until/);
    expect(fail.stdout).toContain(`${unlocked}\n    - not locked`);
    store.close();
  });

  it("an unreachable store is exit 1 (could not verify), never a pass", async () => {
    const { dir, file } = config(uniquePrefix("vdown"), { endpoint: "http://127.0.0.1:9" });
    const run = await runStowage(["verify", "--config", file, "--from", "1h"], {
      env: env(),
      cwd: dir,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/could not verify s3:\/\/.*connectivity/);
  });
});
