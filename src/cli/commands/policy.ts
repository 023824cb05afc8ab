/**
 * `stowage policy --config F --role writer|reader [--json]`: the least-privilege
 * IAM policy for the configured bucket and prefix, each statement explained;
 * `--lifecycle`: the bucket lifecycle configuration for the configured prefixes
 * (the bare JSON document with --json, ready for `aws iam create-policy`).
 * A policy over one of IAM's size limits is printed with a warning naming the limit.
 */
import { Option, type Command } from "commander";
import { StowageError } from "../../shared/errors.js";
import type { CliIo, SetExitCode } from "../io.js";
import { loadCheckedPlan } from "./doctor.js";

export function register(program: Command, io: CliIo, setExit: SetExitCode): void {
  program
    .command("policy")
    .description("print the least-privilege IAM policy JSON for the configured bucket and prefix")
    .option(
      "--config <file>",
      "logger config or export file (repeatable); default: stowage.config.* here",
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .addOption(
      new Option("--role <role>", "who the policy is for").choices([
        "writer",
        "reader",
        "compactor",
      ]),
    )
    .option(
      "--dest <prefix>",
      "compactor / --lifecycle: the compaction destination (default <prefix>/parquet/)",
    )
    .option(
      "--parquet-days <n>",
      "with --lifecycle: also expire the compacted Parquet after n days (at least v1's)",
    )
    .option(
      "--lifecycle",
      "print the bucket lifecycle configuration for the configured prefixes instead (docs/retention.md)",
    )
    .option("--json", "print only the policy document")
    .option(
      "--trust-endpoint <host>",
      "trust this endpoint host while reading the config (repeatable)",
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .action(async (opts: PolicyFlags) => {
      const plan = await loadCheckedPlan(opts.config, io, opts.trustEndpoint);
      if (opts.lifecycle) {
        const { buildLifecycle } = await import("../../doctor/lifecycle.js");
        const parquetDays = opts.parquetDays === undefined ? undefined : Number(opts.parquetDays);
        printLifecycle(
          buildLifecycle(plan.targets, { parquetDays, compactDest: opts.dest }),
          opts,
          io,
        );
      } else {
        if (!opts.role)
          throw new StowageError(
            "usage",
            "say which policy to print: --role writer, --role reader, --role compactor, or --lifecycle",
          );
        const { buildIamPolicy } = await import("../../doctor/index.js");
        printPolicy(
          buildIamPolicy(plan.targets, opts.role, { compactDest: opts.dest }),
          plan.targets,
          opts.role,
          opts,
          io,
        );
      }
      setExit(0);
    });
}

interface PolicyFlags {
  config: string[];
  role?: "writer" | "reader" | "compactor";
  dest?: string;
  parquetDays?: string;
  lifecycle?: boolean;
  json?: boolean;
  trustEndpoint: string[];
}

type Targets = import("../../doctor/index.js").LoadedPlan["targets"];

/** The lifecycle document on stdout; with a human reader, how to apply it and each rule in words on stderr. */
function printLifecycle(
  lifecycle: ReturnType<typeof import("../../doctor/lifecycle.js").buildLifecycle>,
  opts: PolicyFlags,
  io: CliIo,
): void {
  if (!opts.json) {
    io.err(
      "# Bucket lifecycle configuration: apply with\n#   aws s3api put-bucket-lifecycle-configuration --bucket BUCKET --lifecycle-configuration file://lifecycle.json\n",
    );
    for (const r of lifecycle.Rules)
      io.err(
        `#   ${r.ID}: ${r.Filter.Prefix || "(bucket root)"}${r.Expiration ? ` expires after ${r.Expiration.Days} d` : ""}${r.Transitions ? `, moves to ${r.Transitions[0]!.StorageClass} after ${r.Transitions[0]!.Days} d` : ""}${r.AbortIncompleteMultipartUpload ? ", aborts incomplete multipart uploads after 1 d" : ""}\n`,
      );
  }
  io.out(`${JSON.stringify(lifecycle, null, 2)}\n`);
}

/** The policy document on stdout; notes and warnings (and, without --json, each statement explained) on stderr. */
function printPolicy(
  built: import("../../doctor/index.js").ExplainedPolicy,
  targets: Targets,
  role: string,
  opts: PolicyFlags,
  io: CliIo,
): void {
  const { policy, explanations, notes, warnings } = built;
  if (opts.json) {
    // On stderr: stdout stays the bare document.
    for (const n of notes) io.err(`stowage policy: note: ${n}\n`);
    for (const w of warnings) io.err(`stowage policy: warning: ${w}\n`);
    io.out(`${JSON.stringify(policy, null, 2)}\n`);
    return;
  }
  const where = targets
    .flatMap((t) =>
      t.destination.type === "s3"
        ? [`s3://${t.destination.bucket}/${t.destination.prefix}${t.label ? ` (${t.label})` : ""}`]
        : [],
    )
    .join(", ");
  // Explanations on stderr: stdout stays pure JSON (`stowage policy … > policy.json`).
  io.err(`# Least-privilege IAM policy, role ${role}, for ${where}\n`);
  for (const e of explanations) io.err(`#   ${e.sid}: ${e.why}\n`);
  for (const n of notes) io.err(`# Note: ${n}\n`);
  for (const w of warnings) io.err(`# Warning: ${w}\n`);
  io.out(`${JSON.stringify(policy, null, 2)}\n`);
}
