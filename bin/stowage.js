#!/usr/bin/env node
// Entry point of the `stowage` CLI: the compiled code lives in dist/ (`npm run build`).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const main = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write("stowage: dist/ is missing; run `npm run build` first.\n");
  process.exit(2);
}
const { run } = await import(main.href);
process.exitCode = await run(process.argv);
