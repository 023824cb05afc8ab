/** The test harness itself: without a MinIO binary and without Go, the error says what is missing and how to get it. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

it("findOrBuildMinio with neither a binary nor Go names both ways to get MinIO", () => {
  const dir = mkdtempSync(join(tmpdir(), "stowage-harness-"));
  const file = join(dir, "probe.ts");
  writeFileSync(
    file,
    `import { findOrBuildMinio } from ${JSON.stringify(join(import.meta.dirname, "support", "minio-binary.ts"))};
try { findOrBuildMinio(); console.log("found"); } catch (e) { console.log((e as Error).message); }\n`,
  );
  const res = spawnSync(
    process.execPath,
    ["--import", import.meta.resolve("jiti/register"), file],
    {
      encoding: "utf8",
      env: { PATH: "/nonexistent", HOME: dir },
    },
  );
  expect(res.stdout).toContain("The tests need a MinIO server binary and none was found");
  expect(res.stdout).toContain("MINIO_BIN");
  expect(res.stdout).toContain(
    "go install github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c",
  );
});
