import { describe, expect, it } from "vitest";
import { compileRedaction } from "./redact.js";
import { createContext, walkString } from "./walk-context.js";

/** The N of a "…[truncated N chars]" marker, or null when there is no counted marker. */
function markerCount(s: string): number | null {
  const m = /…\[truncated (\d+) chars\]$/.exec(s);
  return m === null ? null : Number(m[1]);
}

describe("walkString truncation marker", () => {
  it("issue 31 §5: a 1,048,576-character string reports the characters really removed", () => {
    const s = "x".repeat(1_048_576);
    const out = walkString(s, createContext({}));
    const kept = 16 * 1024;
    expect(out.startsWith("x".repeat(kept) + "…")).toBe(true);
    expect(markerCount(out)).toBe(1_048_576 - kept);
  });

  it("issue 31 §5: kept + reported = the string's length, at every length around the scan window", () => {
    const ctx = createContext({ maxStringLength: 100 });
    for (const n of [101, 4195, 4196, 4197, 5000, 100_000]) {
      const out = walkString("y".repeat(n), ctx);
      const kept = out.indexOf("…");
      expect(kept).toBe(100);
      expect(kept + (markerCount(out) ?? -1)).toBe(n);
    }
    // At the cap: unchanged, no marker.
    expect(walkString("z".repeat(100), ctx)).toBe("z".repeat(100));
  });

  it("issue 31 §5: with redaction the count is of the redacted text plus the unscanned rest", () => {
    const ctx = createContext({ maxStringLength: 10, redact: compileRedaction({}) });
    // "Bearer <32 chars>" becomes "[REDACTED:bearer]" (17) inside the scanned window of
    // 10 + 4096 chars; the 200,000 "z" past the window are never scanned but are removed too.
    const s = `Bearer ${"a1".repeat(16)} ${"z".repeat(200_000)}`;
    const out = walkString(s, ctx);
    expect(out.slice(0, 11)).toBe("[REDACTED:…");
    const windowAfterRedaction = 17 + (10 + 4096 - 39);
    expect(markerCount(out)).toBe(windowAfterRedaction - 10 + (s.length - (10 + 4096)));
  });

  it("issue 31 §5: a long string that redaction shrinks below the cap still counts what was dropped", () => {
    const ctx = createContext({ maxStringLength: 20, redact: compileRedaction({}) });
    // The token runs past the scanned window (20 + 4096): its first 4,109 chars become the
    // marker, the other 891 are cut without being shown.
    const s = `Bearer ${"b".repeat(5000)}`;
    expect(walkString(s, ctx)).toBe("[REDACTED:bearer]…[truncated 891 chars]");
    // Nothing was cut when the whole string was scanned and redaction alone made it short.
    const whole = `Bearer ${"c".repeat(100)}`;
    expect(walkString(whole, ctx)).toBe("[REDACTED:bearer]");
  });
});
