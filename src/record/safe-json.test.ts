import { describe, expect, it } from "vitest";
import type { LogRecord } from "./record.js";
import { compileRedaction } from "./redact.js";
import { sanitizeRecord, serializeRecord } from "./safe-json.js";

const base = { timestamp: "2026-03-01T10:00:00.000Z", level: "info", message: "m" } as const;
const line = (data: unknown, opts = {}) =>
  JSON.parse(serializeRecord({ ...base, data }, opts)).data;

describe("safe serialisation rules", () => {
  it("§3.1 fields come out in canonical order; unknown fields are dropped", () => {
    const rec = {
      spanId: "s",
      traceId: "t",
      error: new Error("e"),
      bindings: { b: 1 },
      data: 1,
      caller: "a.ts:1",
      service: "api",
      message: "hi",
      level: "info",
      timestamp: base.timestamp,
      extra: 1,
    } as unknown as LogRecord;
    expect(Object.keys(JSON.parse(serializeRecord(rec)))).toEqual([
      "timestamp",
      "level",
      "message",
      "service",
      "caller",
      "data",
      "bindings",
      "error",
      "traceId",
      "spanId",
    ]);
    expect(Object.keys(JSON.parse(serializeRecord({ ...base })))).toEqual([
      "timestamp",
      "level",
      "message",
    ]);
  });

  it("§3.1 cycles, BigInt, functions, symbols, NaN", () => {
    const o: Record<string, unknown> = {
      n: 10n ** 30n,
      f() {},
      s: Symbol("x"),
      u: undefined,
      nan: NaN,
      inf: -Infinity,
    };
    o.self = o;
    o.arr = [o, () => 1, Symbol("y"), undefined, 1];
    expect(line(o)).toEqual({
      n: "1000000000000000000000000000000",
      nan: null,
      inf: null,
      self: "[Circular]",
      arr: ["[Circular]", null, null, null, 1],
    });
  });

  it("§3.1 a repeated (non-circular) reference is written twice, not as [Circular]", () => {
    const shared = { x: 1 };
    expect(line({ a: shared, b: shared })).toEqual({ a: { x: 1 }, b: { x: 1 } });
  });

  it("§3.1 throwing getters and toJSON become [Unserializable]; working toJSON is used", () => {
    const o = {
      get bad() {
        throw new Error("x");
      },
      ok: 1,
      j: {
        toJSON() {
          throw new Error("y");
        },
      },
      url: new URL("https://a.example/p"),
    };
    expect(line(o)).toEqual({
      bad: "[Unserializable]",
      ok: 1,
      j: "[Unserializable]",
      url: "https://a.example/p",
    });
  });

  it("§3.1 lone surrogates are replaced by U+FFFD; pairs survive", () => {
    expect(line({ s: "a\uD800b\uDC00c😀" })).toEqual({ s: "a\uFFFDb\uFFFDc😀" });
    expect(JSON.parse(serializeRecord({ ...base, message: "\uDFFF" })).message).toBe("\uFFFD");
    expect(line({ ["k\uD800"]: 1, ["x".repeat(2000)]: 2 })).toEqual({
      "k\uFFFD": 1,
      [`${"x".repeat(1024)}…`]: 2,
    });
  });

  it("§3.1 __proto__ keys stay plain data and pollute nothing", () => {
    const evil = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    const out = JSON.parse(serializeRecord({ ...base, data: evil }));
    const sanitized = sanitizeRecord({ ...base, data: evil }).data as Record<string, unknown>;
    expect(Object.getPrototypeOf(sanitized)).toBe(Object.prototype);
    expect(Object.keys(sanitized)).toEqual(["__proto__", "a"]);
    expect(JSON.stringify(out.data)).toBe('{"__proto__":{"polluted":true},"a":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("§3.1 depth cap, string cap, array and key caps are configurable", () => {
    const deep = { a: { b: { c: { d: 1 } } } };
    expect(line(deep, { maxDepth: 2 })).toEqual({ a: { b: "[MaxDepth]" } });
    const s = line("x".repeat(50), { maxStringLength: 10 });
    expect(s).toBe(`${"x".repeat(10)}…[truncated 40 chars]`);
    expect(line("😀😀", { maxStringLength: 3 })).toBe("😀…[truncated 2 chars]"); // no half pair
    expect(line([1, 2, 3, 4], { maxArrayLength: 2 })).toEqual([1, 2, "[+2 more items]"]);
    expect(line({ a: 1, b: 2, c: 3 }, { maxObjectKeys: 1 })).toEqual({
      a: 1,
      "…": "[+2 more keys]",
    });
    expect(line("y".repeat(20_000))).toHaveLength(16 * 1024 + "…[truncated 3616 chars]".length);
  });

  it("§3.1 dates, binary, Map, Set, boxed values, RegExp, null-prototype objects", () => {
    const m = new Map<unknown, unknown>([
      ["k", 1],
      [2, "two"],
    ]);
    const objKeyMap = new Map([[{ id: 1 }, "v"]]);
    expect(
      line({
        d: new Date(0),
        bad: new Date(NaN),
        buf: Buffer.from("abc"),
        u8: new Uint16Array(4),
        ab: new ArrayBuffer(8),
        m,
        objKeyMap,
        set: new Set([1, "a"]),
        str: new String("s"),
        re: /a+/gi,
        nul: Object.assign(Object.create(null), { z: 1 }),
      }),
    ).toEqual({
      d: "1970-01-01T00:00:00.000Z",
      bad: "Invalid Date",
      buf: "[Buffer 3 bytes]",
      u8: "[Uint16Array 8 bytes]",
      ab: "[ArrayBuffer 8 bytes]",
      m: { k: 1, 2: "two" },
      objKeyMap: [[{ id: 1 }, "v"]],
      set: [1, "a"],
      str: "s",
      re: "/a+/gi",
      nul: { z: 1 },
    });
  });

  it("§3.1 non-string structural fields are coerced to text", () => {
    const rec = {
      timestamp: 5,
      level: {
        toString: () => {
          throw new Error("x");
        },
      },
      message: undefined,
    } as unknown as LogRecord;
    expect(JSON.parse(serializeRecord(rec))).toEqual({
      timestamp: "5",
      level: "[Unserializable]",
      message: "",
    });
  });
});

/** Deterministic PRNG so a failure reproduces. */
function rng(seed: number) {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

function hostileValues(): unknown[] {
  const throwAll = new Proxy(
    {},
    new Proxy(
      {},
      {
        get: () => () => {
          throw new Error("trap");
        },
      },
    ),
  );
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const cyc: Record<string, unknown> = { a: 1 };
  cyc.me = cyc;
  const cycArr: unknown[] = [1];
  cycArr.push(cycArr);
  const mutualA: Record<string, unknown> = {};
  mutualA.b = { a: mutualA };
  let deep: unknown = "bottom";
  for (let i = 0; i < 5000; i++) deep = { d: deep };
  let deepArr: unknown = 1;
  for (let i = 0; i < 5000; i++) deepArr = [deepArr];
  const errCycle = new Error("cyc");
  errCycle.cause = errCycle;
  const badErr = new Error("x");
  Object.defineProperty(badErr, "stack", {
    get() {
      throw new Error("no stack");
    },
  });
  class Weird {
    get g() {
      return { fresh: new Weird() };
    }
    x = 1;
  }
  const endless: { next: unknown } = {
    get next(): unknown {
      return { self: endless, next: { ...endless } };
    },
  };
  const toJsonSelf = {
    toJSON() {
      return toJsonSelf;
    },
  };
  const toJsonChain = {
    toJSON() {
      return { toJSON: toJsonChain.toJSON, v: 1 };
    },
  };
  const badTag = {
    get [Symbol.toStringTag]() {
      throw new Error("tag");
    },
  };
  const sparse = new Array(5);
  sparse[3] = 1n;
  const setCyc = new Set<unknown>();
  setCyc.add(setCyc);
  const mapCyc = new Map<unknown, unknown>();
  mapCyc.set("m", mapCyc);
  const getterArr = [1, 2];
  Object.defineProperty(getterArr, 0, {
    get() {
      throw new Error("idx");
    },
  });
  const manyKeys = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, i]));
  const bigArr = new Array(5_000).fill("x");
  return [
    throwAll,
    revoked,
    cyc,
    cycArr,
    mutualA,
    deep,
    deepArr,
    errCycle,
    badErr,
    new Weird(),
    endless,
    toJsonSelf,
    toJsonChain,
    badTag,
    sparse,
    setCyc,
    mapCyc,
    getterArr,
    manyKeys,
    bigArr,
    10n ** 100n,
    Symbol("s"),
    () => 1,
    undefined,
    null,
    NaN,
    -0,
    Infinity,
    new Date(NaN),
    "x".repeat(1_000_000),
    "\uD800",
    "\uDC00\uD800",
    "a\uD83D",
    JSON.parse('{"__proto__":{"isAdmin":true}}'),
    { ["__proto__"]: 1 },
    { ["\uD800"]: "lone key", ["a\uDC00"]: { ["\uD83D"]: new Map([["\uDFFF", 1]]) } },
    Object.create(null),
    new WeakMap(),
    Promise.resolve(1),
    new AggregateError([throwAll, cyc]),
    new Proxy([], {
      get() {
        throw new Error("arr");
      },
    }),
    new Proxy(new Error("e"), {
      ownKeys() {
        throw new Error("k");
      },
    }),
    Buffer.alloc(3),
    new DataView(new ArrayBuffer(2)),
    new Map([[Symbol("k"), 1]]),
    Object(1n),
    Object(Symbol("b")),
    { [Symbol("hidden")]: 1, shown: 2 },
    new (class extends Map {
      override get size(): number {
        throw new Error("sz");
      }
    })(),
  ];
}

describe("§3.1 serialisation never throws", () => {
  it("§3.1 thousands of hostile values: none throws, every line parses, strings are well-formed, nothing polluted", () => {
    const pool = hostileValues();
    const rand = rng(42);
    const pick = () => pool[Math.floor(rand() * pool.length)];
    const redact = compileRedaction({ paths: ["data.**.secretish", "bindings.*"], keys: ["me"] });
    const optionSets = [
      {},
      { redact },
      { maxDepth: 100_000, maxArrayLength: 1e9, maxObjectKeys: 1e9, redact },
    ];
    let lines = 0;
    for (let i = 0; i < 2000; i++) {
      const combo: Record<string, unknown> = {};
      for (let k = 0; k < 3; k++) combo[`k${k}`] = pick();
      const rec = {
        ...base,
        message: i % 7 === 0 ? (pick() as string) : "m",
        data: i % 2 ? pick() : combo,
        bindings: i % 3 ? (combo as Record<string, unknown>) : (pick() as Record<string, unknown>),
        error: pick(),
        service: i % 11 === 0 ? (pick() as string) : undefined,
      } as LogRecord;
      const text = serializeRecord(rec, optionSets[i % optionSets.length]);
      const parsed = JSON.parse(text) as unknown;
      expect(typeof parsed).toBe("object");
      expect(text.includes("\n")).toBe(false);
      if (!allWellFormed(parsed)) throw new Error(`ill-formed string in record ${i}`);
      lines++;
    }
    expect(lines).toBe(2000);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it("§3.1 each hostile value alone, in every field, serialises to valid JSON", () => {
    for (const v of hostileValues()) {
      for (const field of ["data", "bindings", "error", "message", "caller", "traceId"]) {
        const text = serializeRecord({ ...base, [field]: v } as LogRecord);
        expect(() => JSON.parse(text)).not.toThrow();
      }
    }
  });
});

function allWellFormed(v: unknown): boolean {
  if (typeof v === "string") return (v as unknown as { isWellFormed(): boolean }).isWellFormed();
  if (Array.isArray(v)) return v.every(allWellFormed);
  if (v !== null && typeof v === "object") {
    return Object.entries(v).every(([k, x]) => allWellFormed(k) && allWellFormed(x));
  }
  return true;
}
