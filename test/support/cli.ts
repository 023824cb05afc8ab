/** Runs the built `stowage` binary in a child process and collects its output (CLI tests). */
import { spawn } from "node:child_process";
import { join } from "node:path";

export const BIN = join(import.meta.dirname, "..", "..", "bin", "stowage.js");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  cwd?: string;
  /** Variables on top of the base environment. */
  env?: Record<string, string>;
  /**
   * "clean" (default): only PATH, HOME (= `home`, else cwd) and no AWS metadata lookups, so
   * nothing of the machine running the tests (profiles, credentials) leaks in; "inherit": the test's own.
   */
  base?: "clean" | "inherit";
  home?: string;
}

/** `stowage <args>` → exit code, stdout, stderr. */
export function runStowage(args: string[], options: CliRunOptions = {}): Promise<CliRun> {
  const home = options.home ?? options.cwd ?? process.cwd();
  const base =
    options.base === "inherit"
      ? { ...process.env, HOME: home }
      : { PATH: process.env.PATH ?? "", HOME: home, AWS_EC2_METADATA_DISABLED: "true" };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      ...(options.cwd ? { cwd: options.cwd } : {}),
      env: { ...base, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
