/**
 * `npm run bench`: runs every benchmark in bench/ in its own process, one after
 * another (each prints ratios against a reference measured in the same run).
 * `npm run bench -- log reader` runs only those.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const all = readdirSync(here)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts" && !f.startsWith("_"))
  .map((f) => f.replace(/\.ts$/, ""))
  .sort();
// Bare words naming a benchmark select it; everything else goes to each benchmark.
const args = process.argv.slice(2);
const only = args.filter((a) => all.includes(a));
const passThrough = args.filter((a) => !all.includes(a));
const files = all.filter((f) => only.length === 0 || only.includes(f)).map((f) => `${f}.ts`);

let failed = 0;
for (const f of files) {
  console.log(`\n=== bench/${f}`);
  const res = spawnSync(
    process.execPath,
    ["--import", "jiti/register", "--expose-gc", join(here, f), ...passThrough],
    {
      stdio: "inherit",
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    },
  );
  if (res.status !== 0) {
    failed++;
    console.log(`bench/${f} exited with ${res.status ?? res.signal}`);
  }
}
process.exitCode = failed ? 1 : 0;
