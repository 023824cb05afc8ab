// `stowage doctor` (SPEC §2.5) end to end: the real CLI binary against a real MinIO.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "./support/minio-server.js";
import { freshBucket, minio, uniquePrefix, minioStore } from "./support/minio.js";
import { runStowage, type CliRun } from "./support/cli.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

type Run = CliRun;

function stowage(args: string[], env: Record<string, string>, cwd: string): Promise<Run> {
  return runStowage(args, { env, cwd });
}

/** Writes a YAML config using MinIO credentials through access_key_env/secret_key_env. */
function yamlConfig(lines: string[]): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "stowage-doctor-"));
  dirs.push(dir);
  const file = join(dir, "stowage.config.yaml");
  writeFileSync(file, lines.join("\n") + "\n");
  return { dir, file };
}

function s3Yaml(o: {
  bucket?: string;
  endpoint?: string;
  prefix: string;
  extra?: string[];
}): string[] {
  const m = minio();
  return [
    "destination: s3",
    "s3:",
    `  bucket: ${o.bucket ?? m.bucket}`,
    `  prefix: ${o.prefix}`,
    `  region: ${m.region}`,
    `  endpoint: ${o.endpoint ?? m.endpoint}`,
    "  force_path_style: true",
    "  access_key_env: DOCTOR_AK",
    "  secret_key_env: DOCTOR_SK",
    ...(o.extra ?? []),
  ];
}

const goodEnv = () => ({ DOCTOR_AK: minio().accessKeyId, DOCTOR_SK: minio().secretAccessKey });
const noSecret = (run: Run, secret: string) => {
  expect(run.stdout).not.toContain(secret);
  expect(run.stderr).not.toContain(secret);
};

describe("§2.5 stowage doctor against MinIO", () => {
  it("§2.5 a healthy bucket: every check OK, exit 0, and no probe object left behind", async () => {
    const m = minio();
    const prefix = uniquePrefix("doctor-ok");
    const { dir, file } = yamlConfig(s3Yaml({ prefix: `/${prefix}/` }));
    const run = await stowage(["doctor", "--config", file], goodEnv(), dir);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`[OK]  Destination S3(${m.bucket})\n`);
    expect(run.stdout).toContain(
      "[OK]  Credentials (environment variables DOCTOR_AK, DOCTOR_SK)\n",
    );
    for (const name of [
      "Write probe",
      "Conditional create",
      "List (ListObjectsV2 ordered, paginated)",
      "HeadObject",
      "Conditional read",
      "Cleanup (DeleteObject)",
    ]) {
      expect(run.stdout).toContain(`[OK]  ${name}`);
    }
    expect(run.stdout.trimEnd().endsWith("All checks passed.")).toBe(true);
    noSecret(run, m.secretAccessKey);
    const store = minioStore();
    try {
      expect((await store.list({ prefix: `${prefix}/` })).entries).toEqual([]);
    } finally {
      store.close();
    }
  });

  it("§2.5 --json prints {ok, checks:[{name, ok, category?, detail?, hint?}]}", async () => {
    const { dir, file } = yamlConfig(s3Yaml({ prefix: uniquePrefix("doctor-json") }));
    const run = await stowage(["doctor", "--config", file, "--json"], goodEnv(), dir);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as {
      ok: boolean;
      checks: { name: string; ok: boolean }[];
    };
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.name)).toEqual([
      "Config (stowage.config.yaml)",
      "Credentials (environment variables DOCTOR_AK, DOCTOR_SK)",
      `Endpoint ${new URL(minio().endpoint).origin} (path-style)`,
      `Destination S3(${minio().bucket})`,
      "Write probe (PutObject If-None-Match: *)",
      "Conditional create (second PUT answers 412)",
      "List (ListObjectsV2 ordered, paginated)",
      "HeadObject",
      "Conditional read (GetObject If-Match)",
      "Lifecycle rules",
      "Cleanup (DeleteObject)",
    ]);
    for (const c of report.checks)
      expect(Object.keys(c).sort()).toEqual(
        // The test bucket has no lifecycle rules: a passing check with advice (docs/retention.md).
        c.name === "Lifecycle rules" ? ["hint", "name", "ok", "warning"] : ["name", "ok"],
      );
  });

  it("§2.5 a missing bucket: bucket not found, with the command that creates it; exit 1", async () => {
    const bucket = `missing-${uniquePrefix("b").slice(2).toLowerCase()}`;
    const { dir, file } = yamlConfig(s3Yaml({ bucket, prefix: "app" }));
    const run = await stowage(["doctor", "--config", file, "--json"], goodEnv(), dir);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as {
      ok: boolean;
      checks: { name: string; ok: boolean; category?: string; hint?: string }[];
    };
    expect(report.ok).toBe(false);
    const dest = report.checks.find((c) => c.name === `Destination S3(${bucket})`);
    expect(dest).toMatchObject({ ok: false, category: "bucket not found" });
    expect(dest?.hint).toContain(`s3 mb s3://${bucket}`);
    const text = await stowage(["doctor", "--config", file], goodEnv(), dir);
    expect(text.stdout).toContain(`[FAIL] Destination S3(${bucket}) -- bucket not found: `);
    expect(text.stdout).toMatch(
      /\n\s+Hint: .*aws --endpoint-url http:\/\/127\.0\.0\.1:\d+ s3 mb s3:\/\//,
    );
    expect(text.stdout.trimEnd().endsWith("1 check(s) failed.")).toBe(true);
  });

  it("§2.5 a wrong secret: auth error with the signature hint; the secret never appears", async () => {
    const wrong = "wrongSecretValue0123456789abcdefghij";
    const { dir, file } = yamlConfig(s3Yaml({ prefix: "app" }));
    const run = await stowage(
      ["doctor", "--config", file],
      { DOCTOR_AK: minio().accessKeyId, DOCTOR_SK: wrong },
      dir,
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /\[FAIL\] Destination S3\([^)]+\) -- auth error: SignatureDoesNotMatch/,
    );
    expect(run.stdout).toMatch(/Hint: .*region.*clock.*path-style/);
    noSecret(run, wrong);
    noSecret(run, minio().secretAccessKey);
  });

  it("§2.5 a closed port fails fast as a connectivity error", async () => {
    const port = await freePort();
    const { dir, file } = yamlConfig(
      s3Yaml({ prefix: "app", endpoint: `http://127.0.0.1:${port}` }),
    );
    const run = await stowage(["doctor", "--config", file, "--timeout-ms", "2000"], goodEnv(), dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/\[FAIL\] Destination S3\([^)]+\) -- connectivity error: /);
    expect(run.stdout).toContain(`could not reach http://127.0.0.1:${port}`);
  });

  it("§2.5 a missing *_env variable is a config error naming it; config errors name the key", async () => {
    const { dir, file } = yamlConfig(s3Yaml({ prefix: "app" }));
    const run = await stowage(
      ["doctor", "--config", file],
      { DOCTOR_AK: minio().accessKeyId },
      dir,
    );
    expect(run.code).toBe(2); // config errors exit 2
    expect(run.stdout).toContain(
      "[FAIL] Credentials (environment variables DOCTOR_AK, DOCTOR_SK) -- config error: the environment variable DOCTOR_SK",
    );
    noSecret(run, minio().accessKeyId);
    const typo = yamlConfig(["s3:", "  bukcet: logs"]);
    const bad = await stowage(["doctor", "--config", typo.file], {}, typo.dir);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toContain("[FAIL] Config (stowage.config.yaml) -- config error: ");
    expect(bad.stdout).toContain("unknown key `bukcet` in s3; did you mean `bucket`?");
  });

  it("§2.3 a foreign endpoint is refused at config load; doctor says why and how to trust it", async () => {
    const { dir, file } = yamlConfig(
      s3Yaml({ prefix: "app", endpoint: "https://minio.internal:9000" }),
    );
    const run = await stowage(["doctor", "--config", file], goodEnv(), dir);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain("[FAIL] Config (stowage.config.yaml) -- config error: ");
    expect(run.stdout).toContain("STOWAGE_TRUSTED_ENDPOINTS=minio.internal");
    expect(run.stdout).toContain("--trust-endpoint minio.internal");
  });

  it("§2.0 an export file: every export's destination is checked, labelled by export", async () => {
    const m = minio();
    const second = await freshBucket("doctor-exp");
    const base = uniquePrefix("doctor-export");
    const dest = (bucket: string, prefix: string) => [
      "    destination:",
      "      type: s3",
      `      bucket: ${bucket}`,
      `      prefix: ${prefix}`,
      `      endpoint: ${m.endpoint}`,
      "      force_path_style: true",
      "      access_key_env: DOCTOR_AK",
      "      secret_key_env: DOCTOR_SK",
    ];
    const { dir, file } = yamlConfig([
      "source:",
      "  type: postgres",
      "  url_env: DATABASE_URL",
      "exports:",
      "  - name: orders",
      "    table: orders",
      ...dest(m.bucket, `${base}/{export}/{date}/`),
      "  - name: users",
      "    table: users",
      ...dest(second, base),
    ]);
    // The export side's hook (export/doctor.js) also connects to the source database.
    const env = { ...goodEnv(), DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test" };
    const run = await stowage(["doctor", "--config", file], env, dir);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain(`[OK]  Destination S3(${m.bucket}) [orders]`);
    expect(run.stdout).toContain(`[OK]  Destination S3(${second}) [users]`);
    expect(run.stdout).toContain("[OK]  Write probe (PutObject) [users]");
    expect(run.stdout).toContain("[OK]  Source auth (Postgres)");
    expect(run.stdout).toContain("[OK]  Cleanup (DeleteObject) [users]");
    // Exports do not rely on conditional requests: capability probes only with --capabilities (§2.4).
    expect(run.stdout).not.toContain("Conditional create");
    const caps = await stowage(["doctor", "--config", file, "--capabilities"], env, dir);
    expect(caps.code, caps.stdout).toBe(0);
    expect(caps.stdout).toContain("[OK]  Conditional create (second PUT answers 412) [orders]");
    expect(caps.stdout).toContain("[OK]  List (ListObjectsV2 ordered, paginated) [users]");
  });

  it("§2.2 profile and default-chain sources work end to end", async () => {
    const m = minio();
    const { dir, file } = yamlConfig([
      "s3:",
      `  bucket: ${m.bucket}`,
      `  prefix: ${uniquePrefix("doctor-profile")}`,
      `  endpoint: ${m.endpoint}`,
      "  provider: minio",
      "  aws_profile: team",
    ]);
    mkdirSync(join(dir, ".aws"));
    writeFileSync(
      join(dir, ".aws", "credentials"),
      `[team]\naws_access_key_id = ${m.accessKeyId}\naws_secret_access_key = ${m.secretAccessKey}\n`,
    );
    const run = await stowage(["doctor", "--config", file], {}, dir); // HOME = dir
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain('[OK]  Credentials (AWS profile "team")');
    noSecret(run, m.secretAccessKey);
    const chain = yamlConfig([
      "s3:",
      `  bucket: ${m.bucket}`,
      `  prefix: ${uniquePrefix("doctor-chain")}`,
      `  endpoint: ${m.endpoint}`,
      "  provider: minio",
    ]);
    const env = { AWS_ACCESS_KEY_ID: m.accessKeyId, AWS_SECRET_ACCESS_KEY: m.secretAccessKey };
    const viaChain = await stowage(["doctor", "--config", chain.file], env, chain.dir);
    expect(viaChain.code, viaChain.stdout).toBe(0);
    expect(viaChain.stdout).toContain("[OK]  Credentials (AWS SDK default chain)");
    noSecret(viaChain, m.secretAccessKey);
  });

  it("§2.5 usage errors exit 2", async () => {
    const d = mkdtempSync(join(tmpdir(), "stowage-doctor-"));
    dirs.push(d);
    expect((await stowage(["doctor", "--config", "nope.yaml"], {}, d)).code).toBe(2);
    expect((await stowage(["doctor", "--bogus"], {}, d)).code).toBe(2);
  });
});
