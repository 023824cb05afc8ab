/**
 * Runs a doctor plan (SPEC §2.5): config checks, then every distinct destination's
 * probes, then extra checks contributed from outside (e.g. an export's
 * `Source auth (Postgres)`), and folds them into `{ok, checks}`.
 */
import type { ResolvedDestination } from "../config/destination.js";
import type { Env } from "../config/env.js";
import { isStowageError } from "../shared/errors.js";
import { firstLine } from "./diagnose.js";
import { policySizeChecks } from "./iam-size-check.js";
import { probeTarget } from "./probes.js";
import type {
  CheckOutcome,
  CheckResult,
  DoctorPlan,
  DoctorReport,
  DoctorTarget,
  ExtraCheck,
} from "./types.js";

export interface RunDoctorOptions {
  env: Env;
  /** Per storage request. Default 5,000 ms: a dead endpoint fails fast. */
  requestTimeoutMs?: number;
  signal?: AbortSignal | undefined;
  /** Run the capability probes for export destinations too (they always run for log destinations). */
  capabilities?: boolean;
  /** More checks, run after the plan's own (the export side's hook). */
  extraChecks?: ExtraCheck[];
}

/** Same endpoint, bucket, prefix and credential source = the same probes. */
function targetKey(d: ResolvedDestination): string {
  return d.type === "local"
    ? `local:${d.path}`
    : JSON.stringify([
        d.endpoint,
        d.bucket,
        d.prefix,
        d.region,
        d.credentials.source,
        d.credentials.source === "env"
          ? d.credentials.accessKeyEnv
          : d.credentials.source === "profile"
            ? d.credentials.profile
            : "",
      ]);
}

/** The first target of each distinct destination, in plan order. */
function distinctTargets(targets: readonly DoctorTarget[]): DoctorTarget[] {
  const seen = new Set<string>();
  return targets.filter((t) => {
    const key = targetKey(t.destination);
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

async function runExtra(check: ExtraCheck, env: Env, signal: AbortSignal): Promise<CheckResult> {
  let outcome: CheckOutcome;
  try {
    outcome = await check.run({ signal, env });
  } catch (err) {
    const category = isStowageError(err, "config", "usage", "policy")
      ? "config error"
      : isStowageError(err, "credentials")
        ? "auth error"
        : "connectivity error";
    outcome = {
      ok: false,
      category,
      detail: firstLine(err instanceof Error ? err.message : String(err)),
      ...(isStowageError(err) && err.hint ? { hint: err.hint } : {}),
    };
  }
  return { name: check.name, ...outcome };
}

/**
 * @example
 * const report = await runDoctor(await loadDoctorPlan(["export.yaml"], ctx), {
 *   env: process.env,
 *   extraChecks: [{ name: "Source auth (Postgres)", run: async () => ((await canConnect()) ? { ok: true } : { ok: false, category: "auth error", detail: "..." }) }],
 * });
 * report.ok; // false when any check failed
 */
export async function runDoctor(
  plan: Partial<DoctorPlan>,
  options: RunDoctorOptions,
): Promise<DoctorReport> {
  const signal = options.signal ?? new AbortController().signal;
  const checks: CheckResult[] = [...(plan.configChecks ?? [])];
  const targets = distinctTargets(plan.targets ?? []);
  for (const target of targets) {
    // Labels only matter when there is more than one destination to tell apart.
    const t = targets.length > 1 ? target : { ...target, label: undefined };
    checks.push(
      ...(await probeTarget(t, {
        env: options.env,
        requestTimeoutMs: options.requestTimeoutMs ?? 5_000,
        signal,
        capabilities: options.capabilities === true,
      })),
    );
  }
  for (const check of [...(plan.extraChecks ?? []), ...(options.extraChecks ?? [])])
    checks.push(await runExtra(check, options.env, signal));
  // A `stowage policy` IAM would refuse is said before anyone tries (issue 31 §5).
  checks.push(...policySizeChecks(plan.targets ?? []));
  return { ok: checks.every((c) => c.ok), checks };
}
