import { describe, expect, it } from "vitest";
import { utf8Slice, utf8Write } from "./buffer-text.js";

describe("buffer text", () => {
  it("writes and reads UTF-8 at offsets exactly as Buffer#write / #toString do", () => {
    for (const s of ["", "ascii", "héllo ✓", "😀 and \u{10FFFF}", "a\u0000b", "\ud800 lone"]) {
      const a = Buffer.alloc(64, 0xaa);
      const b = Buffer.alloc(64, 0xaa);
      const n = utf8Write(a, s, 3);
      expect(n).toBe(b.write(s, 3, "utf8"));
      expect(a.equals(b)).toBe(true);
      expect(utf8Slice(a, 3, 3 + n)).toBe(b.toString("utf8", 3, 3 + n));
    }
  });
});
