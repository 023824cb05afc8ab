/**
 * Bounded streaming decode of one v1 body (SPEC §5.2): gzip → NDJSON lines,
 * never buffering a whole object, cut off at a compressed and a decoded cap, or
 * whenever the line consumer says stop.
 * Invariants:
 * - at most one zlib output chunk (16 KiB, or `chunkBytes`) plus one partial line is held beyond
 *   what the consumer has taken; compressed bytes are counted as they arrive;
 * - truncated or corrupt gzip is an outcome, not an exception; only failures of
 *   the body stream itself (network) are thrown, so the caller can retry them;
 * - on corrupt gzip, the complete lines of the members before the fault are still
 *   delivered (bodies up to 4 MiB compressed are kept while decoding for this).
 */
import { isStowageError } from "../shared/errors.js";
import { Transform, type Readable } from "node:stream";
import { createGunzip, inflateRawSync } from "node:zlib";

export type GunzipOutcome =
  | { kind: "end" }
  | { kind: "stopped" }
  | { kind: "too-large"; which: "compressed" | "decoded"; limit: number }
  | { kind: "truncated"; message: string }
  | { kind: "corrupt-gzip"; message: string }
  /** The bytes differ from the object's stored SHA-256 (store/checksum.ts): no line may be used. */
  | { kind: "checksum"; message: string };

export interface GunzipLinesOptions {
  maxCompressedBytes: number;
  maxDecodedBytes: number;
  /** Called per complete line (newline excluded; `bytes` includes it). Return false to stop. */
  onLine?(line: string, bytes: number): boolean;
  /**
   * Instead of `onLine`: the line's undecoded bytes, `buf[start, end)` (newline excluded).
   * `buf` is never written again once handed out (zlib fills a fresh Buffer for each output
   * chunk; a line split across chunks is joined into a new one), so a consumer may keep a
   * reference and copy later (compaction copies a chunk's lines in one call, keeping whole
   * objects off the JS heap). Return false to stop.
   */
  onLineBytes?(buf: Buffer, start: number, end: number): boolean;
  /** Called with every compressed chunk's size as it arrives (download accounting). */
  onCompressed?(bytes: number): void;
  /** A body that sends nothing for this long is abandoned as a retryable timeout. Default 10,000 ms. */
  idleTimeoutMs?: number;
  /**
   * zlib's output chunk (default 16 KiB). A bulk reader of whole objects (compaction) takes
   * larger ones: each chunk costs a round trip to the zlib thread and its stream callbacks.
   */
  chunkBytes?: number;
}

class CapExceeded extends Error {
  constructor(
    readonly which: "compressed" | "decoded",
    readonly limit: number,
  ) {
    super(`${which} size exceeds ${limit} bytes`);
  }
}

const NEWLINE = 0x0a;
/** Objects up to this size compressed keep their bytes while decoding, to recover a corrupt tail. */
const RECOVER_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The output of the complete gzip members at the start of `buf` (valid
 * members followed by garbage keep their lines). Null when not even one member decodes.
 */
function completeMembers(buf: Buffer, maxOutputLength: number): Buffer | null {
  const out: Buffer[] = [];
  let size = 0;
  for (let off = 0; off + 18 <= buf.length && buf[off] === 0x1f && buf[off + 1] === 0x8b;) {
    const flags = buf[off + 3]!;
    let p = off + 10;
    if (flags & 4) p += 2 + buf.readUInt16LE(p); // FEXTRA
    if (flags & 8) p = buf.indexOf(0, p) + 1; // FNAME
    if (flags & 16) p = buf.indexOf(0, p) + 1; // FCOMMENT
    if (flags & 2) p += 2; // FHCRC
    if (p <= off || p > buf.length) break;
    try {
      const r = inflateRawSync(buf.subarray(p), {
        info: true,
        maxOutputLength: Math.max(1, maxOutputLength - size),
      }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
      out.push(r.buffer);
      size += r.buffer.length;
      off = p + r.engine.bytesWritten + 8; // CRC32 + ISIZE
    } catch {
      break;
    }
  }
  return out.length ? Buffer.concat(out) : null;
}

/**
 * Streams `body` through gunzip and hands out lines until the end, a cap, or a stop.
 * @example
 * const outcome = await gunzipLines(res.body, { maxCompressedBytes, maxDecodedBytes, onLine: (l) => (lines.push(l), true) });
 */
export async function gunzipLines(
  body: Readable,
  options: GunzipLinesOptions,
): Promise<GunzipOutcome> {
  const { onLine, onLineBytes } = options;
  if (!onLine === !onLineBytes)
    throw new TypeError("gunzipLines: give exactly one of onLine and onLineBytes");
  // A body sent ahead may have failed while it waited: piping a destroyed stream would never end.
  if (body.errored) throw body.errored;
  if (body.destroyed)
    throw Object.assign(new Error("the response body closed before it was read"), {
      code: "ECONNRESET",
    });
  let compressed = 0;
  // Compressed bytes kept (small objects only) to recover the members before a corrupt tail.
  let retained: Buffer[] | null = [];
  const idleMs = options.idleTimeoutMs ?? 10_000;
  const idle = setTimeout(
    () =>
      body.destroy(
        Object.assign(new Error(`no body bytes for ${idleMs} ms`), { code: "ETIMEDOUT" }),
      ),
    idleMs,
  );
  idle.unref?.();
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      idle.refresh();
      compressed += chunk.length;
      options.onCompressed?.(chunk.length);
      if (retained) {
        if (compressed <= RECOVER_MAX_BYTES) retained.push(chunk);
        else retained = null;
      }
      if (compressed > options.maxCompressedBytes)
        cb(new CapExceeded("compressed", options.maxCompressedBytes));
      else cb(null, chunk);
    },
  });
  const gunzip = createGunzip(options.chunkBytes ? { chunkSize: options.chunkBytes } : {});
  const fail = (err: Error) => gunzip.destroy(err);
  body.once("error", fail);
  counter.once("error", fail);
  body.pipe(counter).pipe(gunzip);

  let decoded = 0;
  let partial: Buffer[] = [];
  let partialBytes = 0;
  /** One line to the consumer, as bytes or as text (`bytes` counts its newline). */
  const deliver = (buf: Buffer, start: number, end: number, bytes: number): boolean =>
    onLineBytes ? onLineBytes(buf, start, end) : onLine!(buf.toString("utf8", start, end), bytes);
  /** Splits decoded bytes into lines for the consumer; false when it said stop. */
  const feed = (chunk: Buffer): boolean => {
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      const bytes = partialBytes + (nl - start) + 1;
      let ok: boolean;
      if (partialBytes > 0) {
        partial.push(chunk.subarray(start, nl));
        const whole = Buffer.concat(partial);
        partial = [];
        partialBytes = 0;
        ok = deliver(whole, 0, whole.length, bytes);
      } else ok = deliver(chunk, start, nl, bytes);
      start = nl + 1;
      if (!ok) return false;
    }
    if (start < chunk.length) {
      partial.push(chunk.subarray(start));
      partialBytes += chunk.length - start;
    }
    return true;
  };
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      decoded += chunk.length;
      if (decoded > options.maxDecodedBytes)
        return { kind: "too-large", which: "decoded", limit: options.maxDecodedBytes };
      if (!feed(chunk)) return { kind: "stopped" };
    }
    // A last line without its newline: v1 bodies end with "\n", but be lenient.
    if (partialBytes > 0) {
      const whole = Buffer.concat(partial);
      if (!deliver(whole, 0, whole.length, partialBytes)) return { kind: "stopped" };
    }
    return { kind: "end" };
  } catch (err) {
    if (err instanceof CapExceeded)
      return { kind: "too-large", which: err.which, limit: err.limit };
    if (isStowageError(err, "integrity")) return { kind: "checksum", message: err.message };
    const code = (err as NodeJS.ErrnoException).code ?? "";
    if (code === "Z_BUF_ERROR") return { kind: "truncated", message: (err as Error).message };
    if (code.startsWith("Z_") || code === "ERR_ZLIB_INITIALIZATION_FAILED") {
      // zlib drops the output of the write that met the fault: decode the complete members
      // again from the bytes kept, and hand out the complete lines not yet delivered.
      const kept = retained ? Buffer.concat(retained) : null;
      const again = kept ? completeMembers(kept, options.maxDecodedBytes) : null;
      if (again && again.length > decoded && !feed(again.subarray(decoded)))
        return { kind: "stopped" };
      return { kind: "corrupt-gzip", message: (err as Error).message };
    }
    throw err;
  } finally {
    clearTimeout(idle);
    body.off("error", fail);
    body.on("error", () => {}); // destroying a half-read HTTP body may report "aborted"
    body.unpipe(counter);
    counter.unpipe(gunzip);
    if (!body.destroyed) body.destroy();
    counter.destroy();
    gunzip.destroy();
  }
}
