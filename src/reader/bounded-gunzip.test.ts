import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { gunzipLines } from "./bounded-gunzip.js";

/** A body delivered in chunks of `size` bytes. */
function body(bytes: Buffer, size = 7): Readable {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return Readable.from(chunks);
}

async function lines(input: Readable, caps = { maxCompressedBytes: 1e9, maxDecodedBytes: 1e9 }) {
  const got: [string, number][] = [];
  const outcome = await gunzipLines(input, { ...caps, onLine: (l, b) => (got.push([l, b]), true) });
  return { outcome, got };
}

describe("§5.2 bounded gunzip", () => {
  it("§3.4 splits lines across chunk and gzip-member boundaries; counts bytes with the newline", async () => {
    const two = Buffer.concat([
      gzipSync('{"a":1}\n{"b":"é"}\n'),
      gzipSync('{"c":3}\nlast-without-newline'),
    ]);
    const { outcome, got } = await lines(body(two, 5));
    expect(outcome).toEqual({ kind: "end" });
    expect(got).toEqual([
      ['{"a":1}', 8],
      ['{"b":"é"}', 11],
      ['{"c":3}', 8],
      ["last-without-newline", 20],
    ]);
  });

  it("§5.2 onLineBytes hands out each line's exact bytes (split across zlib chunks too); exactly one consumer", async () => {
    const text = Array.from({ length: 400 }, (_, i) =>
      i % 7 === 0 ? "" : `{"n":${i},"s":"${"é\u00e9x".repeat(i % 13)}"}`,
    ).join("\n");
    const raw = Buffer.concat([Buffer.from(text), Buffer.from([0xff, 0xfe, 0x0a, 0x41])]);
    const byText: string[] = [];
    const byBytes: Buffer[] = [];
    const caps = { maxCompressedBytes: 1e9, maxDecodedBytes: 1e9, chunkBytes: 64 };
    await gunzipLines(body(gzipSync(raw), 11), { ...caps, onLine: (l) => (byText.push(l), true) });
    await gunzipLines(body(gzipSync(raw), 11), {
      ...caps,
      onLineBytes: (buf, start, end) => (byBytes.push(Buffer.from(buf.subarray(start, end))), true),
    });
    expect(byBytes.map((b) => b.toString("utf8"))).toEqual(byText);
    // The Buffers handed out are never written again: a consumer may copy them later.
    const kept: [Buffer, number, number][] = [];
    await gunzipLines(body(gzipSync(raw), 11), {
      ...caps,
      onLineBytes: (buf, start, end) => (kept.push([buf, start, end]), true),
    });
    expect(kept.map(([buf, start, end]) => Buffer.from(buf.subarray(start, end)))).toEqual(byBytes);
    expect(Buffer.concat(byBytes.flatMap((b) => [b, Buffer.from("\n")]))).toEqual(
      Buffer.concat([raw, Buffer.from("\n")]),
    );
    await expect(gunzipLines(body(gzipSync("a\n")), { ...caps })).rejects.toThrow(/exactly one/);
  });

  it("§5.2 stops when the consumer says so", async () => {
    let n = 0;
    const outcome = await gunzipLines(body(gzipSync("a\nb\nc\n")), {
      maxCompressedBytes: 1e9,
      maxDecodedBytes: 1e9,
      onLine: () => ++n < 2,
    });
    expect(outcome).toEqual({ kind: "stopped" });
    expect(n).toBe(2);
  });

  it("§5.2 cuts off at the compressed and the decoded caps without reading everything", async () => {
    const big = gzipSync(Buffer.alloc(4 * 1024 * 1024, "x\n"));
    expect(
      (await lines(body(big, 1024), { maxCompressedBytes: 2000, maxDecodedBytes: 1e9 })).outcome,
    ).toMatchObject({ kind: "too-large", which: "compressed" });
    const dec = await lines(body(big, 1024), { maxCompressedBytes: 1e9, maxDecodedBytes: 100_000 });
    expect(dec.outcome).toMatchObject({ kind: "too-large", which: "decoded" });
    expect(dec.got.length).toBeLessThan(60_000);
  });

  it("§8 truncated and corrupt gzip are outcomes, with the complete lines before the fault", async () => {
    const gz = gzipSync(Array.from({ length: 2000 }, (_, i) => `line ${i}`).join("\n") + "\n");
    const cut = await lines(body(gz.subarray(0, Math.floor(gz.length / 2)), 64));
    expect(cut.outcome.kind).toBe("truncated");
    expect(cut.got.length).toBeGreaterThan(0);
    expect(cut.got.at(-1)![0]).toMatch(/^line \d+$/);
    expect((await lines(body(Buffer.from("definitely not gzip")))).outcome.kind).toBe(
      "corrupt-gzip",
    );
    expect((await lines(body(Buffer.alloc(0)))).outcome.kind).toBe("truncated");
  });

  it("§5.2 a body that failed before it was read is thrown (retryable), never a hang", async () => {
    const r = new Readable({ read() {} });
    r.on("error", () => {});
    r.destroy(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
    await expect(lines(r)).rejects.toMatchObject({ code: "ECONNRESET" });
    const stalled = new Readable({ read() {} });
    await expect(
      gunzipLines(stalled, {
        maxCompressedBytes: 1e9,
        maxDecodedBytes: 1e9,
        idleTimeoutMs: 50,
        onLine: () => true,
      }),
    ).rejects.toMatchObject({ code: "ETIMEDOUT" });
  });

  it("valid members followed by garbage: every complete line is kept, the object reported corrupt", async () => {
    const members = Buffer.concat([gzipSync("line1\nline2\n"), gzipSync("line3\nline4\n")]);
    for (const garbage of [
      Buffer.from("garbage!!garbage"),
      Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 5, 6, 7]),
    ]) {
      for (const size of [7, 1 << 20]) {
        const { outcome, got } = await lines(body(Buffer.concat([members, garbage]), size));
        expect(outcome.kind).toBe("corrupt-gzip");
        expect(got.map((g) => g[0])).toEqual(["line1", "line2", "line3", "line4"]);
      }
    }
  });
});
