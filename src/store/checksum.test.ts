import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  compositeChecksum,
  isCompositeChecksum,
  PartHasher,
  OFF_THREAD_HASH_BYTES,
  sha256Base64,
  sha256Base64Async,
  verifyingStream,
} from "./checksum.js";

async function drain(r: Readable): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of r) out.push(c as Buffer);
  return Buffer.concat(out);
}

describe("checksum (integrity on every object)", () => {
  it("composite checksum equals what MinIO reported for the same two parts", () => {
    const p1 = Buffer.alloc(5 * 1024 * 1024, 1);
    const p2 = Buffer.from("tail");
    // Read back from a MinIO CompleteMultipartUpload of exactly these parts.
    expect(compositeChecksum([sha256Base64(p1), sha256Base64(p2)])).toBe(
      "gm6o39vNt69Pc/r4EKY/2NpoxvUg2SUOo+Nic80ECsM=-2",
    );
    expect(isCompositeChecksum("abc=-2")).toBe(true);
    expect(isCompositeChecksum(sha256Base64("x"))).toBe(false);
    const h = new PartHasher(5 * 1024 * 1024);
    for (let i = 0; i < p1.length; i += 300_000) h.update(p1.subarray(i, i + 300_000));
    h.update(p2);
    expect(h.finish()).toMatchObject({
      composite: "gm6o39vNt69Pc/r4EKY/2NpoxvUg2SUOo+Nic80ECsM=-2",
      parts: 2,
      full: sha256Base64(Buffer.concat([p1, p2])),
    });
  });

  it("the thread-pool digest equals the in-place one and a known value for every size class, and leaves the body as it was", async () => {
    const big = Buffer.alloc(3 * OFF_THREAD_HASH_BYTES + 7);
    for (let i = 0; i < big.length; i++) big[i] = (i * 131) % 251;
    const before = Buffer.from(big);
    for (const body of [
      big,
      big.subarray(5, 5 + OFF_THREAD_HASH_BYTES), // a view into a larger buffer, at the threshold
      big.subarray(0, OFF_THREAD_HASH_BYTES - 1),
      new Uint8Array(0),
      "text body ✓",
    ])
      expect(await sha256Base64Async(body)).toBe(sha256Base64(body));
    expect(big.equals(before)).toBe(true); // hashed where it is: not moved, not changed
    // A value computed elsewhere (Python's hashlib, 65,536 × "a"), so both forms cannot
    // agree on a wrong digest.
    expect(OFF_THREAD_HASH_BYTES).toBe(65_536);
    expect(await sha256Base64Async(Buffer.alloc(OFF_THREAD_HASH_BYTES, 0x61))).toBe(
      "v3GLb2U768GE4UefGTW42pdNcBuJOvz0nnAfPi+fnFo=",
    );
  });

  it("a verifying stream passes intact bytes and fails with `integrity` at the end of altered ones", async () => {
    const good = Buffer.from("hello world\n".repeat(1000));
    const ok = await drain(verifyingStream(Readable.from([good]), "k", sha256Base64(good)));
    expect(ok.equals(good)).toBe(true);
    const bad = Buffer.from(good);
    bad[10] = 0;
    const err = await drain(
      verifyingStream(Readable.from([bad]), "app/x.gz", sha256Base64(good)),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "integrity" });
    expect(String((err as Error).message)).toContain("app/x.gz");
  });
});
