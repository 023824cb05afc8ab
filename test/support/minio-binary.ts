/**
 * Finds the `minio` server binary for tests: $MINIO_BIN, PATH, then the Go bin
 * folder; otherwise builds the pinned version with `go install`. Throws a clear
 * error naming what is missing and how to get it.
 */
import { execFileSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export const MINIO_MODULE = "github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c";

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The folder `go install` writes to: $(go env GOBIN), else the first GOPATH entry + /bin. */
export function goBinDir(): string | undefined {
  try {
    const gobin = execFileSync("go", ["env", "GOBIN"], { encoding: "utf8" }).trim();
    if (gobin) return gobin;
    const gopath = execFileSync("go", ["env", "GOPATH"], { encoding: "utf8" }).trim();
    return join(gopath.split(delimiter)[0]!, "bin");
  } catch {
    return undefined;
  }
}

/** Returns the path of a runnable minio binary, building it if needed. */
export function findOrBuildMinio(log: (line: string) => void = () => {}): string {
  const fromEnv = process.env.MINIO_BIN;
  if (fromEnv) {
    if (executable(fromEnv)) return fromEnv;
    throw new Error(
      `MINIO_BIN=${fromEnv} is not an executable file; unset it or point it at a minio binary.`,
    );
  }
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && executable(join(dir, "minio"))) return join(dir, "minio");
  }
  const bin = goBinDir();
  if (bin && executable(join(bin, "minio"))) return join(bin, "minio");
  if (!bin) {
    throw new Error(
      "The tests need a MinIO server binary and none was found: set MINIO_BIN, put `minio` on PATH, " +
        `or install Go (https://go.dev/dl/) so the tests can run \`go install ${MINIO_MODULE}\`.`,
    );
  }
  log(`building MinIO with \`go install ${MINIO_MODULE}\` (takes a few minutes, once)…`);
  try {
    execFileSync("go", ["install", MINIO_MODULE], { stdio: ["ignore", "inherit", "inherit"] });
  } catch (err) {
    throw new Error(
      `\`go install ${MINIO_MODULE}\` failed (${(err as Error).message}). If the checksum database is ` +
        "unreachable, retry with GOSUMDB=off; or set MINIO_BIN to an existing minio binary.",
    );
  }
  if (!executable(join(bin, "minio")))
    throw new Error(`go install finished but ${join(bin, "minio")} is missing`);
  return join(bin, "minio");
}
