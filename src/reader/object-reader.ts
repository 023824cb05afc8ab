/**
 * Reads one v1 object under a grant (SPEC §5.2): from the cache, or by GET with
 * If-Match and counted retries, through the bounded gunzip, cut at the grant's
 * allowances, and resumable at a line.
 * Invariants:
 * - line numbers count non-blank lines, the same whether read from storage or the cache;
 * - a GET is started only when the listed size fits the grant's remaining download
 *   allowance and the per-object cap; every attempt is charged before it is sent;
 * - records are charged only for lines returned; decoded bytes for every line decoded;
 * - an object over a cap returns no lines (reported, not loaded);
 * - a body that fails its checksum or its gzip decode is downloaded once more before it
 *   is reported: one byte flipped in flight reads exactly like stored corruption
 *   (issue 31 §2); it is a retryable failure of its GET, so the second GET waits and is
 *   charged like any retry (the one retry loop, store/retry-policy.ts);
 * - an object its GET cannot vouch for (no stored SHA-256; no lock, or a shorter one,
 *   where the config asks for one) is read as usual and marked `unverified`.
 */
import type { GetResult, ObjectStore } from "../store/object-store.js";
import { ClassifiedFailure } from "../store/classify-error.js";
import { isStowageError } from "../shared/errors.js";
import { META, FORMAT_VERSION_VALUE, parseObjectKey } from "../v1-format/object-key.js";
import { lockProblems, lockUntil } from "../store/object-lock.js";
import { gunzipLines, type GunzipOutcome } from "./bounded-gunzip.js";
import type { AheadGet } from "./get-ahead.js";
import type { Allowance, Grant } from "./grant.js";
import { heldCost, MAX_CACHED_LINES, type ObjectCache } from "./object-cache.js";
import { OBJECT_MAX_COMPRESSED_BYTES, OBJECT_MAX_DECODED_BYTES } from "./limits.js";
import { attemptUnderGrant, describeRetry, storageFailure } from "./read-errors.js";
import type { SkippedObject, VerificationOptions } from "./types.js";

export interface ObjectTarget {
  key: string;
  etag: string;
  size: number;
}

export interface ReadContext {
  store: ObjectStore;
  cache: ObjectCache;
  grant: Grant;
  retryBackoffMs: number;
  signal?: AbortSignal | undefined;
  /** Receives a short note on each retried failure (no secrets). */
  onRetry(note: string): void;
  /** The source's key prefix and what its objects are checked against (unverified marks). */
  prefix?: string;
  verification?: VerificationOptions;
}

/** `next` is null when the object is finished; otherwise the grant ran out (`by`) and it resumes there. */
export interface ObjectOutcome {
  lines: string[];
  next: number | null;
  by?: Allowance;
  problem?: SkippedObject;
  cached?: boolean;
  /** Why the returned lines are unverified (UnverifiedObject); absent when the object is. */
  unverified?: string[];
  /** The body failed its checksum or gzip decode and nothing was used: GET it again. */
  damaged?: boolean;
}

const MiB = 1024 * 1024;
const mib = (n: number) => `${(n / MiB).toFixed(1)} MiB`;
const skip = (key: string, reason: SkippedObject["reason"], detail: string): ObjectOutcome => ({
  lines: [],
  next: null,
  problem: { key, reason, detail },
});

/** A body that failed its checksum or gzip decode: bytes damaged in flight read like stored corruption. */
const BODY_DAMAGED = "BodyDamagedInFlight";

/**
 * @example const out = await readObject(ctx, { key, etag, size }, cursorLine);
 */
export async function readObject(
  ctx: ReadContext,
  target: ObjectTarget,
  startLine: number,
  ahead?: AheadGet,
): Promise<ObjectOutcome> {
  const { grant } = ctx;
  const hit = ahead ? undefined : ctx.cache.get(target.key, target.etag); // callers drop `ahead` on a hit
  if (ahead) grant.release(ahead.reserved);
  if (hit) {
    grant.stats.objectsCached++;
    const out = takeRecords(grant, hit.lines, startLine, hit.problem, true);
    return hit.unverified ? { ...out, unverified: [...hit.unverified] } : out;
  }
  if (target.size > OBJECT_MAX_COMPRESSED_BYTES) {
    return skip(
      target.key,
      "too-large",
      `${mib(target.size)} compressed is over the ${mib(OBJECT_MAX_COMPRESSED_BYTES)} per-object cap`,
    );
  }
  if (target.size > grant.limits.downloadBytes) {
    return skip(
      target.key,
      "too-large",
      `${mib(target.size)} compressed is over the grant's download allowance of ${mib(grant.limits.downloadBytes)}; raise limits.downloadBytes`,
    );
  }
  const what = `GET ${target.key}`;
  let damaged = false;
  const out = await attemptUnderGrant(
    async (attempt) => {
      const sent = attempt === 1 ? ahead?.settled : undefined; // already charged when it was sent
      const res = sent
        ? unwrap(await sent)
        : await ctx.store.get(target.key, getOptions(ctx, target));
      const got = await decodeObject(ctx, target, startLine, res, !damaged);
      if (!got.damaged) return got;
      damaged = true;
      throw new ClassifiedFailure({
        kind: "retryable",
        category: "other",
        code: BODY_DAMAGED,
        message: `${what}: the body failed its checksum or gzip check`,
      });
    },
    {
      retryBackoffMs: ctx.retryBackoffMs,
      signal: ctx.signal,
      stats: grant.stats,
      charge: (attempt): ObjectOutcome | undefined => {
        if (attempt === 1 && ahead) return undefined;
        if (!grant.has("downloadBytes", target.size))
          return { lines: [], next: startLine, by: "downloadBytes" };
        if (!grant.take("getAttempts")) return { lines: [], next: startLine, by: "getAttempts" };
        return undefined;
      },
      onRetry: (c) =>
        ctx.onRetry(
          c.code === BODY_DAMAGED
            ? `${what}: the body failed its checksum or gzip check; downloading it again`
            : describeRetry(c, what),
        ),
    },
  );
  if (out.ok) return out.value;
  const err = out.cause;
  if (isStowageError(err, "precondition"))
    return skip(
      target.key,
      "changed",
      `the object changed after it was listed (ETag ${target.etag} no longer matches); load again`,
    );
  if (isStowageError(err, "not-found"))
    return skip(target.key, "error", "the object was deleted after it was listed");
  throw storageFailure(err, what, ctx.store.description);
}

const getOptions = (ctx: ReadContext, target: ObjectTarget) => ({
  ...(target.etag ? { ifMatch: target.etag } : {}),
  signal: ctx.signal,
});

function unwrap(out: { res: GetResult } | { err: unknown }): GetResult {
  if ("err" in out) throw out.err;
  return out.res;
}

/**
 * One GET response: metadata checks, then the streamed decode. Network failures throw (retried by the caller).
 * A `startLine` past the end (Infinity) returns no lines and charges no records: the object only fills the cache.
 * With `retryDamaged`, a body failing its checksum or gzip decode returns `damaged` (nothing used, nothing cached).
 */
export async function decodeObject(
  ctx: ReadContext,
  target: ObjectTarget,
  startLine: number,
  res: GetResult,
  retryDamaged = false,
): Promise<ObjectOutcome> {
  const { grant } = ctx;
  const format = res.metadata[META.format];
  const declared = Number(res.metadata[META.decodedBytes]);
  if (
    (format !== undefined && format !== FORMAT_VERSION_VALUE) ||
    declared > OBJECT_MAX_DECODED_BYTES
  ) {
    res.body.on("error", () => {});
    res.body.destroy();
    return format !== undefined && format !== FORMAT_VERSION_VALUE
      ? skip(
          target.key,
          "foreign-format",
          `metadata ${META.format}=${format.slice(0, 20)}; only format 1 is read`,
        )
      : skip(
          target.key,
          "too-large",
          `${mib(declared)} decoded (from its metadata) is over the ${mib(OBJECT_MAX_DECODED_BYTES)} per-object cap`,
        );
  }

  // `lines` holds line `base` onwards: the whole object while it may still go to the cache
  // (`keep`), else only the lines of the answer. A line costs its bytes plus LINE_HEAP_BYTES:
  // once the cache could not take the object, lines past the records cut are not decoded,
  // whatever its `decoded-bytes` metadata said.
  let keep = ctx.cache.accepts(Number.isFinite(declared) ? declared : 0);
  let lines: string[] = [];
  let base = keep ? 0 : startLine;
  let index = 0;
  let cutAt: number | null = null;
  let outOfDecoded = false;
  let decoded = 0;
  const stopKeeping = (): void => {
    keep = false;
    const drop = Math.min(lines.length, Math.max(0, startLine - base));
    lines = lines.slice(drop);
    base = Number.isFinite(startLine) ? Math.max(base, startLine) : index;
  };
  const outcome: GunzipOutcome = await gunzipLines(res.body, {
    maxCompressedBytes: Math.min(OBJECT_MAX_COMPRESSED_BYTES, grant.remaining("downloadBytes")),
    maxDecodedBytes: OBJECT_MAX_DECODED_BYTES,
    onCompressed: (n) => grant.charge("downloadBytes", n),
    onLine(line, bytes) {
      if (!grant.has("decodedBytes", bytes)) {
        // Past a records cut only the cache tail is lost; otherwise the object waits for the next grant.
        if (cutAt === null) outOfDecoded = true;
        return false;
      }
      grant.charge("decodedBytes", bytes);
      decoded += bytes;
      if (line.trim() === "") return true;
      const i = index++;
      if (cutAt === null && i >= startLine && i - startLine >= grant.remaining("records")) {
        cutAt = i;
        if (!keep) return false;
      }
      if (keep && (i >= MAX_CACHED_LINES || heldCost(decoded, i + 1) > ctx.cache.entryBudget)) {
        stopKeeping();
        if (cutAt !== null || !Number.isFinite(startLine)) return false; // only the cache wanted the rest
      }
      if (keep || i >= startLine) lines.push(line);
      return true;
    },
  });
  if (
    retryDamaged &&
    (outcome.kind === "checksum" || outcome.kind === "corrupt-gzip" || outcome.kind === "truncated")
  )
    return { lines: [], next: startLine, damaged: true };
  grant.stats.objectsRead++;
  const unverified = unverifiedProblems(ctx, target.key, res);
  const finished =
    outcome.kind === "end" || outcome.kind === "truncated" || outcome.kind === "corrupt-gzip";
  const problem: SkippedObject | undefined =
    outcome.kind === "truncated" || outcome.kind === "corrupt-gzip"
      ? {
          key: target.key,
          reason: outcome.kind,
          detail: `${outcome.message}; ${index} complete lines recovered`,
        }
      : undefined;
  if (outcome.kind === "checksum")
    // Altered bytes: the object is corrupt; none of its lines become records (docs/retention.md).
    return skip(target.key, "checksum", outcome.message.replace(`${target.key}: `, ""));
  const promised = Number(res.metadata[META.records]);
  if (outcome.kind === "end" && Number.isInteger(promised) && promised !== index)
    // A whole object whose line count is not its `records` metadata was replaced or altered
    // after it was written (e.g. overwritten without a checksum): corrupt, no records.
    return skip(
      target.key,
      "checksum",
      `the body holds ${index} lines, its records metadata says ${promised}: the object was altered after it was written`,
    );
  if (outcome.kind === "too-large") {
    const limit =
      outcome.which === "compressed" ? OBJECT_MAX_COMPRESSED_BYTES : OBJECT_MAX_DECODED_BYTES;
    if (outcome.which === "compressed" && outcome.limit < limit)
      return { lines: [], next: startLine, by: "downloadBytes" };
    return skip(
      target.key,
      "too-large",
      `more than ${mib(limit)} ${outcome.which}, over the per-object cap; decoding stopped there`,
    );
  }
  if (outOfDecoded) {
    // Lines of an object are returned only once it decoded within the caps, so an
    // oversized object never leaks records; it is decoded again, whole, by the next grant.
    if (grant.progressed) return { lines: [], next: startLine, by: "decodedBytes" };
    return skip(
      target.key,
      "too-large",
      `needs more than the grant's decoded allowance of ${mib(grant.limits.decodedBytes)}; raise limits.decodedBytes`,
    );
  }
  if (finished && keep)
    ctx.cache.set(target.key, target.etag, {
      lines,
      decodedBytes: decoded,
      ...(problem ? { problem } : {}),
      ...(unverified.length ? { unverified } : {}),
    });
  if (!Number.isFinite(startLine)) return { lines: [], next: null };
  const got = lines.slice(startLine - base, (cutAt ?? index) - base);
  chargeRecords(grant, got.length);
  const marks = unverified.length ? { unverified } : {};
  if (cutAt !== null) return { lines: got, next: cutAt, by: "records", ...marks };
  grant.progressed = true;
  return { lines: got, next: null, ...(problem ? { problem } : {}), cached: false, ...marks };
}

/**
 * What `stowage verify` would flag from this GET alone: no stored SHA-256 (every Stowage
 * PUT sends one), and with the config's lock, none or a weaker one (object-lock.ts).
 */
function unverifiedProblems(ctx: ReadContext, key: string, res: GetResult): string[] {
  const out: string[] = [];
  if (!res.checksumSha256)
    out.push(
      "no SHA-256 checksum is stored (Stowage always sends one: written or replaced outside Stowage)",
    );
  const lock = ctx.verification?.objectLock;
  const parts = lock ? parseObjectKey(key, ctx.prefix ?? "") : null;
  if (lock && parts) out.push(...lockProblems(res, lockUntil(parts.hourMs, lock), lock));
  return out;
}

/** Returns lines from `startLine` up to the records allowance, charging them. */
function takeRecords(
  grant: Grant,
  all: readonly string[],
  startLine: number,
  problem: SkippedObject | undefined,
  cached: boolean,
): ObjectOutcome {
  const room = grant.remaining("records");
  const rest = all.length - startLine;
  if (rest > room) {
    const got = all.slice(startLine, startLine + room);
    chargeRecords(grant, got.length);
    return { lines: got, next: startLine + room, by: "records", cached };
  }
  const got = all.slice(startLine);
  chargeRecords(grant, got.length);
  grant.progressed = true;
  return { lines: got, next: null, ...(problem ? { problem } : {}), cached };
}

function chargeRecords(grant: Grant, n: number): void {
  if (n > 0) {
    grant.charge("records", n);
    grant.progressed = true;
  }
}
