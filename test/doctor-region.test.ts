// Doctor's region check (SPEC §2.5 item 3) against a MinIO that has a site region set, plus the
// extra-check hook and the local-directory destination.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDestination } from "../src/config/index.js";
import { formatReport, runDoctor } from "../src/doctor/index.js";
import { StowageError } from "../src/shared/errors.js";
import { findOrBuildMinio } from "./support/minio-binary.js";
import { createBuckets, freePort, type MinioInfo } from "./support/minio-server.js";

let child: ChildProcess | undefined;
let info: MinioInfo;
const dirs: string[] = [];

beforeAll(async () => {
  const data = mkdtempSync(join(tmpdir(), "stowage-minio-region-"));
  dirs.push(data);
  const port = await freePort();
  const accessKeyId = `r${randomBytes(6).toString("hex")}`;
  const secretAccessKey = randomBytes(20).toString("hex");
  child = spawn(
    findOrBuildMinio(),
    [
      "server",
      data,
      "--address",
      `127.0.0.1:${port}`,
      "--console-address",
      `127.0.0.1:${await freePort()}`,
      "--quiet",
    ],
    {
      env: {
        ...process.env,
        MINIO_ROOT_USER: accessKeyId,
        MINIO_ROOT_PASSWORD: secretAccessKey,
        MINIO_SITE_REGION: "eu-central-1",
        MINIO_BROWSER: "off",
        MINIO_UPDATE: "off",
      },
      stdio: "ignore",
    },
  );
  const endpoint = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(`${endpoint}/minio/health/live`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  info = {
    endpoint,
    port,
    accessKeyId,
    secretAccessKey,
    region: "eu-central-1",
    bucket: "regional",
  };
  await createBuckets(info, [info.bucket]);
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const env = () => ({ RAK: info.accessKeyId, RSK: info.secretAccessKey });
const dest = (region: string) =>
  parseDestination(
    {
      bucket: info.bucket,
      prefix: "app",
      region,
      endpoint: info.endpoint,
      force_path_style: true,
      access_key_env: "RAK",
      secret_key_env: "RSK",
    },
    "s3",
    { env: {} },
  );

describe("§2.5 doctor: region, extra checks, local store", () => {
  it("§2.5 the wrong region is detected and the right one named", async () => {
    const report = await runDoctor(
      { targets: [{ destination: dest("us-west-2") }] },
      { env: env(), requestTimeoutMs: 3000 },
    );
    expect(report.ok).toBe(false);
    const check = report.checks.find((c) => c.name === `Destination S3(${info.bucket})`);
    expect(check).toMatchObject({ ok: false, category: "wrong region" });
    expect(check?.hint).toBe("the bucket is in eu-central-1: set region: eu-central-1");
    const right = await runDoctor(
      { targets: [{ destination: dest("eu-central-1") }] },
      { env: env(), requestTimeoutMs: 3000 },
    );
    expect(right.ok, formatReport(right)).toBe(true);
  });

  it("§2.5 extra checks (the export side's `Source auth (...)`) are run, reported and counted", async () => {
    const report = await runDoctor(
      { configChecks: [{ name: "Config (export.yaml)", ok: true }] },
      {
        env: {},
        extraChecks: [
          {
            name: "Source auth (Postgres)",
            run: async () => ({
              ok: false,
              category: "auth error",
              detail: "password authentication failed for user app",
              hint: "check DATABASE_URL",
            }),
          },
          {
            name: "Source auth (MySQL)",
            run: async () => {
              throw new StowageError("config", "url_env DATABASE_URL is not set");
            },
          },
          { name: "Source auth (SQLite)", run: async () => ({ ok: true }) },
        ],
      },
    );
    expect(report.checks.map((c) => [c.name, c.ok, c.category])).toEqual([
      ["Config (export.yaml)", true, undefined],
      ["Source auth (Postgres)", false, "auth error"],
      ["Source auth (MySQL)", false, "config error"],
      ["Source auth (SQLite)", true, undefined],
    ]);
    const text = formatReport(report);
    expect(text).toContain(
      "[FAIL] Source auth (Postgres) -- auth error: password authentication failed for user app\n       Hint: check DATABASE_URL\n",
    );
    expect(text.trimEnd().endsWith("2 check(s) failed.")).toBe(true);
  });

  it("§2.5 a local-directory destination runs the same probes on the filesystem", async () => {
    const root = mkdtempSync(join(tmpdir(), "stowage-doctor-local-"));
    dirs.push(root);
    const report = await runDoctor(
      {
        targets: [
          {
            destination: parseDestination({ type: "local", path: root }, "destination", {
              env: {},
            }),
          },
        ],
      },
      { env: {} },
    );
    expect(report.ok, formatReport(report)).toBe(true);
    expect(report.checks[0]).toEqual({ name: `Destination Local(${root})`, ok: true });
    expect(report.checks.map((c) => c.name)).toContain(
      "Conditional create (second PUT answers 412)",
    );
  });
});
