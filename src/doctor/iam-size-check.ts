/**
 * Doctor's check of `stowage policy`'s size: a policy over IAM's managed-policy limit is
 * a `[WARN]` naming the limits it is over, before anyone pastes it into IAM (issue 31 §5).
 */
import { IAM_POLICY_LIMITS, MANAGED_POLICY_LIMIT, policySize } from "./iam-limits.js";
import { buildIamPolicy } from "./iam-policy.js";
import type { CheckResult, DoctorTarget } from "./types.js";

/**
 * Doctor's `[WARN]` for each role whose `stowage policy` is over IAM's managed-policy
 * limit (none when every S3 destination's policies fit, or there is no S3 destination).
 * @example checks.push(...policySizeChecks(plan.targets));
 */
export function policySizeChecks(targets: readonly DoctorTarget[]): CheckResult[] {
  if (!targets.some((t) => t.destination.type === "s3")) return [];
  const out: CheckResult[] = [];
  for (const role of ["writer", "reader"] as const) {
    const size = policySize(buildIamPolicy(targets, role).policy);
    if (size <= MANAGED_POLICY_LIMIT) continue;
    const over = IAM_POLICY_LIMITS.filter((l) => size > l.chars)
      .map((l) => `${l.chars.toLocaleString("en-US")} (${l.what})`)
      .join(", ");
    out.push({
      name: `IAM policy size (${role})`,
      ok: true,
      warning: `stowage policy --role ${role} prints ${size.toLocaleString("en-US")} characters (whitespace not counted, as IAM counts): over IAM's ${over}`,
      hint: "split the destinations over several config files, one policy each, or attach the policy inline to an IAM role (10,240)",
    });
  }
  return out;
}
