/**
 * The CLI's commands run in-process through `run(argv, io)`: the same code paths
 * as the child-process CLI tests, against real MinIO, PostgreSQL and local stores, so their
 * coverage is measured. Each case asserts the exit code and what was printed or stored.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { s3YamlConfig } from "./support/yaml-config.js";
import { run } from "../src/cli/main.js";
import type { CliIo } from "../src/cli/io.js";
import { LocalStore } from "../src/store/local-store.js";
import { SqliteSpool } from "../src/spool/sqlite-spool.js";
import { buildBatch } from "../src/spool/spool.contract.js";
import { freshBucket, minio, minioStore, uniquePrefix } from "./support/minio.js";
import { PutBucketLifecycleConfigurationCommand, type LifecycleRule } from "@aws-sdk/client-s3";
import { readBack } from "./support/read-back.js";
import { spreadRecords, writeV1 } from "./reader-fixtures.js";
import {
  createTable,
  exportEnv,
  exportYaml,
  listAll,
  type TestTable,
} from "./support/export-project.js";

const dirs: string[] = [];
const H1 = 3_600_000;
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = (name: string) => {
  const d = mkdtempSync(join(tmpdir(), `stowage-inproc-${name}-`));
  dirs.push(d);
  return d;
};

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

/** `stowage <args>` in this process, with a capturing CliIo (no TTY, only `env`). */
async function cli(
  args: string[],
  opts: { env?: Record<string, string>; cwd?: string } = {},
): Promise<Captured> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    out: (t) => void (stdout += t),
    err: (t) => void (stderr += t),
    isTTY: false,
    env: { PATH: process.env.PATH ?? "", AWS_EC2_METADATA_DISABLED: "true", ...opts.env },
    cwd: opts.cwd ?? tempDir("cwd"),
  };
  const code = await run(["node", "stowage", ...args], io);
  return { code, stdout, stderr };
}

/** A logger config file for the run's MinIO under `prefix`, credentials from AK/SK. */
function s3Project(prefix: string): { dir: string; file: string; env: Record<string, string> } {
  const c = s3YamlConfig({ prefix, accessKeyEnv: "AK", secretKeyEnv: "SK" });
  dirs.push(c.dir);
  return c;
}

describe("--help of every command, in-process", () => {
  it.each([
    ["demo", "--no-studio"],
    ["doctor", "--source"],
    ["policy", "--role"],
    ["studio", "--port"],
    ["logs", "--grep"],
    ["spool", "status"],
    ["run", "--config"],
    ["validate", "--depth"],
    ["verify", "--depth"],
  ])("stowage %s --help exits 0 and lists its options", async (cmd, option) => {
    const r = await cli([cmd, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: stowage ${cmd}`);
    expect(r.stdout).toContain(option);
  });

  it("top-level --help names every command; an unknown command is a usage error (exit 2)", async () => {
    const help = await cli(["--help"]);
    expect(help.code).toBe(0);
    for (const c of [
      "demo",
      "doctor",
      "policy",
      "studio",
      "logs",
      "spool",
      "run",
      "validate",
      "verify",
    ])
      expect(help.stdout).toMatch(new RegExp(`\\n\\s+${c}\\b`));
    const bad = await cli(["frobnicate"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown command");
  });
});

describe("§6 demo in-process", () => {
  it("demo --no-studio writes the workload into the local store and the demo project files", async () => {
    const cwd = tempDir("demo");
    const r = await cli(["demo", "--no-studio", "--hours", "2", "--per-hour", "150"], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Wrote 301 records in \d+ objects/);
    const objects = await readBack(new LocalStore({ root: join(cwd, ".stowage/demo/store") }), "");
    expect(objects.flatMap((o) => o.lines)).toHaveLength(301);
  });

  it("demo rejects a non-numeric --hours with exit 2 and names the flag", async () => {
    const r = await cli(["demo", "--no-studio", "--hours", "many"], { cwd: tempDir("demo-bad") });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--hours");
  });
});

describe("§1 doctor and policy in-process against MinIO", () => {
  it("doctor passes on a reachable bucket with root credentials and cleans up its probe objects", async () => {
    const prefix = uniquePrefix("inproc-doctor");
    const p = s3Project(prefix);
    const r = await cli(["doctor", "--config", p.file, "--json"], { env: p.env, cwd: p.dir });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const report = JSON.parse(r.stdout) as { ok: boolean; checks: unknown[] };
    expect(report.ok).toBe(true);
    expect(report.checks.length).toBeGreaterThan(0);
    expect(await listAll(minioStore(), `${prefix}/.stowage-doctor/`)).toEqual([]);
    const human = await cli(["doctor", "--config", p.file], { env: p.env, cwd: p.dir });
    expect(human.code).toBe(0);
    expect(human.stdout.length).toBeGreaterThan(0);
  });

  it("doctor fails (exit 1) with wrong credentials and says so without printing the secret", async () => {
    const p = s3Project(uniquePrefix("inproc-doctor-bad"));
    const env = { AK: minio().accessKeyId, SK: "wrong-secret-value-123" };
    const r = await cli(["doctor", "--config", p.file], { env, cwd: p.dir });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toContain("wrong-secret-value-123");
  });

  it("doctor --source checks read access on an s3:// source", async () => {
    const m = minio();
    const r = await cli(
      [
        "doctor",
        "--source",
        `s3://${m.bucket}/${uniquePrefix("inproc-src")}`,
        "--endpoint",
        m.endpoint,
        "--region",
        m.region,
        "--force-path-style",
        "--access-key-env",
        "AK",
        "--secret-key-env",
        "SK",
        "--json",
      ],
      { env: { AK: m.accessKeyId, SK: m.secretAccessKey } },
    );
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect((JSON.parse(r.stdout) as { ok: boolean }).ok).toBe(true);
  });

  it("doctor without any config file checks the embedded default local store in the cwd", async () => {
    const cwd = tempDir("empty");
    const r = await cli(["doctor"], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("embedded default");
    expect(r.stdout).toContain(join(cwd, ".stowage/store"));
    expect(r.stdout).toContain("All checks passed.");
  });

  it("policy prints writer/reader statements on the configured prefix, and --lifecycle", async () => {
    const prefix = uniquePrefix("inproc-policy");
    const p = s3Project(prefix);
    const w = await cli(["policy", "--config", p.file, "--role", "writer", "--json"], {
      env: p.env,
      cwd: p.dir,
    });
    expect(w.code, w.stderr).toBe(0);
    const writer = JSON.parse(w.stdout) as {
      Statement: { Action: string[]; Resource: string[] }[];
    };
    expect(writer.Statement[0]!.Action).toEqual(["s3:PutObject"]);
    expect(writer.Statement[0]!.Resource[0]).toBe(`arn:aws:s3:::${minio().bucket}/${prefix}/v1/*`);
    const r = await cli(["policy", "--config", p.file, "--role", "reader"], {
      env: p.env,
      cwd: p.dir,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("s3:ListBucket");
    const bad = await cli(["policy", "--config", p.file, "--role", "admin"], {
      env: p.env,
      cwd: p.dir,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("admin");
  });
});

describe("§5.6 logs in-process", () => {
  const H = 3_600_000;
  const now = Date.now();
  let prefix: string;
  beforeAll(async () => {
    prefix = uniquePrefix("inproc-logs");
    const records = spreadRecords(now - 2 * H, now - H, 40);
    await writeV1(minioStore(), prefix, records, 10);
  });

  it("logs --json returns the stored records of the range, and --grep narrows them", async () => {
    const m = minio();
    const base = [
      "--source",
      `s3://${m.bucket}/${prefix}`,
      "--endpoint",
      m.endpoint,
      "--force-path-style",
      "--region",
      m.region,
      "--from",
      "3h",
      "--access-key-env",
      "AK",
      "--secret-key-env",
      "SK",
    ];
    const env = { AK: m.accessKeyId, SK: m.secretAccessKey };
    const all = await cli(["logs", ...base, "--json"], { env });
    expect(all.code, all.stderr).toBe(0);
    const lines = all.stdout.split("\n").filter(Boolean);
    expect(lines).toHaveLength(40);
    const one = JSON.parse(lines[7]!) as { message: string };
    const grep = await cli(["logs", ...base, "--json", "--grep", one.message], { env });
    expect(grep.code).toBe(0);
    const found = grep.stdout.split("\n").filter(Boolean);
    expect(found.length).toBeGreaterThanOrEqual(1);
    expect(found.length).toBeLessThan(40);
    const human = await cli(["logs", ...base], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(one.message);
  });

  it("logs on a local directory and a bad --from are handled (exit 0 / exit 2)", async () => {
    const root = tempDir("logs-local");
    await writeV1(new LocalStore({ root }), "app", spreadRecords(now - H, now - 60_000, 5), 5);
    const ok = await cli([
      "logs",
      "--source",
      pathToFileURL(join(root, "app")).href,
      "--from",
      "2h",
      "--json",
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.split("\n").filter(Boolean)).toHaveLength(5);
    const bad = await cli([
      "logs",
      "--source",
      pathToFileURL(join(root, "app")).href,
      "--from",
      "yesterday-ish",
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--from");
  });
});

describe("§4 spool status/retry in-process", () => {
  it("status reports a failed batch; retry re-arms it", async () => {
    const dir = tempDir("spool");
    const path = join(dir, "spool.db");
    const spool = SqliteSpool.open(path, { leaseMs: 1000 });
    const rs = [0, 1, 2].map((i) => ({
      line: `{"message":"f${i}"}`,
      timestampMs: Date.UTC(2026, 0, 1) + i,
    }));
    const ids = spool.append(rs);
    let id = "";
    spool.seal(ids, "own", (kept) => {
      const b = buildBatch(rs, kept);
      id = b.id;
      return b;
    });
    spool.complete([
      { id, ok: false, failure: { category: "auth", code: "AccessDenied", message: "denied" } },
    ]);
    spool.close();
    const st = await cli(["spool", "status", "--path", path, "--json"], { cwd: dir });
    expect(st.code).toBe(0);
    expect(JSON.parse(st.stdout)).toMatchObject({ failed: 1, failedRecords: 3 });
    const human = await cli(["spool", "status", "--path", path], { cwd: dir });
    expect(human.stdout).toContain("stowage spool retry");
    const retry = await cli(["spool", "retry", "--path", path], { cwd: dir });
    expect(retry.code, retry.stderr).toBe(0);
    const after = await cli(["spool", "status", "--path", path, "--json"], { cwd: dir });
    expect(JSON.parse(after.stdout)).toMatchObject({ failed: 0, pending: 1 });
  });
});

describe("§7 §8 run, validate, verify in-process against PostgreSQL and MinIO", () => {
  let table: TestTable;
  beforeAll(async () => {
    table = await createTable("postgres", 120);
  });
  afterAll(async () => table?.drop());

  it("run exports the table into the bucket; validate and verify pass on it", async () => {
    const prefix = uniquePrefix("inproc-run");
    const dir = tempDir("run");
    const file = exportYaml(
      dir,
      table,
      "mode: incremental\ncursor_column: id\nformat: csv",
      prefix,
    );
    const env = exportEnv(minio().endpoint, table.url);
    const r = await cli(["run", "--config", file, "--json"], { env, cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(r.stdout))).toContain("120");
    const keys = await listAll(minioStore(), `${prefix}/`);
    expect(keys.length).toBeGreaterThan(0);
    const v = await cli(["validate", "--config", file, "--depth", "full"], { env, cwd: dir });
    expect(v.code, v.stderr + v.stdout).toBe(0);
    const vj = await cli(["validate", "--config", file, "--json"], { env, cwd: dir });
    expect(vj.code).toBe(0);
    const ver = await cli(["verify", "--config", file, "--depth", "full"], { env, cwd: dir });
    expect([0, 1]).toContain(ver.code);
    expect(ver.stdout + ver.stderr).toMatch(/orders/);
  });

  it("run with a missing config file or a bad source URL fails with a clear message", async () => {
    const dir = tempDir("run-bad");
    const missing = await cli(["run", "--config", join(dir, "nope.yaml")], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.yaml");
    const file = exportYaml(
      dir,
      table,
      "mode: incremental\ncursor_column: id\nformat: csv",
      uniquePrefix("inproc-run-bad"),
    );
    const env = exportEnv(minio().endpoint, "postgres://nobody@127.0.0.1:1/none");
    const down = await cli(["run", "--config", file], { env, cwd: dir });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("ECONNREFUSED");
    expect(down.stderr).toContain("Hint:");
  });
});

describe("§1 §9 doctor diagnoses and verify on a logger prefix, in-process", () => {
  /** A logger config like s3Project's, on another bucket or endpoint. */
  function projectOn(bucket: string, endpoint: string): { dir: string; file: string } {
    const c = s3YamlConfig({
      prefix: "app",
      bucket,
      endpoint,
      accessKeyEnv: "AK",
      secretKeyEnv: "SK",
    });
    dirs.push(c.dir);
    return c;
  }
  const creds = () => ({ AK: minio().accessKeyId, SK: minio().secretAccessKey });

  it("doctor on a bucket that does not exist fails (exit 1) and names the bucket", async () => {
    const p = projectOn("no-such-bucket-c15", minio().endpoint);
    const r = await cli(["doctor", "--config", p.file, "--json"], { env: creds(), cwd: p.dir });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { ok: boolean; checks: { ok: boolean }[] };
    expect(report.ok).toBe(false);
    expect(r.stdout).toContain("no-such-bucket-c15");
  });

  it("doctor on an endpoint nothing listens on fails (exit 1) with a hint", async () => {
    const p = projectOn(minio().bucket, "http://127.0.0.1:1");
    const r = await cli(["doctor", "--config", p.file, "--timeout-ms", "2000"], {
      env: creds(),
      cwd: p.dir,
    });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/FAIL/);
  });

  it("verify passes on intact log objects (metadata and full) and rejects a bad --depth", async () => {
    const prefix = uniquePrefix("inproc-verify");
    const now = Date.now();
    await writeV1(minioStore(), prefix, spreadRecords(now - 90 * 60_000, now - 60_000, 30), 10);
    const p = s3Project(prefix);
    const meta = await cli(["verify", "--config", p.file, "--from", "3h", "--json"], {
      env: p.env,
      cwd: p.dir,
    });
    expect(meta.code, meta.stderr + meta.stdout).toBe(0);
    expect(meta.stdout).toMatch(/"ok":\s*true/);
    const full = await cli(["verify", "--config", p.file, "--from", "3h", "--depth", "full"], {
      env: p.env,
      cwd: p.dir,
    });
    expect(full.code, full.stderr + full.stdout).toBe(0);
    const objects = (await listAll(minioStore(), `${prefix}/v1/`)).length;
    expect(objects).toBeGreaterThanOrEqual(3);
    expect(full.stdout).toMatch(
      new RegExp(`: ${objects} objects in \\d+ hours checked at depth full`),
    );
    const bad = await cli(["verify", "--config", p.file, "--depth", "deep"], {
      env: p.env,
      cwd: p.dir,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--depth must be metadata or full");
  });

  it("logs --level and --limit narrow what is read", async () => {
    const root = tempDir("logs-filter");
    const now = Date.now();
    const recs = spreadRecords(now - 30 * 60_000, now - 60_000, 20, (i) => ({
      level: i % 4 === 0 ? "error" : "info",
    }));
    await writeV1(new LocalStore({ root }), "app", recs, 20);
    const src = pathToFileURL(join(root, "app")).href;
    const errors = await cli([
      "logs",
      "--source",
      src,
      "--from",
      "1h",
      "--level",
      "error",
      "--json",
    ]);
    expect(errors.code, errors.stderr).toBe(0);
    const got = errors.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: string });
    expect(got).toHaveLength(5);
    expect(got.every((r) => r.level === "error")).toBe(true);
    const badLimit = await cli(["logs", "--source", src, "--limit", "nonsense=1"]);
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toContain("nonsense");
  });
});

describe("§7 §8 export doctor and cleanup in-process", () => {
  let table: TestTable;
  beforeAll(async () => {
    table = await createTable("postgres", 10);
  });
  afterAll(async () => table?.drop());

  it("doctor on an export file checks source and destination (exit 0); run --cleanup on a clean prefix deletes nothing", async () => {
    const dir = tempDir("exp-doctor");
    const prefix = uniquePrefix("inproc-exp-doctor");
    const file = exportYaml(
      dir,
      table,
      "mode: incremental\ncursor_column: id\nformat: csv",
      prefix,
    );
    const env = exportEnv(minio().endpoint, table.url);
    const d = await cli(["doctor", "--config", file], { env, cwd: dir });
    expect(d.code, d.stderr + d.stdout).toBe(0);
    expect(d.stdout).toContain("All checks passed.");
    const c = await cli(["run", "--config", file, "--cleanup", "--json"], { env, cwd: dir });
    expect(c.code, c.stderr).toBe(0);
    expect(await listAll(minioStore(), `${prefix}/`)).toEqual([]);
    const down = await cli(["doctor", "--config", file], {
      env: exportEnv(minio().endpoint, "postgres://nobody@127.0.0.1:1/none"),
      cwd: dir,
    });
    expect(down.code).toBe(1);
    expect(down.stdout + down.stderr).toContain("ECONNREFUSED");
  });
});

/**
 * Starts a serving command (studio, demo with Studio) in-process, waits for its URL, and
 * returns a stop() that calls the SIGTERM listener the command registered (no real signal:
 * the test process's own handlers stay untouched).
 */
async function serving(args: string[], cwd: string, urlPattern: RegExp) {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    out: (t) => void (stdout += t),
    err: (t) => void (stderr += t),
    isTTY: false,
    env: { PATH: process.env.PATH ?? "", AWS_EC2_METADATA_DISABLED: "true" },
    cwd,
  };
  const beforeTerm = new Set(process.rawListeners("SIGTERM"));
  const beforeInt = new Set(process.rawListeners("SIGINT"));
  const done = run(["node", "stowage", ...args], io);
  let url: string | undefined;
  for (let i = 0; i < 600 && !url; i++) {
    url = urlPattern.exec(stdout)?.[1];
    if (!url) await new Promise((r) => setTimeout(r, 50));
  }
  if (!url) throw new Error(`no URL printed: ${stdout} ${stderr}`);
  const stop = async () => {
    for (let i = 0; i < 100 && process.rawListeners("SIGTERM").length === beforeTerm.size; i++)
      await new Promise((r) => setTimeout(r, 20));
    for (const l of process.rawListeners("SIGINT"))
      if (!beforeInt.has(l)) process.removeListener("SIGINT", l as () => void);
    const term = process.rawListeners("SIGTERM").filter((l) => !beforeTerm.has(l));
    expect(term).toHaveLength(1);
    (term[0] as () => void)();
    const code = await done;
    return { code, stdout, stderr };
  };
  return { url, stop };
}

/** GET /api/info with the URL's token as the bearer. */
async function apiInfo(url: string): Promise<{ status: number; json: unknown }> {
  const u = new URL(url);
  const res = await fetch(new URL("/api/info", u), {
    headers: { authorization: `Bearer ${u.searchParams.get("token")}` },
  });
  return { status: res.status, json: (await res.json()) as unknown };
}

describe("§5 §6 studio and demo serving, in-process", () => {
  it("studio --source file://… serves the page behind its token and stops cleanly", async () => {
    const root = tempDir("studio");
    const now = Date.now();
    await writeV1(new LocalStore({ root }), "app", spreadRecords(now - H1, now - 60_000, 5), 5);
    const s = await serving(
      ["studio", "--source", pathToFileURL(join(root, "app")).href, "--port", "0", "--no-open"],
      root,
      /(http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/,
    );
    const info = await apiInfo(s.url);
    expect(info.status).toBe(200);
    expect(info.json).toMatchObject({ source: pathToFileURL(join(root, "app")).href });
    const noToken = await fetch(new URL("/api/info", s.url));
    expect(noToken.status).toBe(401);
    const r = await s.stop();
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Stowage Studio");
    expect(r.stderr).toContain("Studio stopped.");
  });

  it("demo then serves Studio on its store and stops cleanly", async () => {
    const cwd = tempDir("demo-studio");
    const s = await serving(
      ["demo", "--no-open", "--port", "0", "--hours", "1", "--per-hour", "50"],
      cwd,
      /Studio: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32})/,
    );
    const info = await apiInfo(s.url);
    expect(info.status).toBe(200);
    expect(JSON.stringify(info.json)).toContain(join(cwd, ".stowage/demo/store"));
    const r = await s.stop();
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Wrote 51 records/);
  });
});

describe("lifecycle through doctor and policy, in-process", () => {
  it("doctor warns that nothing expires the logs; policy --lifecycle prints the rule; applied, doctor is quiet", async () => {
    const m = minio();
    const bucket = await freshBucket("inproc-life");
    const prefix = uniquePrefix("inproc-life");
    const dir = tempDir("life");
    const file = join(dir, "stowage.config.yaml");
    writeFileSync(
      file,
      [
        "destination: s3",
        "s3:",
        `  bucket: ${bucket}`,
        `  prefix: ${prefix}`,
        `  region: ${m.region}`,
        `  endpoint: ${m.endpoint}`,
        "  force_path_style: true",
        "  access_key_env: AK",
        "  secret_key_env: SK",
        "  lifecycle:",
        "    expire_days: 30",
      ].join("\n"),
    );
    const env = { AK: m.accessKeyId, SK: m.secretAccessKey };
    const before = await cli(["doctor", "--config", file], { env, cwd: dir });
    expect(before.code, before.stdout).toBe(0);
    expect(before.stdout).toMatch(/\[WARN\] Lifecycle rules -- no lifecycle rule expires objects/);
    const out = await cli(["policy", "--config", file, "--lifecycle"], { env, cwd: dir });
    expect(out.code, out.stderr).toBe(0);
    const lifecycle = JSON.parse(out.stdout) as { Rules: LifecycleRule[] };
    expect(lifecycle.Rules[0]!.Expiration).toEqual({ Days: 30 });
    const store = minioStore({ bucket });
    await store.client.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: bucket,
        LifecycleConfiguration: { Rules: lifecycle.Rules },
      }),
    );
    store.close();
    const after = await cli(["doctor", "--config", file], { env, cwd: dir });
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).not.toContain("[WARN] Lifecycle rules");
  });
});
