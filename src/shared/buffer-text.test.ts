import { describe, expect, it } from "vitest";
import { latin1Slice, utf8Slice, utf8Write } from "./buffer-text.js";

describe("buffer text", () => {
  it("writes and reads UTF-8 at offsets exactly as Buffer#write / #toString do", () => {
    const long = "x".repeat(30);
    for (const s of [
      "",
      "ascii",
      "héllo ✓",
      "😀 and \u{10FFFF}",
      "a\u0000b",
      "\ud800 lone",
      "\x7f\x80",
      "short ascii, then é",
      long,
      long + "é",
      "x".repeat(24),
      "x".repeat(23) + "\u00ff",
    ]) {
      const a = Buffer.alloc(96, 0xaa);
      const b = Buffer.alloc(96, 0xaa);
      const n = utf8Write(a, s, 3);
      expect(n).toBe(b.write(s, 3, "utf8"));
      expect(a.equals(b)).toBe(true);
      expect(utf8Slice(a, 3, 3 + n)).toBe(b.toString("utf8", 3, 3 + n));
      expect(latin1Slice(a, 3, 3 + n)).toBe(b.toString("latin1", 3, 3 + n));
    }
  });

  it("a short string past the buffer's end is cut where Node's writer cuts it", () => {
    for (const s of ["abcdefghij", "ab", "héllo"]) {
      const a = Buffer.alloc(8, 0xaa);
      const b = Buffer.alloc(8, 0xaa);
      expect(utf8Write(a, s, 4)).toBe(b.write(s, 4, "utf8"));
      expect(a.equals(b)).toBe(true);
    }
  });
});
