/**
 * Object integrity (SHA-256, as S3 `x-amz-checksum-sha256` carries it): the
 * digest of what a store writes, and a pass-through stream that re-hashes what
 * a GET returns and fails at its end when the bytes differ from the stored digest.
 *
 * S3 keeps two forms: FULL_OBJECT (a single PUT: base64 SHA-256 of the bytes) and
 * COMPOSITE (multipart: base64 SHA-256 of the parts' binary digests, then `-N`).
 * Both are checked here; a composite needs the part boundaries, which only the
 * writer knows, so a composite is verified only when `partSizes` are given.
 */
import { createHash, webcrypto, type Hash } from "node:crypto";
import { Transform, type Readable, type TransformCallback } from "node:stream";
import { StoreError } from "./classify-error.js";

/** base64 SHA-256 of `bytes`. @example sha256Base64(Buffer.from("a")) // "ypeBEsobvcr6wjGzmiPcTaeG7/gUfE5yuYB3ha/uSLs=" */
export function sha256Base64(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("base64");
}

/**
 * Bodies at least this long are hashed on the thread pool (`sha256Base64Async`). Measured
 * on the 2-core machine: 16 KiB hash in ~18 µs and 64 KiB in ~45 µs in place, while a pool
 * round trip takes ~55–80 µs of wall time; below this, hashing in place is simply cheaper.
 */
export const OFF_THREAD_HASH_BYTES = 64 * 1024;

/**
 * base64 SHA-256 of `bytes`, computed off the main thread (WebCrypto's digest runs
 * on the libuv thread pool) when the body is large enough for that to pay, so a
 * logger's batch body does not stall the app's event loop (multipart parts: `partChecksum`).
 * @example await sha256Base64Async(part) // same value as sha256Base64(part)
 */
export async function sha256Base64Async(bytes: Uint8Array | string): Promise<string> {
  if (typeof bytes === "string" || bytes.byteLength < OFF_THREAD_HASH_BYTES)
    return sha256Base64(bytes);
  const digest = await webcrypto.subtle.digest("SHA-256", bytes);
  return Buffer.from(digest).toString("base64");
}

/**
 * base64 SHA-256 of a multipart part, hashed in place on the calling thread. Parts are
 * large (≥ 5 MiB but the last) and come from an export's encoding loop, not an app's
 * event loop. WebCrypto copies what it digests into a fresh allocation; freeing such
 * copies raises glibc's mmap threshold, so later part-sized copies come from the main
 * heap, which then keeps up to twice that much after it is freed: an export's peak RSS
 * grew ~15 MB more from 1M to 10M rows that way, and hashing in place (~13 ms per 8 MiB
 * here) took the same wall time (measured with `bench/export.ts`; docs/benchmarks.md).
 * @example uploadPart(…) sends partChecksum(body), the same value as sha256Base64(body)
 */
export function partChecksum(body: Uint8Array): string {
  return sha256Base64(body);
}

/** True for a multipart (composite) checksum such as `abc…=-3`. */
export function isCompositeChecksum(checksum: string): boolean {
  return /-\d+$/.test(checksum);
}

/** The composite checksum S3 computes from the parts' base64 digests. */
export function compositeChecksum(partChecksums: string[]): string {
  const h = createHash("sha256");
  for (const c of partChecksums) h.update(Buffer.from(c, "base64"));
  return `${h.digest("base64")}-${partChecksums.length}`;
}

/** The error a mismatch raises: the object is corrupt (never its records). */
export function integrityError(key: string, expected: string, actual?: string): StoreError {
  const computed = actual ? `, computed ${actual}` : "";
  return new StoreError(
    "integrity",
    `${key}: the downloaded bytes do not match the stored SHA-256 checksum (stored ${expected}${computed}); the object is corrupt or was replaced outside Stowage`,
  );
}

/**
 * Passes `body` through, hashing it; at the end, a digest other than `expected`
 * destroys the stream with StoreError("integrity"). Composite checksums need
 * `partSizes` to be checked (otherwise only full-object ones are).
 * @example const checked = verifyingStream(res.body, key, res.checksumSha256);
 */
export function verifyingStream(body: Readable, key: string, expected: string): Readable {
  const composite = isCompositeChecksum(expected);
  if (composite) return body; // part boundaries unknown here: `stowage verify` checks parts by size
  const hash: Hash = createHash("sha256");
  const check = new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      hash.update(chunk);
      cb(null, chunk);
    },
    flush(cb: TransformCallback) {
      const actual = hash.digest("base64");
      cb(actual === expected ? null : integrityError(key, expected, actual));
    },
  });
  // The AWS SDK validates the same header itself when ChecksumMode is ENABLED and
  // fails the body with its own "Checksum mismatch" error: report it the one way.
  body.on("error", (err) =>
    check.destroy(/^Checksum mismatch/.test(err.message) ? integrityError(key, expected) : err),
  );
  check.on("close", () => {
    if (!body.destroyed) body.destroy();
  });
  return body.pipe(check);
}

/** Incremental SHA-256 of a stream's bytes split into parts of `partSize` (for composite checks). */
export class PartHasher {
  private readonly parts: string[] = [];
  private current = createHash("sha256");
  private filled = 0;
  readonly whole = createHash("sha256");

  constructor(private readonly partSize: number) {}

  update(chunk: Buffer): void {
    this.whole.update(chunk);
    let off = 0;
    while (off < chunk.byteLength) {
      const take = Math.min(this.partSize - this.filled, chunk.byteLength - off);
      this.current.update(chunk.subarray(off, off + take));
      this.filled += take;
      off += take;
      if (this.filled === this.partSize) this.closePart();
    }
  }

  private closePart(): void {
    this.parts.push(this.current.digest("base64"));
    this.current = createHash("sha256");
    this.filled = 0;
  }

  /** Full-object digest and the composite over the parts seen. */
  finish(): { full: string; composite: string; parts: number } {
    if (this.filled > 0 || this.parts.length === 0) this.closePart();
    return {
      full: this.whole.digest("base64"),
      composite: compositeChecksum(this.parts),
      parts: this.parts.length,
    };
  }
}
