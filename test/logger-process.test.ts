/**
 * SPEC §3.2 process-level promises, checked in real child processes: no side
 * effects on import, close() leaves nothing that keeps the process alive,
 * console echo shows redacted records, caller capture.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { minio, uniquePrefix } from "./support/minio.js";

// The built package (npm test builds first), as an application would import it.
const DIST = join(import.meta.dirname, "..", "dist", "index.js");

function runScript(body: string, env: Record<string, string> = {}) {
  const cwd = mkdtempSync(join(tmpdir(), "stowage-proc-"));
  const file = join(cwd, "main.mjs");
  writeFileSync(file, `import { createLogger } from ${JSON.stringify(DIST)};\n${body}\n`);
  const res = spawnSync(process.execPath, [file], {
    cwd,
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", ...env },
  });
  return { ...res, cwd };
}

it("§3.2 importing stowage writes no files and opens nothing", () => {
  const res = runScript(`void createLogger; console.log("imported");`);
  expect(res.status, res.stderr).toBe(0);
  expect(res.stdout.trim()).toBe("imported");
  expect(readdirSync(res.cwd).sort()).toEqual(["main.mjs"]);
});

it("§3.2 importing stowage and logging to the local store never loads the AWS SDK", () => {
  const res = runScript(
    `import { createRequire } from "node:module";
     const log = createLogger({ console: false, destination: "local", local: { path: "store" } });
     log.info("x");
     await log.close();
     const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes("@aws-sdk"));
     console.log(JSON.stringify(loaded));`,
  );
  expect(res.status, res.stderr).toBe(0);
  expect(JSON.parse(res.stdout)).toEqual([]);
});

it("§3.2 close() releases timers, sockets and workers: the process exits on its own after logging to S3", () => {
  const m = minio();
  const res = runScript(
    `const log = createLogger({ console: false, destination: "s3", s3: { bucket: ${JSON.stringify(m.bucket)}, prefix: ${JSON.stringify(uniquePrefix("exit"))},
       region: "us-east-1", endpoint: ${JSON.stringify(m.endpoint)}, forcePathStyle: true, access_key_env: "K", secret_key_env: "S" } });
     for (let i = 0; i < 100; i++) log.info("x", { i });
     const r = await log.close({ timeoutMs: 10000 });
     console.log(JSON.stringify(r.destinations.sink));`,
    { K: m.accessKeyId, S: m.secretAccessKey },
  );
  expect(res.error).toBeUndefined(); // not killed by the 30 s timeout: it exited by itself
  expect(res.status, res.stderr).toBe(0);
  expect(JSON.parse(res.stdout)).toMatchObject({ ok: true, delivered: 100 });
  expect(readdirSync(res.cwd).sort()).toEqual(["main.mjs"]); // choosing S3 writes nothing locally
});

it("§3.2 console echo (json and pretty) shows redacted records and respects the level", () => {
  const json = runScript(
    `const log = createLogger({ console: "json", level: "info", destination: "local", local: { path: ".stowage/store" } });
     log.debug("hidden"); log.info("login", { password: "hunter2", user: "ann" });
     await log.close();`,
  );
  expect(json.status, json.stderr).toBe(0);
  const lines = json.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({
    level: "info",
    message: "login",
    data: { password: "[REDACTED]", user: "ann" },
  });
  const pretty = runScript(
    `const log = createLogger({ console: "pretty", destination: "local", local: { path: ".stowage/store" } });
     log.error(new Error("boom"), "failed"); await log.close();`,
  );
  expect(pretty.stdout).toMatch(/ERROR\s+failed/);
  expect(pretty.stdout).toContain("Error: boom");
});

it("§3.1 caller: true records relative/path.ts:LINE of the logging call", () => {
  const res = runScript(
    `const log = createLogger({ console: "json", caller: true, destination: "local", local: { path: ".stowage/store" } });
log.info("here");
await log.close();`,
  );
  expect(res.status, res.stderr).toBe(0);
  expect((JSON.parse(res.stdout.trim()) as { caller: string }).caller).toBe("main.mjs:3");
});
