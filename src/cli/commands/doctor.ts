/**
 * `stowage doctor [--config F ...] [--json] [--trust-endpoint HOST ...]` (SPEC §2.5):
 * checks config, credentials, bucket, region, provider capabilities and connectors.
 * Exit 0 all passed, 1 a check failed, 2 usage or a config error. An export file's source checks
 * come from `export/doctor.js` (`exportDoctorPlan`) when that module exists.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { StowageError } from "../../shared/errors.js";
import type { ExportDoctorHook } from "../../doctor/types.js";
import type { CliIo, SetExitCode } from "../io.js";
import type { SourceCheckOptions } from "../../doctor/source-checks.js";

const collect = (value: string, previous: string[]) => [...previous, value];

/** The export side's doctor hook, if that module is built (optional seam). */
async function loadExportHook(): Promise<ExportDoctorHook | undefined> {
  const specifier = "../../export/doctor.js";
  try {
    const mod = (await import(specifier)) as { exportDoctorPlan?: ExportDoctorHook };
    return mod.exportDoctorPlan;
  } catch (err) {
    if (
      (err as { code?: string }).code === "ERR_MODULE_NOT_FOUND" &&
      String((err as Error).message).includes("export/doctor")
    )
      return undefined;
    throw err;
  }
}

/** Config files from `--config` (must exist: a missing one is a usage error). */
/**
 * The doctor plan of `--config` files (or the discovered config), throwing the first
 * config error (exit 2): what `policy` and `verify` need before they act.
 */
export async function loadCheckedPlan(
  given: string[],
  io: { cwd: string; env: NodeJS.ProcessEnv },
  trustedHosts: string[],
): Promise<import("../../doctor/index.js").LoadedPlan> {
  const { loadDoctorPlan } = await import("../../doctor/index.js");
  const plan = await loadDoctorPlan(configFiles(given, io.cwd), {
    cwd: io.cwd,
    env: io.env,
    trustedHosts,
  });
  const broken = plan.configChecks.find((c) => !c.ok);
  if (broken)
    throw new StowageError(
      "config",
      broken.detail ?? `${broken.name} is invalid`,
      broken.hint ? { hint: broken.hint } : {},
    );
  return plan;
}

export function configFiles(given: string[], cwd: string): string[] {
  return given.map((f) => {
    const abs = resolve(cwd, f);
    if (!existsSync(abs))
      throw new StowageError("usage", `config file ${f} does not exist`, {
        hint: "pass an existing file with --config, or run without --config to use stowage.config.* in this directory",
      });
    return abs;
  });
}

export function register(program: Command, io: CliIo, setExit: SetExitCode): void {
  program
    .command("doctor")
    .description("verify config, credentials, bucket, region, provider capabilities and connectors")
    .option(
      "--config <file>",
      "logger config or export file (repeatable); default: stowage.config.* here",
      collect,
      [],
    )
    .option("--json", "print {ok, checks} as JSON")
    .option(
      "--trust-endpoint <host>",
      "trust this endpoint host for this run (repeatable)",
      collect,
      [],
    )
    .option(
      "--capabilities",
      "also probe provider capabilities for export destinations (always on for logs)",
    )
    .option("--timeout-ms <ms>", "timeout per storage request", "5000")
    // --- reader source checks: the source flags of `logs`/`studio` ---
    .option("--source <url>", "check what `stowage logs`/`studio` need on this source (read-only)")
    .option("--region <region>", "S3 region (with --source)")
    .option("--endpoint <url>", "S3-compatible endpoint (with --source)")
    .option("--force-path-style", "path-style S3 URLs, for MinIO (with --source)")
    .option("--profile <name>", "AWS shared config profile (with --source)")
    .option("--access-key-env <NAME>", "variable holding the access key id (with --source)")
    .option("--secret-key-env <NAME>", "variable holding the secret access key (with --source)")
    .option("--session-token-env <NAME>", "variable holding a session token (with --source)")
    // --- end reader source checks ---
    .action(
      async (opts: {
        config: string[];
        json?: boolean;
        trustEndpoint: string[];
        capabilities?: boolean;
        timeoutMs: string;
        source?: string;
      }) => {
        const timeoutMs = Number(opts.timeoutMs);
        if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
          throw new StowageError("usage", "--timeout-ms must be a positive integer");
        if (opts.source !== undefined) return sourceDoctor(opts, io, setExit, timeoutMs);
        const files = configFiles(opts.config, io.cwd);
        const { loadDoctorPlan, runDoctor, formatReport } = await import("../../doctor/index.js");
        const exportHook = await loadExportHook();
        const plan = await loadDoctorPlan(files, {
          cwd: io.cwd,
          env: io.env,
          trustedHosts: opts.trustEndpoint,
          ...(exportHook ? { exportHook } : {}),
        });
        for (const w of plan.warnings) io.err(`Note: ${w}\n`);
        const report = await runDoctor(plan, {
          env: io.env,
          requestTimeoutMs: timeoutMs,
          capabilities: opts.capabilities === true,
        });
        io.out(opts.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
        // A config error exits 2 as everywhere in the CLI; any other failed check 1.
        const configError = report.checks.some((c) => !c.ok && c.category === "config error");
        setExit(report.ok ? 0 : configError ? 2 : 1);
      },
    );
}

// --- reader source checks ---
/** `stowage doctor --source URL …`: the reader's read-only checks (doctor/source-checks.ts). */
async function sourceDoctor(
  opts: { source?: string; json?: boolean; trustEndpoint: string[] } & Omit<
    SourceCheckOptions,
    "env" | "cwd" | "requestTimeoutMs" | "signal" | "trustedHosts"
  >,
  io: CliIo,
  setExit: SetExitCode,
  timeoutMs: number,
): Promise<void> {
  const { checkSource } = await import("../../doctor/source-checks.js");
  const { formatReport } = await import("../../doctor/index.js");
  const { trustEndpoint, ...flags } = opts;
  const report = await checkSource(opts.source ?? "", {
    ...flags,
    trustedHosts: trustEndpoint,
    env: io.env,
    cwd: io.cwd,
    requestTimeoutMs: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs * 10),
  });
  io.out(opts.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  setExit(report.ok ? 0 : 1);
}
// --- end reader source checks ---
