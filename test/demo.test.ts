/** SPEC §6: `stowage demo` writes a realistic workload through the real logger, then serves Studio on it. */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { LocalStore } from "../src/store/local-store.js";
import { readBack } from "./support/read-back.js";

const BIN = join(import.meta.dirname, "..", "bin", "stowage.js");

it("§6 demo writes back-dated hours of routes, latencies and errors with stacks into the local store", async () => {
  const cwd = mkdtempSync(join(tmpdir(), "stowage-demo-"));
  const run = () =>
    spawnSync(process.execPath, [BIN, "demo", "--no-studio", "--hours", "3", "--per-hour", "400"], {
      cwd,
      encoding: "utf8",
    });
  expect(run().status).toBe(0);
  const res = run(); // a re-run replaces the demo store instead of doubling it
  expect(res.status, res.stderr).toBe(0);
  expect(res.stdout).toMatch(/Wrote 1201 records in \d+ objects/);
  const objects = await readBack(new LocalStore({ root: join(cwd, ".stowage/demo/store") }), "");
  const records = objects.flatMap((o) => o.lines);
  expect(records).toHaveLength(1201);
  const hours = new Set(objects.map((o) => o.key.split("/").slice(1, 5).join("/")));
  expect(hours.size).toBeGreaterThanOrEqual(3);
  const levels = new Set(records.map((r) => r.level));
  for (const l of ["debug", "info", "warning", "error"]) expect(levels).toContain(l);
  const withStack = records.filter(
    (r) => typeof (r.error as { stack?: string } | undefined)?.stack === "string",
  );
  expect(withStack.length).toBeGreaterThan(5);
  const routes = new Set(
    records.map((r) => (r.data as { route?: string } | undefined)?.route).filter(Boolean),
  );
  expect(routes.size).toBeGreaterThanOrEqual(3);
});

it("§6 demo then serves Studio on the demo store and prints its URL", async () => {
  const cwd = mkdtempSync(join(tmpdir(), "stowage-demo-"));
  const child = spawn(
    process.execPath,
    [BIN, "demo", "--no-open", "--port", "0", "--hours", "1", "--per-hour", "100"],
    { cwd },
  );
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no Studio URL in: ${out}`)), 30_000);
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /Studio: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32})/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(m[1]!);
      }
    });
  });
  try {
    const u = new URL(url);
    const info = await fetch(new URL("/api/info", u), {
      headers: { authorization: `Bearer ${u.searchParams.get("token")}` },
    });
    expect(info.status).toBe(200);
    expect(JSON.stringify(await info.json())).toContain(".stowage/demo/store");
    expect((await fetch(new URL("/api/info", u))).status).toBe(401);
  } finally {
    child.kill("SIGTERM");
  }
  const code = await new Promise((r) => child.once("exit", r));
  expect(code).toBe(0);
});

it("§6 demo --s3 writes the same workload into a bucket (credentials from the AWS default chain)", async () => {
  const { minio, uniquePrefix, minioStore } = await import("./support/minio.js");
  const m = minio();
  const prefix = uniquePrefix("demo");
  const cwd = mkdtempSync(join(tmpdir(), "stowage-demo-"));
  const res = spawnSync(
    process.execPath,
    [
      BIN,
      "demo",
      "--no-studio",
      "--hours",
      "2",
      "--per-hour",
      "100",
      "--s3",
      `s3://${m.bucket}/${prefix}`,
      "--endpoint",
      m.endpoint,
      "--force-path-style",
    ],
    {
      cwd,
      encoding: "utf8",
      env: {
        PATH: process.env.PATH ?? "",
        HOME: cwd,
        AWS_ACCESS_KEY_ID: m.accessKeyId,
        AWS_SECRET_ACCESS_KEY: m.secretAccessKey,
        AWS_EC2_METADATA_DISABLED: "true",
      },
    },
  );
  expect(res.status, res.stderr).toBe(0);
  expect(res.stdout).toMatch(/Wrote 201 records/);
  expect(res.stdout + res.stderr).not.toContain(m.secretAccessKey);
  const store = minioStore();
  const records = (await readBack(store, `${prefix}/`)).flatMap((o) => o.lines);
  store.close();
  expect(records).toHaveLength(201);
});
