import { describe, expect, it } from "vitest";
import { formatBytes, formatCount, parseBytes } from "./bytes.js";

describe("byte sizes and counts in CLI output", () => {
  it("formatCount writes integers as toLocaleString('en-US') does", () => {
    for (const n of [
      0,
      7,
      -7,
      999,
      1000,
      -1000,
      12_345,
      999_999,
      1_000_000,
      1_234_567_890,
      2 ** 53 - 1,
    ])
      expect(formatCount(n)).toBe(n.toLocaleString("en-US"));
  });

  it("formatBytes and parseBytes", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatBytes(95 * 1024 * 1024)).toBe("95 MiB");
    expect(parseBytes("256MB", "x")).toBe(256_000_000);
    expect(parseBytes("1GiB", "x")).toBe(1024 ** 3);
    expect(() => parseBytes("lots", "x")).toThrow(/is not a byte size/);
  });
});
