import { describe, expect, it } from "vitest";
import { canonicalIsoMs, formatTimestamp } from "./iso-time.js";

/** A small deterministic generator (no seed drift between runs). */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe("formatTimestamp (§3.1 record timestamp)", () => {
  it("writes what toISOString writes for every millisecond of a second, in and out of order", () => {
    const base = Date.UTC(2026, 11, 5, 13, 59, 59);
    const order = [0, 1, 9, 10, 99, 100, 999, 500, 500, 7, 998, 0];
    for (const m of order) expect(formatTimestamp(base + m)).toBe(new Date(base + m).toISOString());
    for (let m = 0; m < 1000; m++)
      expect(formatTimestamp(base + m)).toBe(new Date(base + m).toISOString());
  });

  it("crosses seconds, minutes, days and years (and back) like toISOString", () => {
    const edges = [
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1, 0, 0, 0, 0),
      Date.UTC(2027, 0, 1, 0, 0, 0, 1),
      Date.UTC(2026, 11, 31, 23, 59, 59, 998),
      Date.UTC(2024, 1, 29, 12, 0, 0, 5),
      0,
      1,
      999,
      1000,
      -1,
      -999,
      -1000,
      -1001,
    ];
    for (const ms of edges) expect(formatTimestamp(ms)).toBe(new Date(ms).toISOString());
  });

  it("matches toISOString on random times and on runs within one second", () => {
    const rand = lcg(33);
    for (let i = 0; i < 20_000; i++) {
      const ms =
        i % 2 === 0
          ? Math.floor(rand() * 253_402_300_799_999) // 1970 … 9999
          : Date.UTC(2026, 0, 1) + Math.floor(rand() * 3000); // many in the same seconds
      expect(formatTimestamp(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it("leaves fractional, far and invalid times to toISOString", () => {
    const s = Date.UTC(2026, 5, 1, 8, 0, 0);
    formatTimestamp(s); // the second is cached
    expect(formatTimestamp(s + 1.7)).toBe(new Date(s + 1.7).toISOString());
    expect(formatTimestamp(s + 2)).toBe(new Date(s + 2).toISOString());
    const far = 8.64e15 - 5; // year +275760: written ±YYYYYY
    expect(formatTimestamp(far)).toBe(new Date(far).toISOString());
    expect(formatTimestamp(far + 1)).toBe(new Date(far + 1).toISOString());
    expect(formatTimestamp(-62_198_755_200_000 + 3)).toBe(
      new Date(-62_198_755_200_000 + 3).toISOString(),
    ); // year -0001
    expect(() => formatTimestamp(Number.NaN)).toThrow(RangeError);
    expect(formatTimestamp(s + 3)).toBe(new Date(s + 3).toISOString());
  });

  it("round-trips through canonicalIsoMs", () => {
    const rand = lcg(7);
    for (let i = 0; i < 2000; i++) {
      const ms = Math.floor(rand() * 253_402_300_799_999);
      expect(canonicalIsoMs(formatTimestamp(ms))).toBe(ms);
    }
  });
});
