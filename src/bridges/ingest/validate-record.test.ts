import { describe, expect, it } from "vitest";
import { resolveIngestOptions } from "./options.js";
import { canonicalIsoMs } from "../../shared/iso-time.js";
import { validateRecord } from "./validate-record.js";

const o = resolveIngestOptions({ auth: "none", maxPastSkewMs: 1e15, maxFutureSkewMs: 1e15 });
const marker = { origin: "client" };

/** What validateRecord wrote before its fast path: Date.parse, then toISOString. */
function reference(ts: string): string | null {
  const t = Date.parse(ts);
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
}

const pad = (n: number, w: number) => String(n).padStart(w, "0");

describe("validateRecord timestamps", () => {
  it("reads the canonical form by arithmetic, exactly as Date.parse does", () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n) + 0;
    for (let i = 0; i < 5_000; i++) {
      // In range and out of range alike: month 0–13, day 0–32, hour 0–25, minute/second 0–61.
      const s = `${pad(1960 + rnd(8100), 4)}-${pad(rnd(14), 2)}-${pad(rnd(33), 2)}T${pad(rnd(26), 2)}:${pad(rnd(62), 2)}:${pad(rnd(62), 2)}.${pad(rnd(1000), 3)}Z`;
      const fast = canonicalIsoMs(s);
      if (fast >= 0) {
        expect(fast).toBe(Date.parse(s));
        expect(new Date(fast).toISOString()).toBe(s);
      }
      const v = validateRecord({ timestamp: s, message: "m" }, Date.now(), o, marker);
      const want = reference(s);
      if (want === null) expect(v).toEqual({ reject: "malformed" });
      else expect("record" in v && v.record.timestamp).toBe(want);
    }
  });

  it("leaves every other form to Date.parse (rolled-over days, offsets, short forms, non-digits)", () => {
    for (const s of [
      "2026-02-30T00:00:00.000Z",
      "2024-02-29T23:59:59.999Z",
      "2026-03-01T10:00:00+02:00",
      "2026-03-01T10:00:00Z",
      "2026-03-01T10:00:00.5Z",
      "2026-03-01T1a:00:00.000Z",
      "+02026-03-01T10:00:00.000Z",
      "1969-12-31T23:59:59.999Z",
      "not a time",
    ]) {
      const v = validateRecord({ timestamp: s }, Date.now(), o, marker);
      const want = reference(s);
      if (want === null) expect(v).toEqual({ reject: "malformed" });
      else expect("record" in v && v.record.timestamp).toBe(want);
    }
    expect(canonicalIsoMs("2026-02-30T00:00:00.000Z")).toBe(-1);
    expect(canonicalIsoMs("2024-02-29T23:59:59.999Z")).toBe(Date.parse("2024-02-29T23:59:59.999Z"));
  });

  it("clamps out of the window to the server's time, keeping the client's", () => {
    const strict = resolveIngestOptions({ auth: "none" });
    const now = Date.parse("2026-06-01T12:00:00.000Z");
    const v = validateRecord({ timestamp: "2020-01-01T00:00:00.000Z" }, now, strict, marker);
    expect(v).toMatchObject({
      clamped: true,
      record: {
        timestamp: "2026-06-01T12:00:00.000Z",
        bindings: { clientTimestamp: "2020-01-01T00:00:00.000Z", origin: "client" },
      },
    });
  });

  it("counts nested keys and array elements against maxFields", () => {
    const small = resolveIngestOptions({ auth: "none", maxFields: 4 });
    const now = Date.now();
    expect(validateRecord({ data: { a: [1, 2] } }, now, small, marker)).toHaveProperty("record");
    expect(validateRecord({ data: { a: [1, 2, 3] } }, now, small, marker)).toEqual({
      reject: "tooManyFields",
    });
    expect(validateRecord({ data: {}, bogus: 1 }, now, small, marker)).toEqual({
      reject: "malformed",
    });
  });
});
