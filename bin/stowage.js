#!/usr/bin/env node
// Entry point of the `stowage` CLI: the compiled code lives in dist/ (`npm run build`).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const main = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write("stowage: dist/ is missing; run `npm run build` first.\n");
  process.exit(2);
}
// The CLI pins an SDK release that supports Node 20; its notice about future releases is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
// `stowage logs … | head`: a closed pipe ends the output, not the process with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw err;
  });
}
const { run } = await import(main.href);
process.exitCode = await run(process.argv);
