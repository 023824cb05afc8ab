import { describe, expect, it } from "vitest";
import { hoursNewestFirst, parseTimeArg, resolveRange } from "./time-range.js";
import { resolveLimits, DEFAULT_LIMITS } from "./limits.js";

const H = 3_600_000;
const T = Date.UTC(2026, 10, 3, 10, 30);

describe("§5.2 time ranges", () => {
  it("§5.6 CLI times: now, durations ago, ISO, epoch ms", () => {
    expect(parseTimeArg("now", T)).toBe(T);
    expect(parseTimeArg("2h", T)).toBe(T - 2 * H);
    expect(parseTimeArg("30m", T)).toBe(T - 30 * 60_000);
    expect(parseTimeArg("7d", T)).toBe(T - 7 * 24 * H);
    expect(parseTimeArg("1w", T)).toBe(T - 7 * 24 * H);
    expect(parseTimeArg("90s ago", T)).toBe(T - 90_000);
    expect(parseTimeArg("2026-11-03T08:00:00Z", T)).toBe(Date.UTC(2026, 10, 3, 8));
    expect(parseTimeArg(String(T), 0)).toBe(T);
    expect(() => parseTimeArg("yesterday", T)).toThrow(/not a time/);
    expect(() => parseTimeArg("2h30", T)).toThrow(/not a time/);
  });

  it("§5.2 ranges: from < to, at most 7 days exactly", () => {
    expect(resolveRange(T - 7 * 24 * H, T)).toEqual({ fromMs: T - 7 * 24 * H, toMs: T });
    expect(() => resolveRange(T - 7 * 24 * H - 1, T)).toThrow(/at most 7 days/);
    expect(() => resolveRange(T, T)).toThrow(/must be before/);
    expect(() => resolveRange(new Date(T), "2026-11-03T09:00:00Z")).toThrow(/must be before/);
    expect(() => resolveRange(Number.NaN, T)).toThrow(/not a valid time/);
  });

  it("§5.2 the hours of a range, newest first, edges included only when they overlap", () => {
    const hours = hoursNewestFirst({
      fromMs: Date.UTC(2026, 10, 3, 8, 59),
      toMs: Date.UTC(2026, 10, 3, 11),
    });
    expect(hours).toEqual([10, 9, 8].map((h) => Date.UTC(2026, 10, 3, h)));
    expect(
      hoursNewestFirst({
        fromMs: Date.UTC(2026, 10, 3, 9),
        toMs: Date.UTC(2026, 10, 3, 9, 0, 0, 1),
      }),
    ).toEqual([Date.UTC(2026, 10, 3, 9)]);
    expect(hoursNewestFirst({ fromMs: T - 7 * 24 * H, toMs: T })).toHaveLength(169); // 10:30 → 10:30 a week later touches 169 hours
  });

  it("§5.2 limits: defaults, overrides, refusals", () => {
    expect(resolveLimits(undefined)).toEqual(DEFAULT_LIMITS);
    expect(DEFAULT_LIMITS).toEqual({
      downloadBytes: 16 * 1024 * 1024,
      listAttempts: 20,
      getAttempts: 64,
      records: 20_000,
      decodedBytes: 25 * 1024 * 1024,
      maxGrants: 5,
    });
    expect(resolveLimits({ records: 5 }).records).toBe(5);
    expect(() => resolveLimits({ records: 1.5 })).toThrow(/positive integer/);
    expect(() => resolveLimits({ bogus: 1 } as never)).toThrow(/unknown reader limit "bogus"/);
  });
});
