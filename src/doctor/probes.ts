/**
 * The per-destination checks of SPEC §2.5, in order: credentials resolve (and
 * from where), bucket reachable in the right region (HeadBucket), write probe,
 * conditional create (412/304), ordered paginated list, HeadObject, GetObject
 * If-Match (right ETag reads, wrong one 412), retention, cleanup. Each probe is
 * its own function with its own result; this module runs them in order and
 * assembles the results. A failure stops the checks that depend on it; the
 * probe objects are always deleted when allowed.
 */
import { describeEndpoint } from "../config/providers.js";
import { describeCredentials } from "../store/credentials.js";
import { bucketProbe } from "./bucket-probe.js";
import { checkCredentials } from "./credentials-check.js";
import {
  closeProbeContext,
  OK,
  openProbeContext,
  type ProbeContext,
  type ProbeOptions,
} from "./probe-context.js";
import { conditionalReadProbe, headProbe, orderedListProbe } from "./read-probes.js";
import { retentionChecks } from "./retention-checks.js";
import type { CheckOutcome, CheckResult, DoctorTarget } from "./types.js";
import {
  cleanupProbe,
  conditionalCreateProbe,
  writeProbe,
  writeProbeName,
} from "./write-probes.js";

/** Adds one result under its printed name; says whether it passed. */
type Add = (name: string, outcome: CheckOutcome) => boolean;

/** Runs every check for one target; returns them in print order. */
export async function probeTarget(
  target: DoctorTarget,
  options: ProbeOptions,
): Promise<CheckResult[]> {
  const dest = target.destination;
  const suffix = target.label ? ` [${target.label}]` : "";
  const results: CheckResult[] = [];
  const add: Add = (name, outcome) => {
    results.push({ name: name + suffix, ...outcome });
    return outcome.ok;
  };
  if (dest.type === "s3") {
    const credentials = await checkCredentials(dest, options.env);
    if (!add(`Credentials (${describeCredentials(dest.credentials)})`, credentials)) return results;
    add(`Endpoint ${describeEndpoint(dest)}`, OK);
  }
  const ctx = openProbeContext(target, options);
  try {
    if (await storeProbes(ctx, add))
      results.push(...(await retentionChecks(target, ctx.store, ctx.signal, suffix)));
  } finally {
    const cleanup = await cleanupProbe(ctx);
    if (cleanup) add("Cleanup (DeleteObject)", cleanup);
    closeProbeContext(ctx);
  }
  return results;
}

/** Bucket, write, conditional create, list, head and conditional read; false when one stopped the rest. */
async function storeProbes(ctx: ProbeContext, add: Add): Promise<boolean> {
  const dest = ctx.dest;
  if (dest.type === "s3") {
    if (!add(`Destination S3(${dest.bucket})`, await bucketProbe(ctx, dest))) return false;
  }
  const written = await writeProbe(ctx);
  // A local store has no bucket: writing into it is what shows the destination usable.
  if (dest.type === "local" && !add(`Destination Local(${dest.path})`, written)) return false;
  if (!add(writeProbeName(ctx), written)) return false;
  if (ctx.capabilities) {
    add("Conditional create (second PUT answers 412)", await conditionalCreateProbe(ctx));
    add("List (ListObjectsV2 ordered, paginated)", await orderedListProbe(ctx));
  }
  const head = await headProbe(ctx);
  add("HeadObject", head.outcome);
  if (ctx.capabilities)
    add("Conditional read (GetObject If-Match)", await conditionalReadProbe(ctx, head.etag));
  return true;
}
