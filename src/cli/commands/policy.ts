/**
 * `stowage policy --config F --role writer|reader [--json]`: the least-privilege
 * IAM policy for the configured bucket and prefix, each statement explained
 * (the bare JSON document with --json, ready for `aws iam create-policy`).
 */
import { Option, type Command } from "commander";
import { StowageError } from "../../shared/errors.js";
import type { CliIo, SetExitCode } from "../io.js";
import { configFiles } from "./doctor.js";

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
      new Option("--role <role>", "who the policy is for")
        .choices(["writer", "reader"])
        .makeOptionMandatory(),
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
        role: "writer" | "reader";
        json?: boolean;
        trustEndpoint: string[];
      }) => {
        const { loadDoctorPlan, buildIamPolicy } = await import("../../doctor/index.js");
        const plan = await loadDoctorPlan(configFiles(opts.config, io.cwd), {
          cwd: io.cwd,
          env: io.env,
          trustedHosts: opts.trustEndpoint,
        });
        const broken = plan.configChecks.find((c) => !c.ok);
        if (broken)
          throw new StowageError(
            "config",
            broken.detail ?? `${broken.name} is invalid`,
            broken.hint ? { hint: broken.hint } : {},
          );
        const { policy, explanations } = buildIamPolicy(plan.targets, opts.role);
        if (opts.json) {
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
          io.out(`${JSON.stringify(policy, null, 2)}\n`);
        }
        setExit(0);
      },
    );
}
