import { describe, expect, it } from "vitest";
import { flatBindingsJson } from "./flat-bindings.js";
import { compileRedaction } from "./redact.js";
import { serializeBindings, serializeField, type SerializeOptions } from "./safe-json.js";
import { createContext } from "./walk-context.js";

/** The full walk's text of `o` as child-logger bindings (what the flat path must reproduce). */
const walked = (o: unknown, opts: SerializeOptions) => serializeField("bindings", o, opts);

const LONG = "x".repeat(17 * 1024);
const STRINGS: unknown[] = [
  "r-1",
  "",
  "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d",
  "req_01HZX3.a:b-c",
  'say "hi"',
  "back\\slash",
  "tab\there\nnew\r\u0000\u001f\u007f",
  "café",
  "日本語",
  "emoji 😀",
  "lone \uD800 high",
  "lone \uDC00 low",
  "\uD83D",
  LONG,
  `${"a".repeat(16 * 1024 - 1)}😀tail`, // a surrogate pair straddling the cap
  `${LONG}AKIAIOSFODNN7EXAMPLE`,
  "x".repeat(1024),
  "x".repeat(1025),
  "AKIAIOSFODNN7EXAMPLE",
  "ASIAIOSFODNN7EXAMPLE",
  "id AKIAIOSFODNN7EXAMPLE end",
  "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl",
  "Bearer abcdef123456",
  "bearer of bad news",
  "Basic dXNlcjpwYXNzd29yZA==",
  "4111111111111111",
  "4111-1111-1111-1111",
  "4111 1111 1111 1111",
  "1733300000000",
  "2026-12-04T20:00:00.000Z",
  "https://user:hunter2@example.com/x",
  "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----",
  "token=abc123",
  "/a?sig=abc&x=1",
  "password: hunter2",
  "error: refused",
  "acme-42",
  "12345678-1234-4234-8234-123456789012",
  0,
  -0,
  1.5,
  -7,
  1e21,
  Number.MAX_SAFE_INTEGER,
  NaN,
  Infinity,
  -Infinity,
  true,
  false,
  null,
  undefined,
  10n,
  () => 1,
  Symbol("s"),
];

const KEYS = [
  "requestId",
  "tenant",
  "password",
  "token",
  "tokens",
  "authorization",
  "apiKey",
  "x-functions-key",
  "accessKeyId",
  'q"uote',
  "café",
  "",
  "__proto__",
  "user",
];

const OPTIONS: [string, SerializeOptions][] = [
  ["no redaction", {}],
  ["default redaction", { redact: compileRedaction({}) }],
  ["paths bindings.requestId", { redact: compileRedaction({ paths: ["bindings.requestId"] }) }],
  ["paths bindings.*", { redact: compileRedaction({ paths: ["bindings.*"] }) }],
  ["paths bindings.**", { redact: compileRedaction({ paths: ["bindings.**"] }) }],
  ["paths **.tenant", { redact: compileRedaction({ paths: ["**.tenant"] }) }],
  ["paths *.requestId", { redact: compileRedaction({ paths: ["*.requestId"] }) }],
  ["paths bindings", { redact: compileRedaction({ paths: ["bindings"] }) }],
  ["paths data.requestId", { redact: compileRedaction({ paths: ["data.requestId"] }) }],
  [
    "custom key and pattern",
    { redact: compileRedaction({ keys: ["tenant"], patterns: ["acme-[0-9]+"] }) },
  ],
  ["defaults off", { redact: compileRedaction({ disableDefaults: true }) }],
  ["small caps", { maxStringLength: 8, redact: compileRedaction({}) }],
  ["one key kept", { maxObjectKeys: 1, redact: compileRedaction({}) }],
  ["maxDepth 0", { maxDepth: 0, redact: compileRedaction({}) }],
  ["maxDepth 1", { maxDepth: 1 }],
];

/** `{ [k]: v }` as an own data property (`__proto__` included). */
function own(entries: [string, unknown][], proto: object | null = Object.prototype): object {
  const o = Object.create(proto) as Record<string, unknown>;
  for (const [k, v] of entries)
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

/** Asserts the flat path's text (when it takes `o`) and serializeBindings' are the walk's. */
function check(o: object, opts: SerializeOptions, expectFlat?: boolean): void {
  const expected = walked(o, opts);
  const flat = flatBindingsJson(o, createContext(opts));
  if (expectFlat !== undefined) expect(flat !== null).toBe(expectFlat);
  if (flat !== null) expect(flat).toBe(expected);
  expect(serializeBindings(o as Record<string, unknown>, opts)).toBe(expected);
}

describe("flat child bindings (record/flat-bindings.ts)", () => {
  it("§3.3 redaction: keys, paths, value patterns, caps and repair: byte-identical to the full walk for one- and two-key bindings", () => {
    let flat = 0;
    for (const [, opts] of OPTIONS) {
      const ctx = createContext(opts);
      for (const k of KEYS) {
        for (const v of STRINGS) {
          const one = own([[k, v]]);
          check(one, opts);
          if (flatBindingsJson(one, ctx) !== null) flat++;
          check(
            own([
              ["requestId", "r-1"],
              [k, v],
            ]),
            opts,
          );
          check(
            own(
              [
                [k, v],
                ["n", 7],
              ],
              null,
            ),
            opts,
          );
        }
      }
    }
    expect(flat).toBeGreaterThan(OPTIONS.length * KEYS.length * STRINGS.length * 0.8);
  });

  it("§3.3 the request id case takes the flat path, and what the walk redacts it redacts", () => {
    const redact = compileRedaction({ paths: ["bindings.traceToken"] });
    const opts = { redact };
    const cases: [Record<string, unknown>, string][] = [
      [{ requestId: "r-1" }, '{"requestId":"r-1"}'],
      [{ requestId: "AKIAIOSFODNN7EXAMPLE" }, '{"requestId":"[REDACTED:aws-access-key]"}'],
      [{ password: "p", requestId: "r" }, '{"password":"[REDACTED]","requestId":"r"}'],
      [
        { traceToken: "t", n: 1, ok: true, z: null },
        '{"traceToken":"[REDACTED]","n":1,"ok":true,"z":null}',
      ],
      [{ authorization: { nested: 1 } }, '{"authorization":"[REDACTED]"}'],
      [{ requestId: "r", gone: undefined }, '{"requestId":"r"}'],
      [{ requestId: `a"b` }, '{"requestId":"a\\"b"}'],
      [{}, "{}"],
    ];
    for (const [o, text] of cases) {
      expect(flatBindingsJson(o, createContext(opts))).toBe(text);
      expect(walked(o, opts)).toBe(text);
    }
    const all = { redact: compileRedaction({ paths: ["bindings"] }) };
    expect(flatBindingsJson({ requestId: "r" }, createContext(all))).toBe('"[REDACTED]"');
  });

  it("§3.3 anything but a flat plain object falls back to the full walk, which gives the same text", () => {
    const opts = { redact: compileRedaction({}) };
    class Bindings {
      requestId = "r-1";
    }
    let reads = 0;
    const getter = Object.defineProperty({}, "requestId", {
      get: () => {
        reads++;
        return "r-1";
      },
      enumerable: true,
    });
    const sym = { requestId: "r-1", [Symbol("s")]: "x" };
    const hidden = Object.defineProperty({ requestId: "r-1" }, "secret", { value: "s" });
    const many = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, i]));
    const fallBack: object[] = [
      { requestId: "r", user: { id: 1 } },
      { requestId: "r", list: [1, 2] },
      { at: new Date(0) },
      { 1: "integer-like key" },
      { "…": "the more-keys marker" },
      { "k\uD800": "a key the copy repairs" },
      { ["k".repeat(300)]: "a long key" },
      { toJSON: "x" },
      { toJSON: () => ({ a: 1 }) },
      new Bindings(),
      [1, 2],
      new Proxy({ requestId: "r-1" }, {}),
      getter,
      many,
    ];
    for (const o of fallBack) check(o, opts, false);
    expect(reads).toBe(2); // once by each full walk check() runs, never by the flat path
    // symbol keys and non-enumerable properties: neither path writes them
    check(sym, opts, true);
    check(hidden, opts, true);
    check({ requestId: "r" }, { maxDepth: 0 }, false);
  });

  it("§3.3 random ids over a hostile alphabet: byte-identical to the full walk", () => {
    const alphabet = [
      ...'abcdefIJ0123456789-_.:= "\\/@?&#;,',
      "\u0000",
      "\u007f",
      "é",
      "\uD800",
      "\uDC00",
      "😀",
      "eyJ",
      "AKIA",
      "Bearer ",
      "://",
    ];
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const optsList = [
      {},
      { redact: compileRedaction({}) },
      { maxStringLength: 24, redact: compileRedaction({ paths: ["bindings.b"] }) },
    ];
    for (let i = 0; i < 3000; i++) {
      let s = "";
      const len = rand(48);
      for (let j = 0; j < len; j++) s += alphabet[rand(alphabet.length)];
      for (const opts of optsList) check({ requestId: s, b: s.length ? s : 1 }, opts, true);
    }
  });
});
