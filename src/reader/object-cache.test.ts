import { describe, expect, it } from "vitest";
import { LINE_HEAP_BYTES, ObjectCache } from "./object-cache.js";

const entry = (bytes: number) => ({ lines: [], decodedBytes: bytes });

describe("§5.2 immutable-object cache", () => {
  it("§5.2 keyed by key + ETag: another ETag is a miss", () => {
    const c = new ObjectCache(1000);
    c.set("k", '"e1"', entry(10));
    expect(c.get("k", '"e1"')).toBeDefined();
    expect(c.get("k", '"e2"')).toBeUndefined();
    c.set("k2", "", entry(10)); // no ETag: never cached
    expect(c.get("k2", "")).toBeUndefined();
  });

  it("§5.2 bounded by decoded bytes, least recently used evicted first; big objects not kept", () => {
    const c = new ObjectCache(1000);
    c.set("a", "e", entry(200));
    c.set("b", "e", entry(200));
    c.set("c", "e", entry(200));
    c.get("a", "e");
    c.set("d", "e", entry(200));
    c.set("e", "e", entry(200));
    expect(c.size).toEqual({ objects: 5, bytes: 1000 });
    c.set("f", "e", entry(200));
    expect(c.size).toEqual({ objects: 5, bytes: 1000 });
    expect(c.get("b", "e")).toBeUndefined();
    expect(c.get("a", "e")).toBeDefined();
    c.set("huge", "e", entry(251));
    expect(c.get("huge", "e")).toBeUndefined();
    expect(new ObjectCache(0).accepts(1)).toBe(false);
  });

  it("an entry costs its bytes plus LINE_HEAP_BYTES per line: short lines are bounded too", () => {
    const c = new ObjectCache(4000);
    const lines = Array.from({ length: 20 }, () => "{}");
    c.set("small", "e", { lines, decodedBytes: 60 });
    expect(c.size.bytes).toBe(60 + 20 * LINE_HEAP_BYTES);
    const many = Array.from({ length: 30 }, () => "{}");
    c.set("many", "e", { lines: many, decodedBytes: 90 }); // 90 decoded bytes, but 1290 held > 4000 / 4
    expect(c.get("many", "e")).toBeUndefined();
  });
});
