/**
 * Headless Chromium for browser tests (the Chromium the global setup obtained,
 * see chromium.ts, driven by playwright-core; never a downloaded browser), and
 * a guard that Studio's UI is built before a test serves it.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { inject } from "vitest";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Launches Chromium; without one, fails with the setup's message saying how to get it. */
export async function launchBrowser(): Promise<Browser> {
  const found = inject("chromium");
  if ("error" in found) throw new Error(found.error);
  return chromium.launch({ executablePath: found.path, args: CHROMIUM_ARGS });
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    newest = Math.max(newest, st.isDirectory() ? newestMtime(p) : st.mtimeMs);
  }
  return newest;
}

/** Builds dist/studio/web with Vite when it is missing or older than src/studio/web. */
export function ensureStudioAssets(repo: string): string {
  const out = join(repo, "dist", "studio", "web");
  const index = join(out, "index.html");
  const stale =
    !existsSync(index) || statSync(index).mtimeMs < newestMtime(join(repo, "src", "studio", "web"));
  if (stale) {
    const r = spawnSync(
      process.execPath,
      [join(repo, "node_modules", "vite", "bin", "vite.js"), "build"],
      { cwd: repo, encoding: "utf8" },
    );
    if (r.status !== 0) throw new Error(`vite build failed:\n${r.stdout}\n${r.stderr}`);
  }
  return out;
}
