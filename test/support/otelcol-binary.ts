/**
 * Finds or builds the test OpenTelemetry Collector (test/support/otelcol: the OTLP
 * receiver and the contrib file exporter, collector v0.161.0 / v1.67.0): $OTELCOL_BIN,
 * else `stowage-otelcol` in the Go bin folder when it was built from the current
 * sources (a stamp beside it holds their SHA-256), else `go build` into that folder
 * (a few minutes once; the modules come from the Go module proxy, pinned by go.sum).
 * `.ci/run` runs this file to build it before the tests:
 *   node --import jiti/register test/support/otelcol-binary.ts
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { accessSync, constants, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { goBinDir } from "./minio-binary.js";

/** The Go main and its pinned modules (go.mod + go.sum). */
export const OTELCOL_SOURCE = join(import.meta.dirname, "otelcol");
const SOURCE_FILES = ["go.mod", "go.sum", "main.go"];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** SHA-256 of the collector's sources: a binary built from other sources is rebuilt. */
function sourceHash(): string {
  const h = createHash("sha256");
  for (const f of SOURCE_FILES)
    h.update(f)
      .update("\0")
      .update(readFileSync(join(OTELCOL_SOURCE, f)));
  return h.digest("hex");
}

function readStamp(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
}

/** Returns a runnable collector binary, building it when needed. */
export function findOrBuildOtelcol(log: (line: string) => void = () => {}): string {
  const fromEnv = process.env.OTELCOL_BIN;
  if (fromEnv) {
    if (executable(fromEnv)) return fromEnv;
    throw new Error(`OTELCOL_BIN=${fromEnv} is not an executable file; unset it or fix it.`);
  }
  const dir = goBinDir();
  if (!dir)
    throw new Error(
      "The connector tests need Go (https://go.dev/dl/) to build the test OpenTelemetry Collector " +
        `from ${OTELCOL_SOURCE}, or OTELCOL_BIN pointing at a collector with the otlp receiver and file exporter.`,
    );
  const bin = join(dir, "stowage-otelcol");
  const stamp = `${bin}.source-sha256`;
  const hash = sourceHash();
  if (executable(bin) && readStamp(stamp) === hash) return bin;
  log(`building the test OpenTelemetry Collector into ${bin} (a few minutes, once)…`);
  mkdirSync(dir, { recursive: true });
  // Built beside its final name, then renamed: two test files building at once never
  // leave a half-written binary under the name the other one runs.
  const tmp = `${bin}.tmp-${process.pid}`;
  const build = (env: NodeJS.ProcessEnv) =>
    execFileSync("go", ["build", "-trimpath", "-o", tmp, "."], {
      cwd: OTELCOL_SOURCE,
      env,
      stdio: ["ignore", "inherit", "inherit"],
    });
  try {
    build(process.env);
  } catch {
    // go.sum pins every module; the checksum database is only a second opinion.
    try {
      build({ ...process.env, GOSUMDB: "off" });
    } catch (err) {
      throw new Error(
        `\`go build\` of ${OTELCOL_SOURCE} failed (${(err as Error).message}); ` +
          "or set OTELCOL_BIN to a collector with the otlp receiver and the file exporter.",
      );
    }
  }
  renameSync(tmp, bin);
  writeFileSync(stamp, `${hash}\n`);
  return bin;
}

// Run as a script (.ci/run): progress on stderr, the binary's path alone on stdout.
if (process.argv[1]?.endsWith("otelcol-binary.ts")) {
  console.log(findOrBuildOtelcol((l) => console.error(l)));
}
