/**
 * Doctor's read-side probes (SPEC §2.4, §2.5 item 5): ordered, paginated
 * ListObjectsV2, HeadObject, and GetObject with If-Match — on the probe objects
 * of a destination (the `…Probe(ctx)` forms), or on any store and key.
 */
import { isStowageError } from "../shared/errors.js";
import { readCapped } from "../shared/read-capped.js";
import type { ObjectStore } from "../store/object-store.js";
import { arnOf } from "./diagnose.js";
import { failureOf, OK, resourceOf, type ProbeContext } from "./probe-context.js";
import type { CheckOutcome } from "./types.js";

const CAP = "capability missing" as const;

async function readAll(body: NodeJS.ReadableStream): Promise<string> {
  return (await readCapped(body, 64 * 1024, "the doctor probe object")).toString("utf8");
}

/** ListObjectsV2 with max-keys 1: two pages, in order, then no continuation. */
export async function listProbe(
  store: ObjectStore,
  prefix: string,
  keys: string[],
  signal: AbortSignal,
): Promise<CheckOutcome> {
  const seen: string[] = [];
  let token: string | undefined;
  for (let page = 0; page < 4; page++) {
    const res = await store.list({
      prefix,
      maxKeys: 1,
      signal,
      continuationToken: token,
    });
    if (res.entries.length > 1)
      return { ok: false, category: CAP, detail: `max-keys 1 returned ${res.entries.length} keys` };
    seen.push(...res.entries.map((e) => e.key));
    token = res.nextContinuationToken;
    if (!token) break;
  }
  if (seen.join("\n") !== keys.join("\n")) {
    return {
      ok: false,
      category: CAP,
      detail: `paginated listing returned ${seen.length} key(s) ${seen.length === 2 ? "out of order" : "instead of 2"}`,
      hint: "Stowage needs lexicographic ListObjectsV2 with continuation tokens (docs/doctor.md)",
    };
  }
  return { ok: true };
}

/** GetObject with the right ETag returns the bytes; with a wrong one it must answer 412. */
export async function conditionalRead(
  store: ObjectStore,
  key: string,
  etag: string,
  body: string,
  signal: AbortSignal,
): Promise<CheckOutcome> {
  const got = await store.get(key, { ...(etag ? { ifMatch: etag } : {}), signal });
  if ((await readAll(got.body)) !== body)
    return {
      ok: false,
      category: CAP,
      detail: "GetObject returned different bytes than were written",
    };
  return wrongIfMatchRefused(store, key, signal);
}

/** GetObject with an ETag the object does not have must answer 412, never the object. */
export function wrongIfMatchRefused(
  store: ObjectStore,
  key: string,
  signal: AbortSignal,
): Promise<CheckOutcome> {
  const wrong = '"00000000000000000000000000000000"';
  return store.get(key, { ifMatch: wrong, signal }).then(
    (res) => (
      res.body.resume(),
      {
        ok: false,
        category: CAP,
        detail: "GetObject with a wrong If-Match returned the object instead of 412",
        hint: "Stowage's reader needs If-Match (docs/doctor.md)",
      }
    ),
    (err: unknown) => {
      if (isStowageError(err, "precondition")) return { ok: true } as CheckOutcome;
      throw err;
    },
  );
}

/** The `List (ListObjectsV2 ordered, paginated)` check over the two probe objects. */
export function orderedListProbe(ctx: ProbeContext): Promise<CheckOutcome> {
  const { dest } = ctx;
  return listProbe(ctx.store, ctx.stem, ctx.keys, ctx.signal).catch((err: unknown) =>
    failureOf(
      ctx,
      err,
      { action: "s3:ListBucket", resource: dest.type === "s3" ? arnOf(dest) : dest.path },
      true,
    ),
  );
}

/** HeadObject on the probe: its size and an ETag (returned for the conditional read). */
export async function headProbe(
  ctx: ProbeContext,
): Promise<{ outcome: CheckOutcome; etag: string }> {
  const key = ctx.keys[0];
  const size = Buffer.byteLength(ctx.body);
  try {
    const info = await ctx.store.head(key, { signal: ctx.signal });
    if (info.size === size && info.etag) return { outcome: OK, etag: info.etag };
    return {
      etag: info.etag,
      outcome: {
        ok: false,
        category: CAP,
        detail: `HeadObject answered size ${info.size} and ETag "${info.etag}" for a ${size}-byte object`,
      },
    };
  } catch (err) {
    const outcome = failureOf(ctx, err, { action: "s3:GetObject", resource: resourceOf(ctx, key) });
    return { outcome, etag: "" };
  }
}

/** The `Conditional read (GetObject If-Match)` check on the probe, with the ETag HeadObject gave. */
export function conditionalReadProbe(ctx: ProbeContext, etag: string): Promise<CheckOutcome> {
  const key = ctx.keys[0];
  return conditionalRead(ctx.store, key, etag, ctx.body, ctx.signal).catch((err: unknown) =>
    failureOf(ctx, err, { action: "s3:GetObject", resource: resourceOf(ctx, key) }, true),
  );
}
