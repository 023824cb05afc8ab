/**
 * Issue 32 §1: `stowage policy --role compactor` checked for real — MinIO's STS grants
 * credentials limited to exactly the printed policy, `stowage compact` runs with them and
 * compacts every record once, and those credentials can neither write nor delete under v1/.
 */
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/index.js";
import { ch, s3Args } from "./support/clickhouse.js";
import { runStowage } from "./support/cli.js";
import { s3Config } from "./support/loggers.js";
import { minio, minioStore, uniquePrefix } from "./support/minio.js";
import { listAll } from "./support/read-back.js";
import { assumeRole } from "./support/sts.js";
import { s3YamlConfig } from "./support/yaml-config.js";

const DAY = Date.UTC(2026, 10, 3);
const H = 3_600_000;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A project whose config takes an STS session from AK/SK/ST (the role under test). */
function project(prefix: string): { dir: string; file: string } {
  const c = s3YamlConfig({
    prefix,
    accessKeyEnv: "AK",
    secretKeyEnv: "SK",
    extra: ["  session_token_env: ST"],
  });
  dirs.push(c.dir);
  return { dir: c.dir, file: c.file };
}

describe("§1 the compactor role", () => {
  it("§1 stowage compact runs with exactly the printed policy; those credentials cannot touch v1/", async () => {
    const prefix = uniquePrefix("compact-role");
    const log = createLogger({ ...s3Config(prefix, { maxBatchRecords: 200 }), service: "api" });
    for (let id = 0; id < 1500; id++)
      await log.write({
        timestamp: new Date(DAY + 7 * H + id * 4000).toISOString(),
        level: "info",
        message: `m${id}`,
        data: { id },
      });
    expect((await log.close()).ok).toBe(true);
    const { dir, file } = project(prefix);
    const printed = await runStowage(
      ["policy", "--config", file, "--role", "compactor", "--json"],
      { cwd: dir, env: { AK: "x", SK: "y", ST: "z" } },
    );
    expect(printed.code, printed.stderr).toBe(0);
    const policy = JSON.parse(printed.stdout) as {
      Statement: { Sid: string; Action: string[]; Resource: string[] }[];
    };
    const bucket = minio().bucket;
    expect(policy.Statement.map((s) => [s.Sid, s.Action])).toEqual([
      ["StowageCompactList", ["s3:ListBucket"]],
      ["StowageCompactRead", ["s3:GetObject"]],
      ["StowageCompactState", ["s3:PutObject"]],
      ["StowageCompactParts", ["s3:PutObject", "s3:AbortMultipartUpload"]],
      ["StowageCompactAbandon", ["s3:DeleteObject"]],
    ]);
    expect(policy.Statement[2]!.Resource).toEqual([
      `arn:aws:s3:::${bucket}/${prefix}/parquet/_stowage/*`,
    ]);
    const creds = await assumeRole(policy);
    const env = { AK: creds.AK, SK: creds.SK, ST: creds.ST };
    const run = await runStowage(
      [
        "compact",
        "--config",
        file,
        "--from",
        new Date(DAY).toISOString(),
        "--to",
        new Date(DAY + 24 * H).toISOString(),
        "--settle",
        "0",
        "--json",
      ],
      { cwd: dir, env },
    );
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const summary = JSON.parse(run.stdout) as {
      ok: boolean;
      totals: { rows: number; hours: number };
    };
    expect(summary.totals).toMatchObject({ rows: 1500, hours: 2 });
    const ids = await ch<{ n: number; ids: number }>(
      `SELECT count() AS n, uniqExact(JSONExtractInt(toJSONString(data), 'id')) AS ids FROM s3(${s3Args(`${prefix}/parquet/dt=*/hour=*/*.parquet`)}, 'Parquet')`,
    );
    expect(ids.rows).toEqual([{ n: 1500, ids: 1500 }]);
    // The compactor's credentials: no write, no delete under v1/.
    const limited = minioStore({
      maxAttempts: 1,
      credentials: { accessKeyId: creds.AK, secretAccessKey: creds.SK, sessionToken: creds.ST },
    });
    try {
      const v1 = (await listAll(minioStore(), `${prefix}/v1/`))[0]!;
      await expect(limited.put(`${prefix}/v1/2026/11/03/07/forged.ndjson.gz`, "x")).rejects.toThrow(
        /denied/i,
      );
      await expect(limited.delete(v1)).rejects.toThrow(/denied/i);
      await expect(limited.get(v1)).resolves.toBeTruthy();
    } finally {
      limited.close();
    }
  }, 120_000);
});
