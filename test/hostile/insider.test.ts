// Issue 31 §2: the retention proof against an insider holding the writer's own credentials.
// A forged current version of a locked object, a delete marker over one, a byte flipped in
// flight, a hostile key, an object the reader cannot vouch for, the writer policy itself —
// each attacked for real on MinIO (versioned, lock-enabled buckets; STS sessions limited
// to exactly the printed policy; the fault proxy), through the real CLI.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, describe, expect, it } from "vitest";
import { encodeV1Object } from "../../src/batch/encoder.js";
import {
  CONTENT_ENCODING,
  CONTENT_TYPE,
  hourPrefix,
  utcHourStart,
} from "../../src/v1-format/object-key.js";
import { createSource } from "../../src/reader/index.js";
import { startStudio } from "../../src/studio/index.js";
import type { LoadResponse } from "../../src/studio/api-types.js";
import { lockOption } from "../../src/store/object-lock.js";
import type { S3Store } from "../../src/store/s3-store.js";
import { runStowage, type CliRun } from "../support/cli.js";
import { assumeRole, tryAssumeRole } from "../support/sts.js";
import { startFaultProxy } from "../support/fault-proxy.js";
import { freshBucket, minio, minioStore, uniquePrefix } from "../support/minio.js";
import { s3YamlConfig, yamlEnv } from "../support/yaml-config.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const LOCK = { mode: "GOVERNANCE" as const, retainDays: 1 };
const LOCK_YAML = ["  object_lock:", "    mode: GOVERNANCE", "    retain_days: 1"];
const HOUR = 3_600_000;

/** A config for `bucket`/`prefix` with credentials from AK/SK/ST (an STS session) or the root ones. */
function config(
  bucket: string,
  prefix: string,
  o: { lock?: boolean; endpoint?: string; sts?: boolean } = {},
) {
  const c = s3YamlConfig({
    bucket,
    prefix,
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    ...(o.sts ? { accessKeyEnv: "AK", secretKeyEnv: "SK" } : {}),
    extra: [...(o.sts ? ["  session_token_env: ST"] : []), ...(o.lock ? LOCK_YAML : [])],
  });
  dirs.push(c.dir);
  return c;
}

function cli(
  args: string[],
  c: { dir: string },
  env: Record<string, string> = yamlEnv(),
): Promise<CliRun> {
  return runStowage(args, { env, cwd: c.dir });
}

async function policyOf(c: { dir: string; file: string }, role: "writer" | "reader") {
  const run = await cli(["policy", "--config", c.file, "--role", role, "--json"], c);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as {
    Statement: {
      Sid: string;
      Action: string[];
      Resource: string[];
      Condition?: Record<string, unknown>;
    }[];
  };
}

/** A record line of `bytes` length at `ms`. */
function line(ms: number, message: string, width: number): string {
  const head = `{"timestamp":"${new Date(ms).toISOString()}","level":"info","message":"${message}","pad":"`;
  return `${head}${"x".repeat(Math.max(0, width - head.length - 2))}"}`;
}

interface Written {
  key: string;
  hourMs: number;
  lines: string[];
}

/** Writes `n` v1 objects of 100 records each in one past hour, as the logger does (conditional, locked). */
async function writeObjects(
  store: S3Store,
  prefix: string,
  o: { n?: number; lock?: boolean; hourMs?: number; records?: number } = {},
): Promise<Written[]> {
  const hourMs = o.hourMs ?? utcHourStart(Date.now() - HOUR);
  const out: Written[] = [];
  for (let i = 0; i < (o.n ?? 3); i++) {
    const base = hourMs + (i + 1) * 60_000;
    const lines = Array.from({ length: o.records ?? 100 }, (_, j) =>
      line(base + j, `order ${i * 100 + j} placed`, 160),
    );
    const obj = encodeV1Object({ lines, minMs: base, maxMs: base + lines.length - 1 }, { prefix });
    await store.put(obj.key, obj.body, {
      ifNoneMatch: "*",
      contentType: CONTENT_TYPE,
      contentEncoding: CONTENT_ENCODING,
      metadata: obj.metadata,
      ...(o.lock ? lockOption(obj.maxMs, LOCK, Date.now()) : {}),
    });
    out.push({ key: obj.key, hourMs, lines });
  }
  return out;
}

interface VerifyJson {
  ok: boolean;
  targets: {
    hours: number;
    checked: number;
    requests: { list: number; head: number; get: number };
    failures: { key: string; problems: string[] }[];
  }[];
}

describe("issue 31 §2: retention proof against an insider", () => {
  it("issue 31 §2: a version forged with only the writer policy's actions fails verify at both depths, naming the key", async () => {
    const bucket = await freshBucket("forge", { objectLock: true });
    const prefix = uniquePrefix("forge");
    const root = minioStore({ bucket });
    const written = await writeObjects(root, prefix, { lock: true });
    const c = config(bucket, prefix, { lock: true });
    const creds = await assumeRole(await policyOf(c, "writer"));
    const insider = minioStore({
      bucket,
      credentials: { accessKeyId: creds.AK, secretAccessKey: creds.SK, sessionToken: creds.ST },
    });
    try {
      // Same key, same line count and decoded size, its own SHA-256, copied metadata, same retention.
      const victim = written[1]!;
      const head = await insider.head(victim.key);
      expect(head.objectLock?.mode).toBe("GOVERNANCE");
      const forged = victim.lines.map((l, j) =>
        line(victim.hourMs + 120_000 + j, `forged ${j}`, Buffer.byteLength(l)),
      );
      const body = gzipSync(`${forged.join("\n")}\n`);
      expect(`${forged.join("\n")}\n`.length).toBe(Number(head.metadata["decoded-bytes"]));
      await insider.put(victim.key, body, {
        contentType: CONTENT_TYPE,
        contentEncoding: CONTENT_ENCODING,
        metadata: head.metadata,
        ...(head.objectLock ? { objectLock: head.objectLock } : {}),
      });
      const logs = await cli(
        [
          "logs",
          "--source",
          `s3://${bucket}/${prefix}`,
          ...sourceFlags(),
          "--from",
          "3h",
          "--json",
        ],
        c,
      );
      expect(logs.stdout).toContain('"message":"forged 0"'); // the reader cannot tell: verify must

      for (const depth of ["metadata", "full"]) {
        const run = await cli(
          ["verify", "--config", c.file, "--from", "3h", "--depth", depth, "--json"],
          c,
        );
        expect(run.code, `${depth}: ${run.stdout}${run.stderr}`).toBe(3);
        const report = JSON.parse(run.stdout) as VerifyJson;
        expect(report.targets[0]!.failures.map((f) => f.key)).toEqual([victim.key]);
        expect(report.targets[0]!.failures[0]!.problems.join(" ")).toMatch(/2 versions/);
      }
    } finally {
      insider.close();
      root.close();
    }
  });

  it("issue 31 §2: a delete marker over one of three locked objects fails verify naming the key; the writer may not delete", async () => {
    const bucket = await freshBucket("delmark", { objectLock: true });
    const prefix = uniquePrefix("delmark");
    const root = minioStore({ bucket });
    const written = await writeObjects(root, prefix, { lock: true });
    const c = config(bucket, prefix, { lock: true });
    const writer = await policyOf(c, "writer");
    for (const s of writer.Statement)
      if (s.Action.some((a) => a.startsWith("s3:Delete")))
        expect(
          s.Resource.some((r) => r.includes("/v1/")),
          s.Sid,
        ).toBe(false);
    const creds = await assumeRole(writer);
    const insider = minioStore({
      bucket,
      credentials: { accessKeyId: creds.AK, secretAccessKey: creds.SK, sessionToken: creds.ST },
    });
    try {
      await expect(insider.delete(written[0]!.key)).rejects.toMatchObject({ code: "storage" });
      await root.delete(written[0]!.key); // a plain DELETE: a delete marker, the locked bytes stay
      const run = await cli(["verify", "--config", c.file, "--from", "3h"], c);
      expect(run.code, run.stdout + run.stderr).toBe(3);
      expect(run.stdout).toMatch(/\[FAIL\] .*: 3 objects/);
      expect(run.stdout).toContain(`  ${written[0]!.key}\n    - deleted: a delete marker`);
    } finally {
      insider.close();
      root.close();
    }
  });

  it("issue 31 §2: a 30-day verify of 2 objects lists versions once over the range, not once per hour (721)", async () => {
    const prefix = uniquePrefix("vcost");
    const root = minioStore();
    const now = Date.now();
    await writeObjects(root, prefix, {
      n: 1,
      hourMs: utcHourStart(now - 20 * 24 * HOUR),
      records: 3,
    });
    await writeObjects(root, prefix, {
      n: 1,
      hourMs: utcHourStart(now - 3 * 24 * HOUR),
      records: 3,
    });
    root.close();
    const c = config(minio().bucket, prefix);
    const proxy = await startFaultProxy(minio().endpoint);
    const viaProxy = config(minio().bucket, prefix, { endpoint: proxy.endpoint });
    try {
      const run = await cli(
        ["verify", "--config", viaProxy.file, "--from", "30d", "--json"],
        viaProxy,
      );
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const t = (JSON.parse(run.stdout) as VerifyJson).targets[0]!;
      expect(t.hours).toBe(721);
      expect(t.checked).toBe(2);
      expect(t.requests.list).toBe(1);
      expect(proxy.counts.list).toBe(1);
      // The reader role of `stowage policy` is enough to verify (versions listing included).
      const reader = await assumeRole(await policyOf(c, "reader"));
      const sts = config(minio().bucket, prefix, { sts: true });
      const asReader = await cli(
        ["verify", "--config", sts.file, "--from", "30d", "--depth", "full"],
        sts,
        {
          AK: reader.AK,
          SK: reader.SK,
          ST: reader.ST,
        },
      );
      expect(asReader.code, asReader.stdout + asReader.stderr).toBe(0);
      expect(asReader.stdout).toContain("2 objects in 721 hours");
    } finally {
      await proxy.close();
    }
  });

  it("issue 31 §2: one byte flipped on a GET in flight is retried once, not reported as stored corruption (verify and logs)", async () => {
    const prefix = uniquePrefix("vflip");
    const root = minioStore();
    await writeObjects(root, prefix, { n: 1 });
    root.close();
    let flips = 0;
    const proxy = await startFaultProxy(minio().endpoint, (r) =>
      r.kind === "get" && r.path.includes("/v1/") && flips++ === 0 ? "flip" : undefined,
    );
    try {
      const c = config(minio().bucket, prefix, { endpoint: proxy.endpoint });
      const run = await cli(["verify", "--config", c.file, "--from", "3h", "--depth", "full"], c);
      expect(proxy.injected.flip).toBe(1);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toMatch(/\(\d+ LIST, 1 HEAD, 2 GET\)/);
      flips = 0;
      const logs = await cli(
        [
          "logs",
          "--source",
          `s3://${minio().bucket}/${prefix}`,
          ...sourceFlags(proxy.endpoint),
          "--from",
          "3h",
          "--json",
        ],
        c,
      );
      expect(proxy.injected.flip).toBe(2);
      expect(logs.code, logs.stderr).toBe(0);
      expect(logs.stderr).not.toContain("stowage logs: skipped");
      expect(logs.stderr).toMatch(/objects 1 read, 0 skipped/);
      expect(logs.stdout.trim().split("\n")).toHaveLength(100);
    } finally {
      await proxy.close();
    }
  });

  it("issue 31 §2: verify escapes control characters of a hostile key (a BEL never reaches the terminal)", async () => {
    const prefix = uniquePrefix("vbell");
    const root = minioStore();
    const [obj] = await writeObjects(root, prefix, { n: 1, records: 2 });
    const hostile = `${hourPrefix(prefix, obj!.hourMs)}\u0007bell\u202eevil.ndjson.gz`;
    await root.put(hostile, "x", { ifNoneMatch: "*" });
    root.close();
    const c = config(minio().bucket, prefix);
    const run = await cli(["verify", "--config", c.file, "--from", "3h"], c);
    expect(run.code, run.stdout + run.stderr).toBe(3);
    expect(run.stdout).not.toMatch(/[\u0007\u202e]/);
    expect(run.stdout).toContain("\\x07bell\\u202eevil.ndjson.gz");
  });

  it("issue 31 §2: records of an object verify would flag (no checksum; not locked where the config asks) are marked unverified in logs and Studio", async () => {
    const bucket = await freshBucket("unver", { objectLock: true });
    const prefix = uniquePrefix("unver");
    const root = minioStore({ bucket });
    const [locked] = await writeObjects(root, prefix, { n: 1, lock: true, records: 5 });
    // Written outside Stowage: no x-amz-checksum-sha256, no lock; same format otherwise.
    const lines = Array.from({ length: 5 }, (_, j) =>
      line(locked!.hourMs + 600_000 + j, `plain ${j}`, 120),
    );
    const obj = encodeV1Object(
      { lines, minMs: locked!.hourMs + 600_000, maxMs: locked!.hourMs + 600_004 },
      { prefix },
    );
    await root.client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: obj.key,
        Body: obj.body,
        ContentType: CONTENT_TYPE,
        ContentEncoding: CONTENT_ENCODING,
        Metadata: obj.metadata,
      }),
    );
    const c = config(bucket, prefix, { lock: true });
    try {
      const logs = await cli(
        ["logs", "--source", `s3://${bucket}/${prefix}`, ...sourceFlags(), "--from", "3h"],
        c,
      );
      expect(logs.code, logs.stderr).toBe(0);
      expect(logs.stdout).toContain("plain 0");
      expect(logs.stderr).toContain(`stowage logs: unverified ${obj.key}: no SHA-256 checksum`);
      expect(logs.stderr).toMatch(/· objects 2 read, 0 skipped, 1 unverified/);

      // With the config's lock requirement (Studio with a project config): the unlocked object too.
      const source = createSource(root, { prefix, objectLock: LOCK });
      const studio = await startStudio({ source, port: 0 });
      try {
        const res = await fetch(`${studio.url.split("?")[0]}api/load`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${studio.token}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({ from: Date.now() - 3 * HOUR, to: Date.now() }),
        });
        const load = (await res.json()) as LoadResponse;
        expect(res.status).toBe(200);
        expect(load.records).toHaveLength(10);
        expect(load.unverified.map((u) => [u.key, u.records])).toEqual([[obj.key, 5]]);
        expect(load.unverified[0]!.problems.join(" ")).toMatch(/no SHA-256 checksum.*not locked/);
        expect(load.stats.objectsUnverified).toBe(1);
      } finally {
        await studio.close();
        source.close();
      }
    } finally {
      root.close();
    }
  });

  it("issue 31 §2: doctor checks that versioning is on where Object Lock is configured", async () => {
    const lockBucket = await freshBucket("dver", { objectLock: true });
    const ok = config(lockBucket, uniquePrefix("dver"), { lock: true });
    const good = await cli(["doctor", "--config", ok.file], ok);
    expect(good.code, good.stdout).toBe(0);
    expect(good.stdout).toContain(`[OK]  Versioning (bucket ${lockBucket})`);
    const plain = await freshBucket("dplain");
    const bad = config(plain, uniquePrefix("dver"), { lock: true });
    const run = await cli(["doctor", "--config", bad.file], bad);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /\[FAIL\] Versioning \(bucket dplain-\w+\) -- capability missing: versioning is not enabled/,
    );
  });
});

describe("issue 31 §2: the writer policy", () => {
  function awsConfig(lock: boolean): { dir: string; file: string } {
    const dir = mkdtempSync(join(tmpdir(), "stowage-insider-aws-"));
    dirs.push(dir);
    const file = join(dir, "stowage.config.yaml");
    writeFileSync(
      file,
      [
        "destination: s3",
        "s3:",
        "  bucket: audit-logs",
        "  prefix: orders/production",
        "  region: eu-west-1",
        ...(lock ? LOCK_YAML : []),
        "",
      ].join("\n"),
    );
    return { dir, file };
  }

  it("issue 31 §2: on AWS, PutObject on log keys requires If-None-Match (s3:if-none-match) and nothing deletes under v1/", async () => {
    for (const lock of [false, true]) {
      const c = awsConfig(lock);
      const policy = await policyOf(c, "writer");
      const puts = policy.Statement.filter((s) => s.Action.includes("s3:PutObject"));
      expect(puts).toHaveLength(1);
      expect(puts[0]!.Resource).toContain("arn:aws:s3:::audit-logs/orders/production/v1/*");
      expect(puts[0]!.Condition).toEqual({ Null: { "s3:if-none-match": ["false"] } });
      for (const s of policy.Statement)
        if (s.Action.some((a) => /^s3:Delete/.test(a)))
          expect(
            s.Resource.every((r) => r.includes("/.stowage-doctor/")),
            s.Sid,
          ).toBe(true);
      if (lock)
        expect(policy.Statement.flatMap((s) => s.Action)).toContain("s3:GetBucketVersioning");
      const reader = await policyOf(c, "reader");
      expect(reader.Statement[0]!.Action).toEqual(["s3:ListBucket", "s3:ListBucketVersions"]);
    }
  });

  it("issue 31 §2: MinIO refuses a policy naming s3:if-none-match, so for a MinIO endpoint the condition is left out and said so", async () => {
    const c = awsConfig(true);
    const aws = await policyOf(c, "writer");
    const refused = await tryAssumeRole(aws);
    expect(refused).toMatchObject({ refused: expect.stringMatching(/if-none-match/) });
    const m = config(minio().bucket, uniquePrefix("pmin"), { lock: true });
    const text = await cli(["policy", "--config", m.file, "--role", "writer"], m);
    expect(text.code).toBe(0);
    expect(text.stdout).not.toContain("if-none-match");
    expect(text.stderr).toContain(
      `# Note: PutObject on log keys is not conditioned on s3:if-none-match for ${minio().endpoint}: AWS S3 enforces that condition, MinIO refuses a policy naming it`,
    );
  });
});

function sourceFlags(endpoint = minio().endpoint): string[] {
  return [
    "--endpoint",
    endpoint,
    "--region",
    minio().region,
    "--force-path-style",
    "--access-key-env",
    "STOWAGE_TEST_AK",
    "--secret-key-env",
    "STOWAGE_TEST_SK",
  ];
}
