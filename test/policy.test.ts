// `stowage policy` (SPEC §1) checked for real: MinIO's STS AssumeRole grants temporary credentials
// limited by exactly the printed policy, and `stowage doctor` runs with them.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { minio, uniquePrefix, minioStore } from "./support/minio.js";
import { assumeRole } from "./support/sts.js";
import { runStowage, type CliRun } from "./support/cli.js";
import { createTable, exportEnv, exportYaml, listAll } from "./support/export-project.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function stowage(args: string[], env: Record<string, string>, cwd: string): Promise<CliRun> {
  return runStowage(args, { env, cwd });
}

function project(prefix: string): { dir: string; file: string } {
  const m = minio();
  const dir = mkdtempSync(join(tmpdir(), "stowage-policy-"));
  dirs.push(dir);
  const file = join(dir, "stowage.config.yaml");
  writeFileSync(
    file,
    [
      "destination: s3",
      "s3:",
      `  bucket: ${m.bucket}`,
      `  prefix: ${prefix}`,
      `  region: ${m.region}`,
      `  endpoint: ${m.endpoint}`,
      "  force_path_style: true",
      "  access_key_env: AK",
      "  secret_key_env: SK",
      "  session_token_env: ST",
    ].join("\n"),
  );
  return { dir, file };
}

interface Policy {
  Version: string;
  Statement: { Sid: string; Action: string[]; Resource: string[]; Condition?: unknown }[];
}

async function policyFor(
  file: string,
  dir: string,
  role: "writer" | "reader",
  env: Record<string, string> = {},
): Promise<Policy> {
  const run = await stowage(["policy", "--config", file, "--role", role, "--json"], env, dir);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Policy;
}

describe("§1 stowage policy", () => {
  it("§1 writer and reader statements name exact actions on exact resources", async () => {
    const { dir, file } = project("orders/production");
    const bucket = minio().bucket;
    const writer = await policyFor(file, dir, "writer");
    expect(writer.Version).toBe("2012-10-17");
    expect(writer.Statement.map((s) => [s.Sid, s.Action])).toEqual([
      ["StowageWrite", ["s3:PutObject"]],
      ["StowageConfirm", ["s3:GetObject"]],
      ["StowageList", ["s3:ListBucket"]],
      ["StowageDoctorCleanup", ["s3:DeleteObject"]],
    ]);
    expect(writer.Statement[0]!.Resource).toEqual([
      `arn:aws:s3:::${bucket}/orders/production/v1/*`,
      `arn:aws:s3:::${bucket}/orders/production/.stowage-doctor/*`,
    ]);
    expect(writer.Statement[3]!.Resource).toEqual([
      `arn:aws:s3:::${bucket}/orders/production/.stowage-doctor/*`,
    ]);
    const reader = await policyFor(file, dir, "reader");
    expect(reader.Statement).toEqual([
      {
        Sid: "StowageList",
        Effect: "Allow",
        Action: ["s3:ListBucket", "s3:ListBucketVersions"], // versions: stowage verify (issue 31 §2)
        Resource: [`arn:aws:s3:::${bucket}`],
        Condition: { StringLike: { "s3:prefix": ["orders/production/v1/*"] } },
      },
      {
        Sid: "StowageRead",
        Effect: "Allow",
        Action: ["s3:GetObject"],
        Resource: [`arn:aws:s3:::${bucket}/orders/production/v1/*`],
      },
    ]);
    const text = await stowage(["policy", "--config", file, "--role", "writer"], {}, dir);
    expect(text.stderr).toMatch(/^# Least-privilege IAM policy, role writer, for s3:\/\//);
    expect(text.stderr).toContain("#   StowageDoctorCleanup: ");
    expect(JSON.parse(text.stdout)).toMatchObject({ Version: "2012-10-17" }); // stdout is pure JSON
    expect((await stowage(["policy", "--config", file, "--role", "admin"], {}, dir)).code).toBe(2);
  });

  it("§2.5 doctor passes with credentials limited to exactly the writer policy (session token via session_token_env)", async () => {
    const prefix = uniquePrefix("policy-writer");
    const { dir, file } = project(prefix);
    const creds = await assumeRole(await policyFor(file, dir, "writer"));
    const run = await stowage(["doctor", "--config", file], creds, dir);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain("[OK]  Credentials (environment variables AK, SK, ST)");
    expect(run.stdout).toContain("All checks passed.");
    expect(run.stdout + run.stderr).not.toContain(creds.SK);
    expect(run.stdout + run.stderr).not.toContain(creds.ST);
  });

  it("§2.5 with the reader policy the write probe fails as an auth error naming the action and resource", async () => {
    const prefix = uniquePrefix("policy-reader");
    const { dir, file } = project(prefix);
    const creds = await assumeRole(await policyFor(file, dir, "reader"));
    const run = await stowage(["doctor", "--config", file, "--json"], creds, dir);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as {
      checks: { name: string; ok: boolean; category?: string; hint?: string }[];
    };
    const write = report.checks.find((c) => c.name.startsWith("Write probe"));
    expect(write).toMatchObject({ ok: false, category: "auth error" });
    expect(write?.hint).toContain(`s3:PutObject on arn:aws:s3:::${minio().bucket}/${prefix}/*`);
    expect(write?.hint).toContain("stowage policy");
  });

  it("§2.5 a role that may not delete: cleanup fails and names the leftover probe keys", async () => {
    const prefix = uniquePrefix("policy-nodelete");
    const { dir, file } = project(prefix);
    const writer = await policyFor(file, dir, "writer");
    const creds = await assumeRole({
      ...writer,
      Statement: writer.Statement.filter((s) => s.Sid !== "StowageDoctorCleanup"),
    });
    const run = await stowage(["doctor", "--config", file], creds, dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /\[FAIL\] Cleanup \(DeleteObject\) -- auth error: could not delete the probe; left behind: /,
    );
    const store = minioStore();
    try {
      const left = (await store.list({ prefix: `${prefix}/.stowage-doctor/` })).entries.map(
        (e) => e.key,
      );
      expect(left).toHaveLength(2);
      for (const k of left) expect(run.stdout).toContain(k);
      for (const k of left) await store.delete(k);
    } finally {
      store.close();
    }
  });
});

describe("stowage policy for an export with {date}", () => {
  it("an STS session limited to exactly the writer policy: doctor, run, incremental run, a failing run's cleanup, --cleanup and validate succeed", async () => {
    const table = await createTable("postgres", 20_000);
    const root = uniquePrefix("policy-export");
    const dir = mkdtempSync(join(tmpdir(), "stowage-policy-export-"));
    dirs.push(dir);
    const prefix = `${root}/{export}/{date}`;
    const file = exportYaml(
      dir,
      table,
      "mode: incremental\ncursor_column: id\nformat: csv",
      prefix,
    );
    const failing = exportYaml(
      dir,
      table,
      `query: SELECT id, v, 1 / (CASE WHEN id = 15000 THEN 0 ELSE 1 END) AS boom FROM "${table.name}"\nformat: csv\nmax_file_size: 16KB`,
      prefix,
    );
    const store = minioStore();
    try {
      const writer = await policyFor(file, dir, "writer", exportEnv(minio().endpoint));
      const text = JSON.stringify(writer.Statement);
      expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}/); // no date baked in
      expect(text).toContain(`${root}/orders/*/*`);
      expect(text).toContain(`${root}/orders/_cursor-orders.json`);
      const cleanup = writer.Statement.find(
        (s) => s.Action.includes("s3:DeleteObject") && s.Sid.startsWith("StowageExportCleanup"),
      );
      expect(cleanup?.Resource).toContain(`arn:aws:s3:::${minio().bucket}/${root}/orders/*/*`);

      const creds = await assumeRole(writer);
      const env = exportEnv(minio().endpoint, table.url, creds);
      const yamlCreds = (f: string) =>
        writeFileSync(
          f,
          readFileSync(f, "utf8").replace(
            "secret_key_env: SK",
            "secret_key_env: SK\n      session_token_env: ST",
          ),
        );
      yamlCreds(file);
      yamlCreds(failing);
      const doctor = await stowage(["doctor", "--config", file], env, dir);
      expect(doctor.code, doctor.stdout).toBe(0);
      const first = await stowage(["run", "--config", file], env, dir);
      expect(first.code, first.stderr).toBe(0);
      await table.insert(20_001, 20_100);
      const second = await stowage(["run", "--config", file, "--json"], env, dir);
      expect(second.code, second.stderr).toBe(0);
      expect(JSON.parse(second.stdout)).toMatchObject({ exports: [{ rows: 100 }] });

      const day = new Date().toISOString().slice(0, 10);
      const folder = `${root}/orders/${day}`;
      const before = await listAll(store, `${root}/`);
      const bad = await stowage(["run", "--config", failing], env, dir);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("division by zero");
      expect(await listAll(store, `${root}/`)).toEqual(before); // its parts and marker deleted, _SUCCESS back

      // Leftovers of a run that died without cleaning up: removed by --cleanup under the same session.
      const orphan = `${folder}/orders_20200101_000000_000.csv`;
      await store.put(orphan, "x\n");
      await store.put(
        `${root}/orders/_inprogress-orders-01HZZZZZZZZZZZZZZZZZZZZZZZ.json`,
        JSON.stringify({
          version: 1,
          export: "orders",
          run_id: "01HZZZZZZZZZZZZZZZZZZZZZZZ",
          mode: "full",
          prefix: folder,
          started_at: "2020-01-01T00:00:00Z",
          keys: [orphan],
        }),
      );
      const clean = await stowage(
        ["run", "--config", file, "--cleanup"],
        exportEnv(minio().endpoint, undefined, creds),
        dir,
      );
      expect(clean.code, clean.stderr).toBe(0);
      expect(await listAll(store, `${root}/`)).toEqual(before);

      const v = await stowage(
        ["validate", "--config", file, "--depth", "full"],
        exportEnv(minio().endpoint, undefined, creds),
        dir,
      );
      expect(v.code, v.stdout + v.stderr).toBe(0);
    } finally {
      store.close();
      await table.drop();
    }
  });
});
