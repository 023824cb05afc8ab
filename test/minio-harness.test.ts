/**
 * The test harness itself: without a MinIO binary and without Go, the error says what is
 * missing and how to get it; a process that ends without stopping its MinIO leaves none behind.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

/** Runs `source` (TypeScript, importing from test/support) in a fresh Node process. */
function runScript(source: string, env?: (dir: string) => NodeJS.ProcessEnv) {
  const dir = mkdtempSync(join(tmpdir(), "stowage-harness-"));
  const file = join(dir, "script.ts");
  writeFileSync(file, source);
  return spawnSync(process.execPath, ["--import", import.meta.resolve("jiti/register"), file], {
    encoding: "utf8",
    timeout: 120_000,
    ...(env ? { env: env(dir) } : {}),
  });
}

it("findOrBuildMinio with neither a binary nor Go names both ways to get MinIO", () => {
  const res = runScript(
    `import { findOrBuildMinio } from ${JSON.stringify(join(import.meta.dirname, "support", "minio-binary.ts"))};
try { findOrBuildMinio(); console.log("found"); } catch (e) { console.log((e as Error).message); }\n`,
    (dir) => ({ PATH: "/nonexistent", HOME: dir }),
  );
  expect(res.stdout).toContain("The tests need a MinIO server binary and none was found");
  expect(res.stdout).toContain("MINIO_BIN");
  expect(res.stdout).toContain(
    "go install github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c",
  );
});

it("a process that ends badly without stop() leaves no MinIO running (the exit hook kills it)", () => {
  const res = runScript(
    `import { startMinio } from ${JSON.stringify(join(import.meta.dirname, "support", "minio-server.ts"))};
const m = await startMinio();
console.log(JSON.stringify({ pid: m.pid }));
throw new Error("the app ends badly");\n`,
  );
  expect(res.status).not.toBe(0); // it did end badly
  const { pid } = JSON.parse(res.stdout.trim().split("\n")[0]!) as { pid: number };
  expect(pid).toBeGreaterThan(0);
  // SIGKILL from the exit hook: gone by the time the parent's spawnSync returns, or a moment later.
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const until = Date.now() + 5000;
  while (alive() && Date.now() < until) spawnSync("sleep", ["0.1"]);
  expect(alive()).toBe(false);
});
