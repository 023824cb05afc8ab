/**
 * Bounded streaming decode of one v1 body (SPEC §5.2): gzip → NDJSON lines,
 * never buffering a whole object, cut off at a compressed and a decoded cap, or
 * whenever the line consumer says stop.
 * Invariants:
 * - at most one zlib output chunk (16 KiB) plus one partial line is held beyond
 *   what the consumer has taken; compressed bytes are counted as they arrive;
 * - truncated or corrupt gzip is an outcome, not an exception; only failures of
 *   the body stream itself (network) are thrown, so the caller can retry them.
 */
import { Transform, type Readable } from "node:stream";
import { createGunzip } from "node:zlib";

export type GunzipOutcome =
  | { kind: "end" }
  | { kind: "stopped" }
  | { kind: "too-large"; which: "compressed" | "decoded"; limit: number }
  | { kind: "truncated"; message: string }
  | { kind: "corrupt-gzip"; message: string };

export interface GunzipLinesOptions {
  maxCompressedBytes: number;
  maxDecodedBytes: number;
  /** Called per complete line (newline excluded; `bytes` includes it). Return false to stop. */
  onLine(line: string, bytes: number): boolean;
  /** Called with every compressed chunk's size as it arrives (download accounting). */
  onCompressed?(bytes: number): void;
  /** A body that sends nothing for this long is abandoned as a retryable timeout. Default 10,000 ms. */
  idleTimeoutMs?: number;
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

/**
 * Streams `body` through gunzip and hands out lines until the end, a cap, or a stop.
 * @example
 * const outcome = await gunzipLines(res.body, { maxCompressedBytes, maxDecodedBytes, onLine: (l) => (lines.push(l), true) });
 */
export async function gunzipLines(
  body: Readable,
  options: GunzipLinesOptions,
): Promise<GunzipOutcome> {
  // A body sent ahead may have failed while it waited: piping a destroyed stream would never end.
  if (body.errored) throw body.errored;
  if (body.destroyed)
    throw Object.assign(new Error("the response body closed before it was read"), {
      code: "ECONNRESET",
    });
  let compressed = 0;
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
      if (compressed > options.maxCompressedBytes)
        cb(new CapExceeded("compressed", options.maxCompressedBytes));
      else cb(null, chunk);
    },
  });
  const gunzip = createGunzip();
  const fail = (err: Error) => gunzip.destroy(err);
  body.once("error", fail);
  counter.once("error", fail);
  body.pipe(counter).pipe(gunzip);

  let decoded = 0;
  let partial: Buffer[] = [];
  let partialBytes = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      decoded += chunk.length;
      if (decoded > options.maxDecodedBytes)
        return { kind: "too-large", which: "decoded", limit: options.maxDecodedBytes };
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
        const bytes = partialBytes + (nl - start) + 1;
        let line: string;
        if (partialBytes > 0) {
          partial.push(chunk.subarray(start, nl));
          line = Buffer.concat(partial).toString("utf8");
          partial = [];
          partialBytes = 0;
        } else {
          line = chunk.toString("utf8", start, nl);
        }
        start = nl + 1;
        if (!options.onLine(line, bytes)) return { kind: "stopped" };
      }
      if (start < chunk.length) {
        partial.push(chunk.subarray(start));
        partialBytes += chunk.length - start;
      }
    }
    // A last line without its newline: v1 bodies end with "\n", but be lenient.
    if (partialBytes > 0) {
      const line = Buffer.concat(partial).toString("utf8");
      if (!options.onLine(line, partialBytes)) return { kind: "stopped" };
    }
    return { kind: "end" };
  } catch (err) {
    if (err instanceof CapExceeded)
      return { kind: "too-large", which: err.which, limit: err.limit };
    const code = (err as NodeJS.ErrnoException).code ?? "";
    if (code === "Z_BUF_ERROR") return { kind: "truncated", message: (err as Error).message };
    if (code.startsWith("Z_") || code === "ERR_ZLIB_INITIALIZATION_FAILED") {
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
