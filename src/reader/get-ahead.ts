/**
 * GETs sent ahead of the decoder (latency hiding): while one object is decoded,
 * the next few are already requested, so a load is not one round trip per object.
 * Invariants:
 * - a GET ahead is charged (one GET attempt, its listed size reserved from the
 *   download allowance) when it is SENT, so the grant's limits hold;
 * - only the response headers and the socket's first bytes wait; the body is still
 *   read by the bounded decoder, in walk order;
 * - a GET ahead that the grant does not reach is dropped when the grant ends
 *   (its attempt stays counted: it was a real request; its reservation is returned).
 */
import type { GetResult, ObjectStore } from "../store/object-store.js";
import type { Grant } from "./grant.js";
import { OBJECT_MAX_COMPRESSED_BYTES } from "./limits.js";
import type { ObjectTarget } from "./object-reader.js";

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
      ...(signal ? { signal } : {}),
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
