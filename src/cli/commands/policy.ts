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
    .addOption(new Option("--role <role>", "who the policy is for").choices(["writer", "reader"]))
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
    .action(
      async (opts: {
        config: string[];
        role?: "writer" | "reader";
        lifecycle?: boolean;
        json?: boolean;
        trustEndpoint: string[];
      }) => {
        const { buildIamPolicy } = await import("../../doctor/index.js");
        const plan = await loadCheckedPlan(opts.config, io, opts.trustEndpoint);
        if (opts.lifecycle) {
          const { buildLifecycle } = await import("../../doctor/lifecycle.js");
          const lifecycle = buildLifecycle(plan.targets);
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
          setExit(0);
          return;
        }
        if (!opts.role)
          throw new StowageError(
            "usage",
            "say which policy to print: --role writer, --role reader, or --lifecycle",
          );
        const { policy, explanations, notes, warnings } = buildIamPolicy(plan.targets, opts.role);
        if (opts.json) {
          // On stderr: stdout stays the bare document.
          for (const n of notes) io.err(`stowage policy: note: ${n}\n`);
          for (const w of warnings) io.err(`stowage policy: warning: ${w}\n`);
          io.out(`${JSON.stringify(policy, null, 2)}\n`);
        } else {
          const where = plan.targets
            .flatMap((t) =>
              t.destination.type === "s3"
                ? [
                    `s3://${t.destination.bucket}/${t.destination.prefix}${t.label ? ` (${t.label})` : ""}`,
                  ]
                : [],
            )
            .join(", ");
          // Explanations on stderr: stdout stays pure JSON (`stowage policy … > policy.json`).
          io.err(`# Least-privilege IAM policy, role ${opts.role}, for ${where}\n`);
          for (const e of explanations) io.err(`#   ${e.sid}: ${e.why}\n`);
          for (const n of notes) io.err(`# Note: ${n}\n`);
          for (const w of warnings) io.err(`# Warning: ${w}\n`);
          io.out(`${JSON.stringify(policy, null, 2)}\n`);
        }
        setExit(0);
      },
    );
}
