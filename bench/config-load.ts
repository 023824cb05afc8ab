/**
 * Config load time: `createLogger()` in a fresh process with a `stowage.config.ts`
 * that imports `defineConfig` from "stowage" (as the README shows) against the same
 * config in YAML. Prints min and median of alternating rounds and the TS − YAML
 * differences (the budget is +300 ms): the README's shape (plain JavaScript in a .ts
 * file: evaluated without a transform), and a config with type syntax (jiti with
 * sucrase as its transform) with jiti's file cache cold (JITI_REBUILD_FS_CACHE: the
 * first load after an edit, which loads sucrase) and warm (sucrase not loaded).
 * Needs `npm run build` (the child imports dist/).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { positiveArg } from "./_shared.js";

const rounds = positiveArg("rounds", 5);
const pkg = resolve(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "stowage-bench-config-"));
mkdirSync(join(dir, "node_modules"));
symlinkSync(pkg, join(dir, "node_modules", "stowage"));
const body = `{ service: "api", console: false, destination: "local", local: { path: "./store" } }`;
const files = {
  yaml: [
    "service: api",
    "console: false",
    "destination: local",
    "local:",
    "  path: ./store",
    "",
  ].join("\n"),
  ts: `import { defineConfig } from "stowage";\nexport default defineConfig(${body});\n`,
  typed: `import { defineConfig } from "stowage";\nconst level: "info" = "info";\nexport default defineConfig({ ...${body}, level });\n`,
};
type Kind = keyof typeof files;
for (const kind of ["yaml", "ts", "typed"] as const) {
  mkdirSync(join(dir, kind));
  writeFileSync(join(dir, kind, `stowage.config.${kind === "yaml" ? "yaml" : "ts"}`), files[kind]);
  symlinkSync(join(dir, "node_modules"), join(dir, kind, "node_modules"));
}
const child = `
const t = performance.now();
const { createLogger } = await import("stowage");
const log = createLogger();
const ms = performance.now() - t;
await log.close();
process.stdout.write(String(ms));
`;

/** One fresh process: import stowage + createLogger() with the config in `kind`'s folder. */
function once(kind: Kind, cold: boolean): number {
  const res = spawnSync(process.execPath, ["--input-type=module", "-e", child], {
    cwd: join(dir, kind),
    env: { ...process.env, JITI_REBUILD_FS_CACHE: cold ? "true" : "false" },
    encoding: "utf8",
  });
  if (res.status !== 0) throw new Error(`${kind} child failed: ${res.stderr}`);
  return Number(res.stdout);
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0]!, median: s[Math.floor(s.length / 2)]! };
};

function measure(label: string, kind: "ts" | "typed", cold: boolean): void {
  const yaml: number[] = [];
  const ts: number[] = [];
  if (!cold) once(kind, false); // fill the cache
  for (let i = 0; i < rounds; i++) {
    yaml.push(once("yaml", cold));
    ts.push(once(kind, cold));
  }
  const y = stats(yaml);
  const t = stats(ts);
  console.log(
    `${label}: yaml min ${y.min.toFixed(0)} ms, median ${y.median.toFixed(0)} ms | ` +
      `ts min ${t.min.toFixed(0)} ms, median ${t.median.toFixed(0)} ms | ` +
      `ts − yaml: min ${(t.min - y.min).toFixed(0)} ms, median ${(t.median - y.median).toFixed(0)} ms, ` +
      `ratio of medians ${(t.median / y.median).toFixed(2)}× (budget +300 ms)`,
  );
}

try {
  measure("README-shape .ts (no type syntax), cold jiti cache", "ts", true);
  measure(".ts with type syntax, cold jiti cache (first load after an edit)", "typed", true);
  measure(".ts with type syntax, warm jiti cache", "typed", false);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
