/**
 * Doctor's write-side probes (SPEC §2.4, §2.5 items 3, 4 and 6): the probe
 * objects are written (with If-None-Match: * when capabilities are probed), a
 * second conditional PUT must answer 412, and cleanup deletes what was written.
 */
import { isStowageError } from "../shared/errors.js";
import { failureOf, OK, resourceOf, type ProbeContext } from "./probe-context.js";
import type { CheckOutcome } from "./types.js";

/** The write probe's check name: it says whether the PUT was conditional. */
export function writeProbeName(ctx: ProbeContext): string {
  return ctx.capabilities ? "Write probe (PutObject If-None-Match: *)" : "Write probe (PutObject)";
}

/** Writes the probe object(s), recording each in `ctx.written`. */
export async function writeProbe(ctx: ProbeContext): Promise<CheckOutcome> {
  const { dest, store, signal } = ctx;
  try {
    for (const k of ctx.capabilities ? ctx.keys : [ctx.keys[0]]) {
      const conditional = ctx.capabilities ? { ifNoneMatch: "*" as const } : {};
      const put = await store.put(k, ctx.body, {
        ...conditional,
        contentType: "text/plain",
        signal,
      });
      ctx.written.push(k);
      // On a versioned (Object Lock) bucket, delete the probe's version: no noncurrent copy stays.
      if (put.versionId) ctx.versions.set(k, put.versionId);
    }
    return OK;
  } catch (err) {
    if (dest.type === "local") return failureOf(ctx, err, { action: "write", resource: dest.path });
    return failureOf(
      ctx,
      err,
      { action: "s3:PutObject", resource: resourceOf(ctx, `${ctx.prefixPath}*`) },
      ctx.capabilities,
    );
  }
}

/** A second PutObject with If-None-Match: * on an existing key must answer 412. */
export function conditionalCreateProbe(ctx: ProbeContext): Promise<CheckOutcome> {
  const key = ctx.keys[0];
  return ctx.store.put(key, ctx.body, { ifNoneMatch: "*", signal: ctx.signal }).then(
    (): CheckOutcome => ({
      ok: false,
      category: "capability missing",
      detail:
        "a second PutObject with If-None-Match: * overwrote the existing probe instead of answering 412",
      hint: "this provider lacks conditional create, which exactly-once delivery depends on (docs/doctor.md)",
    }),
    (err: unknown) =>
      isStowageError(err, "exists")
        ? OK
        : failureOf(ctx, err, { action: "s3:PutObject", resource: resourceOf(ctx, key) }, true),
  );
}

/** Deletes every probe object written (by version when it has one); undefined when none was. */
export async function cleanupProbe(ctx: ProbeContext): Promise<CheckOutcome | undefined> {
  if (ctx.written.length === 0) return undefined;
  const left: string[] = [];
  let firstErr: unknown;
  for (const k of ctx.written)
    await ctx.store
      .delete(k, { signal: ctx.signal, versionId: ctx.versions.get(k) })
      .catch((err: unknown) => (left.push(k), (firstErr ??= err)));
  if (left.length === 0) return OK;
  const f = failureOf(ctx, firstErr, {
    action: "s3:DeleteObject",
    resource: resourceOf(ctx, `${ctx.prefixPath}.stowage-doctor/*`),
  });
  return {
    ...f,
    detail: `could not delete the probe; left behind: ${left.join(", ")} (${f.detail})`,
    hint: `${f.hint ?? ""} Delete the leftover key(s) by hand.`.trim(),
  };
}
