/**
 * Reads one v1 object of a claim through the reader's bounded gunzip (`reader/bounded-gunzip`,
 * the same decode and caps as `stowage logs` and Studio) and applies the reader's rules: a
 * foreign `stowage-format` or an object over the per-object caps gives no line; a body whose
 * bytes fail the stored SHA-256, or whose line count is not its `records` metadata, gives no
 * line (it was altered); a truncated or corrupt gzip gives its complete lines. A damaged body
 * is downloaded once more first (one byte flipped in flight reads like stored corruption).
 *
 * The whole object's lines are held (≤ 25 MiB decoded, the reader's cap) so that a retry
 * after a body broke half-way starts over without handing out a line twice; they are held
 * as bytes (`line-arena.ts`), decoded only when a line is turned into a row.
 */
import { FORMAT_VERSION_VALUE, META } from "../v1-format/object-key.js";
import { gunzipLines } from "../reader/bounded-gunzip.js";
import { StowageError, isStowageError } from "../shared/errors.js";
import { OBJECT_MAX_COMPRESSED_BYTES, OBJECT_MAX_DECODED_BYTES } from "../shared/object-limits.js";
import { withRetry } from "../store/retry-policy.js";
import type { SourceRef, SourceStatus } from "./manifest.js";
import type { StoreCalls } from "./store-calls.js";
import { LineArena, type ArenaPool } from "./line-arena.js";

export interface SourceLines {
  status: SourceStatus;
  detail?: string;
  checksumSha256?: string;
  /** Non-blank lines with their 1-based line number in the body (`lineNos`). */
  lines: LineArena;
}

const MiB = 1024 * 1024;
/** The first allocation for an object's lines at most (its metadata's size is only a claim). */
const FIRST_ALLOCATION_MAX = 4 * MiB;

const none = () => new LineArena(0, 1);

/**
 * `buf[start, end)` holds only whitespace as `String#trim` sees it (such lines were never
 * records: they are neither rows nor rejects). ASCII decides at once; a line with other
 * bytes is decoded and trimmed.
 */
function blank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    if (c === 32 || (c >= 9 && c <= 13)) continue;
    if (c < 0x80) return false;
    return buf.toString("utf8", start, end).trim() === "";
  }
  return true;
}

/** Thrown when a claimed source is gone or was replaced: the claim cannot be completed. */
export class SourceGone extends StowageError {
  constructor(
    readonly key: string,
    why: string,
  ) {
    super("precondition", `${key}: ${why}`);
  }
}

/** One GET and decode; throws on network failures (retried by the caller). */
async function readOnce(
  calls: StoreCalls,
  src: SourceRef,
  pool: ArenaPool | undefined,
): Promise<SourceLines> {
  const res = await calls.raw.get(src.key, {
    ...(src.etag ? { ifMatch: src.etag } : {}),
    signal: calls.signal,
  });
  const sum = res.checksumSha256 ? { checksumSha256: res.checksumSha256 } : {};
  const format = res.metadata[META.format];
  const declared = Number(res.metadata[META.decodedBytes]);
  const refuse = (status: SourceStatus, detail: string): SourceLines => {
    res.body.on("error", () => {});
    res.body.destroy();
    return { status, detail, lines: none(), ...sum };
  };
  if (format !== undefined && format !== FORMAT_VERSION_VALUE)
    return refuse("foreign-format", `metadata ${META.format}=${format.slice(0, 20)}`);
  if (res.size > OBJECT_MAX_COMPRESSED_BYTES || declared > OBJECT_MAX_DECODED_BYTES)
    return refuse(
      "too-large",
      `over the reader's per-object cap of ${OBJECT_MAX_DECODED_BYTES / MiB} MiB`,
    );
  const hint =
    Number.isSafeInteger(declared) && declared > 0
      ? Math.min(declared, FIRST_ALLOCATION_MAX)
      : 64 * 1024;
  const lines = pool ? pool.take(hint) : new LineArena(hint);
  let lineNo = 0;
  const outcome = await gunzipLines(res.body, {
    maxCompressedBytes: OBJECT_MAX_COMPRESSED_BYTES,
    maxDecodedBytes: OBJECT_MAX_DECODED_BYTES,
    // zlib allocates a fresh output chunk as each fills (and one per object at the start):
    // 64 KiB is a quarter of the bytes a 256 KiB chunk churned, for the same CPU here.
    chunkBytes: 64 * 1024,
    onLineBytes(buf, start, end) {
      lineNo++;
      if (!blank(buf, start, end)) lines.push(buf, start, end, lineNo);
      return true;
    },
  });
  lines.seal(); // the chunks' lines are copied: nothing refers to zlib's buffers any more
  switch (outcome.kind) {
    case "end": {
      const promised = Number(res.metadata[META.records]);
      if (Number.isInteger(promised) && promised !== lines.count)
        return {
          status: "altered",
          detail: `the body holds ${lines.count} lines, its records metadata says ${promised}`,
          lines: none(),
          ...sum,
        };
      return { status: "ok", lines, ...sum };
    }
    case "checksum":
      return { status: "checksum", detail: outcome.message, lines: none(), ...sum };
    case "truncated":
    case "corrupt-gzip":
      return {
        status: outcome.kind,
        detail: `${outcome.message}; ${lines.count} complete lines recovered`,
        lines,
        ...sum,
      };
    case "too-large":
      return {
        status: "too-large",
        detail: `more than ${outcome.limit} bytes ${outcome.which}`,
        lines: none(),
        ...sum,
      };
    case "stopped":
      throw new StowageError("internal", `decoding ${src.key} stopped without being asked to`);
  }
}

/**
 * `pool`: where the lines' arena comes from (give it back once the lines are used).
 * @example const { status, lines } = await readSourceLines(calls, { key, etag, size });
 */
export async function readSourceLines(
  calls: StoreCalls,
  src: SourceRef,
  pool?: ArenaPool,
): Promise<SourceLines> {
  for (let download = 1; ; download++) {
    let read: SourceLines;
    try {
      read = await withRetry(() => readOnce(calls, src, pool), calls.policy, {
        signal: calls.signal,
      });
    } catch (err) {
      if (isStowageError(err, "not-found"))
        throw new SourceGone(src.key, "deleted after it was claimed");
      if (isStowageError(err, "precondition"))
        throw new SourceGone(
          src.key,
          `replaced after it was claimed (ETag ${src.etag} no longer matches)`,
        );
      throw err;
    }
    const damaged =
      read.status === "checksum" || read.status === "truncated" || read.status === "corrupt-gzip";
    if (!damaged || download === 2) return read;
  }
}
