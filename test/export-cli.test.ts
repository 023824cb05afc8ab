/**
 * `stowage run` / `stowage validate` as a user runs them (SPEC §7, §8): a real
 * child process against real PostgreSQL/MariaDB and MinIO — the JSON summary,
 * exit codes, bad input, a source lost mid-stream, and a SIGKILL mid-upload.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { run as runCli } from "../src/cli/main.js";
import { isStowageError } from "../src/shared/errors.js";
import type { S3Store } from "../src/store/s3-store.js";
import { minio, uniquePrefix, minioStore } from "./support/minio.js";
import { PG_URL, pgExec } from "./support/pg.js";
import { MYSQL_URL, mysqlExec } from "./support/mysql.js";

const BIN = join(import.meta.dirname, "..", "bin", "stowage.js");
let dir: string;
let store: S3Store;

interface Done {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const m = minio();
  return {
    ...process.env,
    MINIO_ENDPOINT: m.endpoint,
    MINIO_KEY: m.accessKeyId,
    MINIO_SECRET: m.secretAccessKey,
    DATABASE_URL: PG_URL,
    ...extra,
  };
}

function start(
  args: string[],
  env: NodeJS.ProcessEnv = cliEnv(),
): { child: ChildProcess; done: Promise<Done> } {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Done>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

const cli = (args: string[], env?: NodeJS.ProcessEnv) => start(args, env).done;

/** Writes an export YAML whose destination is the test MinIO under `prefix`. */
function yaml(
  name: string,
  body: string,
  prefix: string,
  sourceType = "postgres",
  urlEnv = "DATABASE_URL",
): string {
  const file = join(dir, `${name}-${randomBytes(3).toString("hex")}.yaml`);
  writeFileSync(
    file,
    `source:
  type: ${sourceType}
  url_env: ${urlEnv}
exports:
  - name: ${name}
${body.replace(/^/gm, "    ").trimEnd()}
    destination:
      type: s3
      bucket: ${minio().bucket}
      prefix: ${prefix}/
      endpoint: \${MINIO_ENDPOINT}
      region: us-east-1
      force_path_style: true
      access_key_env: MINIO_KEY
      secret_key_env: MINIO_SECRET
tuning:
  batch_size: 5000
  part_size: 5MiB
  queue_size: 1
`,
  );
  return file;
}

async function exists(key: string): Promise<boolean> {
  try {
    await store.head(key);
    return true;
  } catch (err) {
    if (isStowageError(err, "not-found")) return false;
    throw err;
  }
}

async function waitFor(cond: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** ~70 MB of CSV that streams with pauses (pg_sleep every 60k rows), so a run lasts a few seconds. */
const SLOW_QUERY =
  "SELECT g AS id, repeat(md5(g::text), 3) AS payload, CASE WHEN g % 60000 = 0 THEN pg_sleep(0.3) END AS pause FROM generate_series(1, 600000) g";

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "stowage-export-cli-"));
  store = minioStore();
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("stowage run / validate", () => {
  it("§7.2 run --json commits and validate exits 0; a missing _SUCCESS makes validate exit 3", async () => {
    const prefix = uniquePrefix("cli-ok");
    const file = yaml(
      "daily",
      "query: SELECT g AS id, g * 2 AS twice FROM generate_series(1, 2500) g\nformat: csv\ncompression: gzip",
      prefix,
    );
    const run = await cli(["run", "--config", file, "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as {
      ok: boolean;
      exports: { export: string; rows: number; parts: number; manifest: string }[];
    };
    expect(summary).toMatchObject({
      ok: true,
      exports: [
        { export: "daily", ok: true, rows: 2500, parts: 1, manifest: `${prefix}/manifest.json` },
      ],
    });
    expect(run.stdout + run.stderr).not.toContain(minio().secretAccessKey);
    const ok = await cli(["validate", "--config", file, "--depth", "full"]);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^\[OK\] {2}daily: run \w{26}, 1 object\(s\), 2,500 rows/);
    await store.delete(`${prefix}/_SUCCESS`);
    const bad = await cli(["validate", "--config", file, "--json"]);
    expect(bad.code).toBe(3);
    expect(JSON.parse(bad.stdout)).toMatchObject({
      ok: false,
      exports: [{ export: "daily", status: "incomplete" }],
    });
  });

  it("§7.2 kill -9 mid-upload: no _SUCCESS, validate exits 3, the next run aborts the dangling upload and succeeds", async () => {
    const prefix = uniquePrefix("cli-crash");
    const file = yaml("crashy", `query: ${SLOW_QUERY}\nformat: csv`, prefix);
    const first = await cli(["run", "--config", file]);
    expect(first.code, first.stderr).toBe(0);
    expect(await exists(`${prefix}/_SUCCESS`)).toBe(true);

    const { child, done } = start(["run", "--config", file]);
    await waitFor(
      async () => (await store.listMultipartUploads(`${prefix}/`)).length > 0,
      "a multipart upload to start",
    );
    child.kill("SIGKILL");
    expect((await done).code).toBeNull();
    const dangling = await store.listMultipartUploads(`${prefix}/`);
    expect(dangling.length).toBeGreaterThan(0);
    expect(await exists(`${prefix}/_SUCCESS`)).toBe(false); // the stale marker went first

    const check = await cli(["validate", "--config", file]);
    expect(check.code).toBe(3);
    expect(check.stdout).toMatch(/\[FAIL\] crashy -- incomplete: no _SUCCESS/);

    const rerun = await cli(["run", "--config", file, "--json"]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(JSON.parse(rerun.stdout).exports[0].aborted_uploads).toBe(dangling.length);
    expect(await store.listMultipartUploads(`${prefix}/`)).toEqual([]);
    expect((await cli(["validate", "--config", file, "--depth", "full"])).code).toBe(0);
  });

  it("§7.1 an unknown key is a config error naming the closest key (exit 2)", async () => {
    const file = yaml("typo", "query: SELECT 1\nformt: csv", uniquePrefix("cli-typo"));
    const r = await cli(["run", "--config", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown key `formt`");
    expect(r.stderr).toContain("did you mean `format`?");
  });

  it("§7.1 a missing url_env variable is named, exit 2, and ${VAR} in the destination likewise", async () => {
    const file = yaml(
      "noenv",
      "query: SELECT 1",
      uniquePrefix("cli-env"),
      "postgres",
      "STOWAGE_TEST_NO_SUCH_URL",
    );
    const r = await cli(["run", "--config", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the environment variable STOWAGE_TEST_NO_SUCH_URL is not set");
    const env = cliEnv();
    delete env.MINIO_ENDPOINT;
    const r2 = await cli(
      ["run", "--config", yaml("noenv2", "query: SELECT 1", uniquePrefix("cli-env"))],
      env,
    );
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain("the environment variable MINIO_ENDPOINT is not set");
  });

  it("§8 a query error from the database is a clear failure (exit 1), nothing committed", async () => {
    const prefix = uniquePrefix("cli-qerr");
    const r = await cli([
      "run",
      "--config",
      yaml("broken", "table: stowage_no_such_table_x", prefix),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'export "broken": PostgreSQL failed while running the query: relation "stowage_no_such_table_x" does not exist (42P01)',
    );
    expect(await exists(`${prefix}/_SUCCESS`)).toBe(false);
    expect(await exists(`${prefix}/manifest.json`)).toBe(false);
  });

  it("§8 PostgreSQL terminated mid-stream: clear error, exit 1, uploads aborted, no _SUCCESS", async () => {
    const prefix = uniquePrefix("cli-pgkill");
    const app = `stowage_kill_${randomBytes(4).toString("hex")}`;
    const file = yaml("lost", `query: ${SLOW_QUERY}\nformat: csv`, prefix);
    const { done } = start(
      ["run", "--config", file],
      cliEnv({ DATABASE_URL: `${PG_URL}?application_name=${app}` }),
    );
    await waitFor(
      async () => (await store.listMultipartUploads(`${prefix}/`)).length > 0,
      "the export to be uploading",
    );
    const killed = await pgExec<{ ok: boolean }>(
      "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1",
      [app],
    );
    expect(killed).toEqual([{ ok: true }]);
    const r = await done;
    expect(r.code).toBe(1);
    // The server's goodbye and the socket's failure race: whichever the driver reports
    // first is the cause, and either way the message says the connection was lost.
    expect(r.stderr).toMatch(
      /export "lost": the PostgreSQL connection was lost while reading rows: (terminating connection due to administrator command|write EPIPE|read ECONNRESET|Connection terminated)/,
    );
    expect(r.stderr).toContain("re-run the export (nothing was committed)");
    expect(await store.listMultipartUploads(`${prefix}/`)).toEqual([]);
    expect(await exists(`${prefix}/_SUCCESS`)).toBe(false);
    const listed = await store.list({ prefix: `${prefix}/` });
    expect(listed.entries).toEqual([]); // no completed object left behind either
  });

  it("§8 MariaDB connection killed mid-stream: clear error, exit 1, uploads aborted", async () => {
    const prefix = uniquePrefix("cli-mykill");
    const query =
      "SELECT seq AS id, REPEAT(MD5(seq), 3) AS payload, IF(seq % 60000 = 0, SLEEP(0.3), 0) AS pause FROM seq_1_to_600000";
    const file = yaml("lostmy", `query: ${query}\nformat: csv`, prefix, "mysql", "MY_URL");
    const { done } = start(["run", "--config", file], cliEnv({ MY_URL: MYSQL_URL }));
    await waitFor(
      async () => (await store.listMultipartUploads(`${prefix}/`)).length > 0,
      "the export to be uploading",
    );
    const procs = (await mysqlExec(
      "SELECT ID AS id FROM information_schema.PROCESSLIST WHERE INFO LIKE '%seq_1_to_600000%' AND INFO NOT LIKE '%PROCESSLIST%'",
    )) as { id: number }[];
    expect(procs.length).toBe(1);
    await mysqlExec(`KILL ${procs[0]!.id}`);
    const r = await done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /export "lostmy": the MySQL connection was lost while reading rows|export "lostmy": MySQL failed while reading rows: .*(interrupted|killed)/i,
    );
    expect(await store.listMultipartUploads(`${prefix}/`)).toEqual([]);
    expect(await exists(`${prefix}/_SUCCESS`)).toBe(false);
  });

  it("§2.5 doctor --config export.yaml adds Source auth (Postgres) / (MySQL) with a category on failure", async () => {
    const ok = await cli([
      "doctor",
      "--config",
      yaml("doc", "table: t", uniquePrefix("cli-doctor")),
    ]);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain("[OK]  Source auth (Postgres)");
    expect(ok.stdout).toContain(`[OK]  Destination S3(${minio().bucket})`);
    const file = yaml("doc2", "table: t", uniquePrefix("cli-doctor"), "mysql", "MY_URL");
    const bad = await cli(
      ["doctor", "--config", file, "--json"],
      cliEnv({ MY_URL: "mysql://stowage_no_such_user:pw@127.0.0.1:3306/test" }),
    );
    expect(bad.code).toBe(1);
    const check = (
      JSON.parse(bad.stdout) as {
        checks: { name: string; ok: boolean; category?: string; detail?: string }[];
      }
    ).checks.find((c) => c.name === "Source auth (MySQL)");
    expect(check).toMatchObject({ ok: false, category: "auth error" });
    expect(check!.detail).toContain("Access denied");
    expect(bad.stdout).not.toContain(":pw@");
  });

  it("§7.2 SIGINT mid-run: exit 1, the run says it was interrupted, nothing committed or left uploading", async () => {
    const prefix = uniquePrefix("cli-sigint");
    const { child, done } = start([
      "run",
      "--config",
      yaml("stopped", `query: ${SLOW_QUERY}\nformat: csv`, prefix),
    ]);
    await waitFor(
      async () => (await store.listMultipartUploads(`${prefix}/`)).length > 0,
      "the export to be uploading",
    );
    child.kill("SIGINT");
    const r = await done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      '[FAIL] export "stopped": interrupted by SIGINT; its open uploads were aborted and nothing was committed',
    );
    expect(await store.listMultipartUploads(`${prefix}/`)).toEqual([]);
    expect((await store.list({ prefix: `${prefix}/` })).entries).toEqual([]);
  });

  it("§7.2 on a TTY a progress line shows rows, bytes, rate and parts; the result line names the run", async () => {
    const file = join(dir, "progress.yaml");
    writeFileSync(
      file,
      `source:\n  type: postgres\n  url_env: DATABASE_URL\nexports:\n  - name: progress\n    query: SELECT g AS id FROM generate_series(1, 30000) g\n    format: ndjson\n    destination:\n      type: local\n      path: ${join(dir, "progress-store")}\ntuning:\n  batch_size: 1000\n`,
    );
    let out = "";
    let err = "";
    const io = {
      out: (t: string) => void (out += t),
      err: (t: string) => void (err += t),
      isTTY: true,
      env: cliEnv(),
      cwd: dir,
    };
    const code = await runCli(["node", "stowage", "run", "--config", file], io);
    expect(code, err).toBe(0);
    expect(err).toMatch(
      /\r\x1b\[2Kprogress {2}[\d,]+ rows {2}[\d.]+ (B|KiB|MiB) {2}[\d,]+ rows\/s {2}\d+ parts {2}\d+s/,
    );
    expect(out).toMatch(/^\[OK\] {2}progress: 30,000 rows in 1 object, .* \(run \w{26}\)\n$/);
  });
});
