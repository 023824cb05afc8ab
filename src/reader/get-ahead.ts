/**
 * GETs sent ahead of the decoder (latency hiding): while one object is decoded,
 * the next few are already requested, so a load is not one round trip per object.
 * Invariants:
 * - a GET ahead is charged (one GET attempt, its listed size reserved from the
 *   download allowance) when it is SENT, so the grant's limits hold;
 * - only the response headers and the socket's first bytes wait; the body is still
 *   read by the bounded decoder, in walk order;
 * - a GET is never paid twice: one the grant's walk does not reach is FINISHED when
 *   the grant stops — its body is decoded into the immutable object cache (key + ETag),
 *   adding no record to the answer and charging no records, while its download stays
 *   within the bytes reserved for it and its decoding within the grant's remaining
 *   decoded allowance — so the next grant reads it from the cache with no request.
 *   Nothing is held across grants (no socket waits for a `more()` that may never come);
 * - when finishing cannot fit (cache disabled or too small for the object, decoded
 *   allowance left too small, aborted or failed grant, failed body) the GET is
 *   dropped: its attempt stays counted, its reservation is returned, the next grant
 *   GETs the object again. This is the only repeat, and it is bounded by the allowances.
 */
import type { GetResult, ObjectStore } from "../store/object-store.js";
import type { Grant } from "./grant.js";
import { META } from "../v1-format/object-key.js";
import { OBJECT_MAX_COMPRESSED_BYTES } from "./limits.js";
import { decodeObject, type ObjectTarget, type ReadContext } from "./object-reader.js";

export interface AheadGet {
  /** Never rejects: the response, or the error to handle as the first attempt's. */
  settled: Promise<{ res: GetResult } | { err: unknown }>;
  reserved: number;
}

/**
 * Sends a GET for `target` if the grant can pay for it; null otherwise.
 * @example target.ahead = startAhead(store, target, grant, signal) ?? undefined;
 */
export function startAhead(
  store: ObjectStore,
  target: ObjectTarget,
  grant: Grant,
  signal: AbortSignal | undefined,
): AheadGet | null {
  if (target.size > OBJECT_MAX_COMPRESSED_BYTES || target.size > grant.limits.downloadBytes)
    return null;
  if (!grant.has("getAttempts") || !grant.reserve(target.size)) return null;
  grant.take("getAttempts");
  const settled = store
    .get(target.key, {
      ...(target.etag ? { ifMatch: target.etag } : {}),
      signal,
    })
    .then(
      (res) => {
        // The body may fail while it waits (socket closed); the decoder meets that as `errored`.
        res.body.on("error", () => {});
        return { res };
      },
      (err: unknown) => ({ err }),
    );
  return { settled, reserved: target.size };
}

/** Drops a GET ahead that will not be read in this grant: frees its socket and its reservation. */
export async function dropAhead(ahead: AheadGet, grant: Grant): Promise<void> {
  grant.release(ahead.reserved);
  const out = await ahead.settled;
  if ("res" in out) {
    out.res.body.on("error", () => {});
    out.res.body.destroy();
  }
}

/**
 * Finishes a GET ahead that its grant stopped before reaching: decodes the whole body
 * into the cache under the grant's remaining allowances (no records charged or returned),
 * or drops it when that cannot fit. Never throws.
 * @example for (const obj of unreached) await finishAhead(ctx, obj, obj.ahead);
 */
export async function finishAhead(
  ctx: ReadContext,
  target: ObjectTarget,
  ahead: AheadGet,
): Promise<void> {
  const { grant, cache } = ctx;
  grant.release(ahead.reserved);
  const out = await ahead.settled;
  if (!("res" in out)) return;
  const size = Number(out.res.metadata[META.decodedBytes]);
  const known = Number.isFinite(size);
  if (
    !cache.enabled ||
    cache.get(target.key, target.etag) ||
    (known && (!cache.accepts(size) || size > grant.remaining("decodedBytes")))
  ) {
    out.res.body.destroy();
    return;
  }
  // Reads within the bytes just released (the listed size); stops at the decoded allowance.
  // A body damaged on the way is not cached as corrupt: the walk GETs it again when it gets there.
  await decodeObject(ctx, target, Number.POSITIVE_INFINITY, out.res, true).catch(() => undefined);
  if (!out.res.body.destroyed) out.res.body.destroy();
}
