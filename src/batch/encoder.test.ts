import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { encodeBatch, encodeBatchAsync, encodeV1Object, encodeV1ObjectAsync } from "./encoder.js";
import { parseObjectKey } from "../v1-format/object-key.js";

const lines = ['{"message":"a"}', '{"message":"é ünïcode 😀"}', '{"message":"c"}'];
const batch = { lines, minMs: 100, maxMs: 300 };

describe("gzip NDJSON encoder", () => {
  it("§3.4 body gunzips to newline-terminated lines; counts, bounds and decoded size match", () => {
    const e = encodeBatch(batch);
    const text = gunzipSync(e.body).toString("utf8");
    expect(text.endsWith("\n")).toBe(true);
    expect(text.split("\n").slice(0, -1)).toEqual(lines);
    expect(e.records).toBe(3);
    expect(e.decodedBytes).toBe(Buffer.byteLength(text));
    expect(e.decodedBytes).toBe(lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0));
    expect([e.minMs, e.maxMs]).toEqual([100, 300]);
    expect(e.body[0]).toBe(0x1f); // gzip magic
    expect(e.body[1]).toBe(0x8b);
  });

  it("§3.4 async encoding gives the same decoded body; levels are honoured and validated", async () => {
    const many = Array.from({ length: 2000 }, (_, i) =>
      JSON.stringify({ i, message: "repeated text ".repeat(5) }),
    );
    const a = await encodeBatchAsync({ lines: many, minMs: 1, maxMs: 2 }, { level: 9 });
    const b = encodeBatch({ lines: many, minMs: 1, maxMs: 2 }, { level: 0 });
    expect(gunzipSync(a.body).equals(gunzipSync(b.body))).toBe(true);
    expect(a.body.length).toBeLessThan(b.body.length);
    expect(() => encodeBatch(batch, { level: 10 })).toThrow(/gzip level/);
    await expect(encodeBatchAsync(batch, { level: -2 })).rejects.toThrow(/gzip level/);
  });

  it("§3.4 an empty batch is refused (no empty objects)", () => {
    expect(() => encodeBatch({ lines: [], minMs: 0, maxMs: 0 })).toThrow(/empty batch/);
  });

  it("§3.4 a complete v1 object: key from min/max, metadata matching the body", async () => {
    const h = Date.UTC(2026, 2, 1, 10);
    const obj = await encodeV1ObjectAsync(
      { lines, minMs: h + 5, maxMs: h + 9 },
      { prefix: "/logs/" },
    );
    expect(parseObjectKey(obj.key, "logs")).toEqual({
      hourMs: h,
      minMs: h + 5,
      maxMs: h + 9,
      batchId: obj.batchId,
    });
    expect(obj.metadata).toEqual({
      "stowage-format": "1",
      "min-ms": String(h + 5),
      "max-ms": String(h + 9),
      records: "3",
      "decoded-bytes": String(gunzipSync(obj.body).length),
    });
    const again = encodeV1Object(
      { lines, minMs: h + 5, maxMs: h + 9 },
      { prefix: "logs", batchId: obj.batchId },
    );
    expect(again.key).toBe(obj.key);
    expect(() => encodeV1Object({ lines, minMs: h - 1, maxMs: h }, { prefix: "" })).toThrow(
      /different UTC hours/,
    );
  });
});
