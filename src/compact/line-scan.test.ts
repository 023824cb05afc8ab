/**
 * Issue 32 §1 (a malformed line is rejected, never compacted): `scanLine` accepts exactly
 * what `JSON.parse` accepts and finds the members `JSON.parse` would keep. Checked against
 * JSON.parse itself on hand-picked edge cases and on seeded random mutations of real lines.
 */
import { describe, expect, it } from "vitest";
import { MAX_DEPTH, scanLine, stringValue } from "./line-scan.js";

function parses(t: string): boolean {
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

/** What the scan says about `t`, in JSON.parse's terms: the object's last values by key. */
function viaScan(t: string): unknown {
  const s = scanLine(t);
  if (s === null) return "invalid";
  if (s.kind !== "object") return s.kind;
  const out: Record<string, unknown> = {};
  for (const m of s.members.slice(0, s.count)) {
    const v = JSON.parse(t.slice(m.start, m.end)) as unknown;
    if (m.escaped !== (t.charCodeAt(m.start) === 34 && t.slice(m.start, m.end).includes("\\")))
      throw new Error(`escaped flag wrong for ${m.key} in ${t}`);
    if (typeof v === "string") expect(stringValue(t, m)).toBe(v);
    Object.defineProperty(out, m.key, { value: v, enumerable: true, configurable: true });
  }
  return out;
}

function viaParse(t: string): unknown {
  if (!parses(t)) return "invalid";
  const v = JSON.parse(t) as unknown;
  if (v === null || typeof v !== "object" || Array.isArray(v)) return "other";
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v))
    Object.defineProperty(out, k, {
      value: (v as Record<string, unknown>)[k],
      enumerable: true,
      configurable: true,
    });
  return out;
}

const EDGES = [
  "",
  " ",
  "{}",
  " {} ",
  "{ }",
  "\t{\n}\r",
  "[]",
  "1",
  "-0",
  "01",
  "1.",
  ".5",
  "1e",
  "1e+",
  "1E-7",
  "-",
  "--1",
  "true",
  "tru",
  "nullx",
  '"a"',
  '"\\u12"',
  '"\\u12G4"',
  '"\\x"',
  '"a\nb"',
  '"a\\nb"',
  '"\u007f"',
  '"\ud800"',
  "{",
  "}",
  '{"a"}',
  '{"a":}',
  '{"a":1,}',
  '{"a":1 "b":2}',
  '{"a":1}}',
  '{"a":1}x',
  '{"a":[1,2,]}',
  '{"a":[1,,2]}',
  '{"a":[,]}',
  '{"a":{"b":{"c":[{"d":null}]}}}',
  '{"a":1,"a":2}',
  '{"__proto__":{"x":1}}',
  '{"k\\"ey":"v\\u0041lue"}',
  '{"a" : [ 1 , { "b" : "c" } ] , "d" : -1.5e3 }',
  '{"a":"\\/\\b\\f\\n\\r\\t\\\\\\""}',
  '{"a":tru}',
  '{"a":[}',
  '{"a":{]}',
  '{"a":"x"',
  "\ufeff{}",
  '{"a":1}\u00a0',
  "[".repeat(512) + "]".repeat(512),
  `{"a":${"[".repeat(511)}${"]".repeat(511)}}`,
  `{"a":${'{"b":'.repeat(510)}1${"}".repeat(510)}}`,
];

const BASE = [
  '{"timestamp":"2026-11-03T14:00:00.000Z","level":"info","message":"request completed","service":"orders","data":{"route":"/api/orders/:id","method":"GET","status":200,"durationMs":37,"userId":"u-1","requestId":"r-1"}}',
  '{"timestamp":"2026-11-03T14:00:00.000Z","level":"error","message":"boom \\"quoted\\" \\u00e9","error":{"name":"Error","stack":"a\\nb"},"bindings":{"pid":1},"x":[1,2.5e-3,true,false,null,{}]}',
];

/** A small seeded PRNG (mulberry32): the same mutations every run. */
function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = '{}[]":,\\ \t\n01-.eE+truefalsnu"xA\u0001\u00e9';

describe("scanLine agrees with JSON.parse", () => {
  it("on edge cases: validity, kind, and the members JSON.parse keeps", () => {
    for (const t of EDGES) expect(viaScan(t), JSON.stringify(t).slice(0, 80)).toEqual(viaParse(t));
  });

  it("refuses values nested deeper than MAX_DEPTH (JSON.parse overflows its stack on some), without recursion", () => {
    expect(MAX_DEPTH).toBe(512);
    for (const t of [
      "[".repeat(513) + "]".repeat(513),
      `{"a":${"[".repeat(512)}${"]".repeat(512)}}`,
      `{"a":${"[".repeat(200_000)}${"]".repeat(200_000)}}`,
      `{"a":${"[".repeat(200_000)}`,
    ])
      expect(scanLine(t)).toEqual({ kind: "too-deep" });
    expect(scanLine(`{"a":${"[".repeat(10)}`)).toBeNull();
  });

  it("on 20,000 seeded mutations of real lines (insert, delete, replace a character)", () => {
    const r = rng(32);
    let invalid = 0;
    for (let k = 0; k < 20_000; k++) {
      let t = BASE[k % BASE.length]!;
      const edits = 1 + Math.floor(r() * 3);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(r() * (t.length + 1));
        const ch = ALPHABET[Math.floor(r() * ALPHABET.length)]!;
        const op = Math.floor(r() * 3);
        t =
          op === 0
            ? t.slice(0, at) + ch + t.slice(at)
            : op === 1
              ? t.slice(0, at) + t.slice(at + 1)
              : t.slice(0, at) + ch + t.slice(at + 1);
      }
      if (!parses(t)) invalid++;
      expect(viaScan(t), t).toEqual(viaParse(t));
    }
    // The mutations reach both sides of the grammar.
    expect(invalid).toBeGreaterThan(5_000);
    expect(invalid).toBeLessThan(19_000);
  });
});

describe("isoMs", () => {
  it("equals Date.parse on canonical timestamps, including the invalid ones, across hours", async () => {
    const { isoMs } = await import("./record-row.js");
    const r = rng(7);
    const d2 = (n: number) => String(n).padStart(2, "0");
    for (let k = 0; k < 20_000; k++) {
      const t = `20${d2(Math.floor(r() * 100))}-${d2(Math.floor(r() * 14))}-${d2(Math.floor(r() * 33))}T${d2(Math.floor(r() * 26))}:${d2(Math.floor(r() * 62))}:${d2(Math.floor(r() * 62))}.${String(Math.floor(r() * 1000)).padStart(3, "0")}Z`;
      expect(isoMs(t), t).toBe(Date.parse(t));
      const near = new Date(1_793_714_400_000 + Math.floor(r() * 7_200_000)).toISOString();
      expect(isoMs(near), near).toBe(Date.parse(near));
    }
  });
});

describe("isoMs accepts what the write path accepts", () => {
  it("every timestamp form parseTimestamp takes, and nothing else", async () => {
    const { isoMs } = await import("./record-row.js");
    const { parseTimestamp } = await import("../record/record.js");
    for (const t of [
      "2026-01-01T00:00:00.1234567890Z",
      "2026-01-01T00:00Z",
      "2026-01-01T00:00:00+0100",
      "2026-01-01T00:00:00.000Z",
      "2026-01-01 00:00:00Z",
      "2026-01-01T00:00:00",
      "yesterday",
    ])
      expect(isoMs(t), t).toBe(parseTimestamp(t) ?? NaN);
    expect(isoMs("2026-01-01T00:00:00.1234567890Z")).toBe(Date.UTC(2026, 0, 1, 0, 0, 0, 123));
  });
});
