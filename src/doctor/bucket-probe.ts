/**
 * Doctor's bucket probe (SPEC §2.5 item 3): the bucket answers HeadBucket in
 * the configured region; when HEAD fails, a LIST names the precise error (HEAD
 * answers carry no error code) or shows the bucket reachable for a
 * least-privilege role.
 */
import type { ResolvedS3Destination } from "../config/destination.js";
import { classifyError } from "../store/classify-error.js";
import { headBucket } from "../store/open-store.js";
import { arnOf } from "./diagnose.js";
import { failureOf, OK, type ProbeContext } from "./probe-context.js";
import type { CheckOutcome } from "./types.js";

/** The `Destination S3(<bucket>)` check. */
export async function bucketProbe(
  ctx: ProbeContext,
  dest: ResolvedS3Destination,
): Promise<CheckOutcome> {
  try {
    const found = await headBucket(ctx.store, {
      signal: ctx.signal,
      timeoutMs: ctx.requestTimeoutMs,
    });
    if (!dest.endpoint && found.region && dest.region && found.region !== dest.region)
      return {
        ok: false,
        category: "wrong region",
        detail: `the bucket is in ${found.region}, the config says ${dest.region}`,
        hint: `set region: ${found.region}`,
      };
    return OK;
  } catch (err) {
    return headRefused(ctx, dest, err);
  }
}

/**
 * A LIST also passes for the least-privilege roles of `stowage policy`, whose s3:ListBucket is
 * conditioned on a prefix (probe folder for writers, v1/ for readers; HeadBucket has none, so it
 * gets 403): the bucket is reachable then.
 */
async function headRefused(
  ctx: ProbeContext,
  dest: ResolvedS3Destination,
  err: unknown,
): Promise<CheckOutcome> {
  let listed: unknown;
  for (const sub of [".stowage-doctor/", "v1/", ""]) {
    listed = await ctx.store
      .list({ prefix: `${ctx.prefixPath}${sub}`, maxKeys: 1, signal: ctx.signal })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    if (listed === undefined) break;
  }
  const { status } = classifyError(err);
  if (listed === undefined && status === 403) return OK;
  const outcome = failureOf(ctx, listed ?? err, { action: "s3:ListBucket", resource: arnOf(dest) });
  if (status === 404 && outcome.category !== "bucket not found")
    outcome.category = "bucket not found";
  return outcome;
}
