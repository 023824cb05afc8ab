/**
 * Keeping `stowage policy` within IAM's size limits (issue 31 §5): statements granting
 * the same actions under the same condition — the ones each destination repeats
 * (`StowageWrite1`, `StowageWrite2`, …) — are merged into one statement with several
 * resources, or, for a bucket-level statement whose condition differs only in its values
 * (`s3:prefix`), one statement with several values; and the size is measured as IAM
 * measures it (without whitespace), so a policy past a limit is reported before IAM
 * refuses it.
 */
import type { IamPolicy, PolicyStatement } from "./iam-policy.js";

type Explained = { st: PolicyStatement; why: string };

/** IAM's policy size quotas, in characters without whitespace, smallest first. */
export const IAM_POLICY_LIMITS = [
  { chars: 2_048, what: "a session policy (AssumeRole) or an IAM user's inline policies" },
  { chars: 5_120, what: "an IAM group's inline policies" },
  { chars: 6_144, what: "a customer managed policy" },
  { chars: 10_240, what: "an IAM role's inline policies" },
] as const;

/** The managed-policy limit: a policy past it cannot be created with `aws iam create-policy`. */
export const MANAGED_POLICY_LIMIT = 6_144;

const baseSid = (sid: string) => sid.replace(/\d+$/, "");
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const union = <T>(a: readonly T[], b: readonly T[]) => [...new Set([...a, ...b])];

/** The condition's only operator and key, when it has exactly one of each. */
function singleKey(c: PolicyStatement["Condition"]): [string, string, string[]] | undefined {
  const ops = Object.entries(c ?? {});
  if (ops.length !== 1) return undefined;
  const [op, keys] = ops[0]!;
  const entries = Object.entries(keys);
  if (entries.length !== 1) return undefined;
  return [op, entries[0]![0], entries[0]![1]];
}

/** Folds `next` into `into` when that grants exactly what both granted; false when it would not. */
function fold(into: Explained, next: Explained): boolean {
  const a = into.st;
  const b = next.st;
  if (a.Effect !== b.Effect || !same(a.Action, b.Action)) return false;
  if (same(a.Condition, b.Condition)) {
    a.Resource = union(a.Resource, b.Resource);
  } else {
    // Same resources, one condition key with other values: any of the values allows it.
    const ka = singleKey(a.Condition);
    const kb = singleKey(b.Condition);
    if (!ka || !kb || ka[0] !== kb[0] || ka[1] !== kb[1] || !same(a.Resource, b.Resource))
      return false;
    a.Condition = { [ka[0]]: { [ka[1]]: union(ka[2], kb[2]) } };
  }
  if (!into.why.includes(next.why)) into.why = `${into.why} ${next.why}`;
  return true;
}

/**
 * Merges the statements that grant the same actions: the merged one keeps the first's Sid
 * without its number (unless two statements left keep the same name) and every reason.
 * @example mergeStatements([write1, write2]) // one StowageWrite with both resources
 */
export function mergeStatements(pairs: readonly Explained[]): Explained[] {
  const out: Explained[] = [];
  for (const p of pairs) {
    const copy: Explained = { st: structuredClone(p.st), why: p.why };
    if (!out.some((o) => fold(o, copy))) out.push(copy);
  }
  const count = new Map<string, number>();
  for (const o of out) count.set(baseSid(o.st.Sid), (count.get(baseSid(o.st.Sid)) ?? 0) + 1);
  const seen = new Map<string, number>();
  for (const o of out) {
    const base = baseSid(o.st.Sid);
    const i = (seen.get(base) ?? 0) + 1;
    seen.set(base, i);
    o.st.Sid = count.get(base) === 1 ? base : `${base}${i}`;
  }
  return out;
}

/**
 * The policy's size as IAM counts it: characters without whitespace.
 * @example policySize(policy) // 1187
 */
export function policySize(policy: IamPolicy): number {
  return JSON.stringify(policy).length;
}

/**
 * One sentence per IAM limit the policy is over (none when it fits them all).
 * @example policySizeWarnings(policy) // ["6,474 characters: over the 6,144 of a customer managed policy", …]
 */
export function policySizeWarnings(policy: IamPolicy): string[] {
  const size = policySize(policy);
  return IAM_POLICY_LIMITS.filter((l) => size > l.chars).map(
    (l) =>
      `${size.toLocaleString("en-US")} characters (whitespace not counted, as IAM counts): over the ${l.chars.toLocaleString("en-US")} of ${l.what}`,
  );
}
