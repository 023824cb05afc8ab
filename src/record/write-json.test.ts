// The one-pass JSON writer against its definition: every line serializeRecord writes is
// JSON.stringify of the reference walk's plain copy (test/support/reference-walk.ts) byte
// for byte, for hostile values and every kind of redaction; and the one-pass string checks
// never clear a string redaction would change.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isPlainAscii, isPlainClear } from "./plain-string.js";
import type { LogRecord } from "./record.js";
import { compileRedaction } from "./redact.js";
import {
  serializeRecord,
  serializeField,
  serializeRecordWithBindings,
  type SerializeOptions,
} from "./safe-json.js";
import { referenceField, referenceRecord } from "../../test/support/reference-walk.js";

const reference = (r: LogRecord, o: SerializeOptions) => JSON.stringify(referenceRecord(r, o));

const OPTIONS: [string, SerializeOptions][] = [
  ["no redaction", {}],
  ["default redaction", { redact: compileRedaction() }],
  [
    "custom keys, paths and patterns",
    {
      redact: compileRedaction({
        keys: ["email", "userId"],
        paths: ["data.a.*", "**.n", "data.0", "bindings.x", "message", "error.cause"],
        patterns: [/acme-\d+/, "s[0-9]+k"],
      }),
    },
  ],
  ["defaults off, one key", { redact: compileRedaction({ disableDefaults: true, keys: ["b"] }) }],
  [
    "small caps",
    {
      redact: compileRedaction(),
      maxDepth: 2,
      maxStringLength: 5,
      maxArrayLength: 2,
      maxObjectKeys: 2,
    },
  ],
];

/** Strings built from the pieces every redaction rule and JSON escape looks for. */
const trickyString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 6 }),
  fc
    .array(
      fc.constantFrom(
        "Bearer ",
        "bearer",
        "Basic ",
        "dTpwYXNzd29yZA==",
        "eyJhbGciOi.eyJzdWIi.sig",
        "AKIA",
        "ABCDEFGHLMNOPQRS",
        "dTpwYXNz",
        "eyJab.cd.ef",
        "4111",
        "1111",
        " ",
        "-",
        "://",
        "u:p@",
        "token=",
        "x=1",
        "&",
        "?",
        "PRIVATE KEY",
        "-----BEGIN ",
        '"',
        "\\",
        "\n",
        "\uD800",
        "é",
        "acme-12",
        "s12k",
        "a",
        "r",
        "c",
        "7",
        "2",
      ),
      { maxLength: 8 },
    )
    .map((parts) => parts.join("")),
);

const keyArb = fc.oneof(
  fc.constantFrom(
    "a",
    "b",
    "n",
    "x",
    "password",
    "token",
    "tokens",
    "userId",
    "email",
    "__proto__",
    "toJSON",
    "…",
    "0",
    "1",
    "10",
    "01",
    "-1",
    "a\uD800",
    "a\uDBFF",
    "a\uFFFD",
    "k".repeat(1030),
    `${"k".repeat(1024)}…`,
  ),
  fc.string({ maxLength: 4 }),
);

const valueArb = fc.letrec((tie) => ({
  leaf: fc.oneof(
    trickyString,
    fc.double(),
    fc.integer(),
    fc.bigInt(),
    fc.boolean(),
    fc.constantFrom(null, undefined, () => 1, Symbol("s")),
    fc.date({ noInvalidDate: false }),
  ),
  node: fc.oneof(
    { depthSize: "small" },
    tie("leaf"),
    fc.array(tie("node"), { maxLength: 4 }),
    fc.dictionary(keyArb, tie("node"), { maxKeys: 5 }),
    tie("node").map((v) => ({ toJSON: () => v })),
    tie("node").map((v) => Object.assign(new Error("boom"), { detail: v })),
    tie("node").map(
      (v) =>
        new Map([
          ["password", v],
          ["k", v],
        ]),
    ),
    tie("node").map((v) => new Set([v, "x"])),
  ),
}));

describe("the one-pass writer equals JSON.stringify of the sanitised copy", () => {
  for (const [name, opts] of OPTIONS) {
    it(`random records, ${name}`, () => {
      fc.assert(
        fc.property(
          // Consecutive records often share a timestamp (a millisecond) with another level:
          // the writer's cached record head must follow both.
          fc.oneof(fc.constant("2026-12-01T10:00:00.000Z"), trickyString),
          fc.constantFrom("info", "warning", "error", "trace", 'x"y'),
          trickyString,
          valueArb.node,
          valueArb.node,
          fc.option(valueArb.node, { nil: undefined }),
          (timestamp, level, message, data, bindings, error) => {
            const r = { timestamp, level, message, data, bindings, error } as LogRecord;
            if (error === undefined) delete r.error;
            expect(serializeRecord(r, opts)).toBe(reference(r, opts));
            const b = JSON.stringify(referenceField("bindings", bindings, opts));
            expect(serializeField("bindings", bindings, opts)).toBe(b);
            if (b !== undefined)
              expect(serializeRecordWithBindings(r, b, opts)).toBe(reference(r, opts));
          },
        ),
        { numRuns: 400 },
      );
    });
  }

  it("hostile objects: cycles, throwing getters and traps, revoked proxies, odd prototypes", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const shared = { s: 1 };
    const getters = Object.defineProperty({ ok: 1 }, "bad", {
      enumerable: true,
      get() {
        throw new Error("no");
      },
    });
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    const reordered = new Proxy({ b: 1, 1: 2, a: 3 } as Record<string, unknown>, {
      ownKeys: () => ["b", "a", "1"],
    });
    const named = new Proxy({ b: 1, a: 3 } as Record<string, unknown>, {
      ownKeys: () => ["b", "a"],
    });
    class Point {
      constructor(
        public x = 1,
        public y = 2,
      ) {}
    }
    const values: unknown[] = [
      cyclic,
      [cyclic, cyclic],
      { a: shared, b: shared, c: [shared] },
      getters,
      revoked,
      { revoked },
      reordered,
      named,
      new Point(),
      Object.assign(Object.create(null) as object, { password: "p", z: 1 }),
      { toJSON: () => undefined },
      { nested: { toJSON: () => undefined }, list: [{ toJSON: () => undefined }] },
      { toJSON: () => ({ toJSON: () => "deep" }) },
      Object.assign(new Error("e", { cause: new Error("c") }), { code: "E1", token: "t" }),
      ["Host", "x", "Cookie", "sid=1"],
      [["authorization", "Bearer abcdefghijkl"]],
      new Uint8Array(3),
      Buffer.from("ab"),
      /re+/g,
      Object(1n),
      Object("s"),
      new Array(3),
      { [`${"k".repeat(1024)}a`]: 1, [`${"k".repeat(1024)}b`]: 2 },
      { "a\uD800": 1, "a\uDBFF": 2 },
      { "…": 1 },
      { 2: "b", 1: "a", x: "c" },
    ];
    for (const [, opts] of OPTIONS)
      for (const data of values) {
        const r = { timestamp: "t", level: "info", message: "m", data, error: data } as LogRecord;
        expect(serializeRecord(r, opts)).toBe(reference(r, opts));
      }
  });

  it("built-ins and objects a plain copy reorders: errors, Map/Set, dates, odd keys", () => {
    const cause: Error & { cause?: unknown } = new Error("c");
    const looped = new Error("l", { cause });
    cause.cause = looped;
    const named = Object.defineProperty(new Error("n"), "name", {
      get() {
        throw new Error("no");
      },
    });
    const long = "k".repeat(1030);
    class Tagged extends Map<unknown, unknown> {
      tag = "t";
    }
    const values: unknown[] = [
      Object.assign(new Error("e"), { 0: "zero", b: 1, __proto__: null, [`${long}a`]: 2 }),
      JSON.parse('{"__proto__":{"token":"t"},"a":1}') as unknown,
      Object.assign(new Error("m"), { message: { toString: () => "as text" } }),
      Object.assign(new Error("m"), { message: { toString: () => 1n + (1 as never) } }),
      named,
      looped,
      Object.assign(new Error("s3"), { $metadata: { httpStatusCode: 503 }, statusCode: undefined }),
      Object.assign(new Error("h"), { statusCode: 404, code: 7n }),
      new AggregateError([new Error("x"), "y", { password: "p" }], "agg"),
      new Map<unknown, unknown>([
        ["b", 1],
        [2, "two"],
        [1, "one"],
        ["…", "dots"],
        ["__proto__", { token: "t" }],
        [`${long}a`, 1],
        [`${long}b`, 2],
      ]),
      new Map<unknown, unknown>([
        ["x", 0],
        [true, "bool"],
        [null, "null"],
        ["true", "text"],
        ["null", "text"],
      ]),
      new Map<unknown, unknown>([
        ["1", "text"],
        [1, "number"],
      ]),
      new Map([
        ["2", "two"],
        ["1", "one"],
        ["4294967295", "not an index"],
        ["b", "named"],
        ["0", "zero"],
      ]),
      new Map<unknown, unknown>([
        [{ k: 1 }, "v"],
        ["authorization", "Bearer abcdefghijkl"],
      ]),
      new Tagged([["password", "p"]]),
      new Set([new Set([new Set([1])]), new Map([["m", new Map([["n", 1]])]])]),
      { b: 1, 1: 2, "…": 3, c: 4, d: 5 },
      new Date(Number.NaN),
      new (class D extends Date {})(0),
      Object(Symbol("s")),
      new Number(Number.NaN),
      Object.create(Array.prototype) as object,
      { deep: { er: { r: new Error("deep", { cause: new Error("deeper") }) } } },
      { e: new Error("x", { cause: { a: { b: 1 } } }), m: new Map([["a", { b: { c: 1 } }]]) },
    ];
    for (const [, opts] of OPTIONS)
      for (const data of values) {
        const r = { timestamp: "t", level: "info", message: "m", data, error: data } as LogRecord;
        expect(serializeRecord(r, opts)).toBe(reference(r, opts));
      }
  });

  it("a toJSON that logs again while its record is being written sees no false cycles", () => {
    const opts: SerializeOptions = { redact: compileRedaction() };
    const inner = { deep: { v: 1 } };
    let nested = "";
    const data = {
      inner,
      toJSON() {
        nested = serializeRecord(
          { timestamp: "t", level: "info", message: "n", data: inner },
          opts,
        );
        return { inner };
      },
    };
    const line = serializeRecord({ timestamp: "t", level: "info", message: "m", data }, opts);
    expect(nested).toBe('{"timestamp":"t","level":"info","message":"n","data":{"deep":{"v":1}}}');
    expect(line).toBe(
      '{"timestamp":"t","level":"info","message":"m","data":{"inner":{"deep":{"v":1}}}}',
    );
  });
});

it("the same message under different redactions is written for each, not reused across them", () => {
  const r = { timestamp: "t", level: "info", message: "x?token=abc" } as LogRecord;
  const lines = [0, 1, 2, 3, 4, 0].map((k) => serializeRecord(r, OPTIONS[k]![1]));
  expect(lines.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual([
    "x?token=abc",
    "x?token=[REDACTED]",
    "[REDACTED]",
    "x?token=abc",
    "x?tok…[truncated 13 chars]",
    "x?token=abc",
  ]);
});

it("objects of one shape under different redactions and caps are written for each", () => {
  const data = { password: "p", b: 1, userId: "u" };
  const r = { timestamp: "t", level: "info", message: "m", data } as LogRecord;
  const out = [0, 1, 2, 3, 4, 1, 0].map((k) => JSON.parse(serializeRecord(r, OPTIONS[k]![1])).data);
  expect(out).toEqual([
    { password: "p", b: 1, userId: "u" },
    { password: "[REDACTED]", b: 1, userId: "u" },
    { password: "[REDACTED]", b: 1, userId: "[REDACTED]" },
    { password: "p", b: "[REDACTED]", userId: "u" },
    { password: "[REDACTED]", b: 1, "…": "[+1 more keys]" },
    { password: "[REDACTED]", b: 1, userId: "u" },
    { password: "p", b: 1, userId: "u" },
  ]);
});

describe("one-pass string checks", () => {
  const redactors = [compileRedaction(), compileRedaction({ keys: ["userId"] })];

  it("a string isPlainClear clears is what redaction returns, and its JSON is a plain quote", () => {
    fc.assert(
      fc.property(trickyString, (s) => {
        if (isPlainClear(s)) {
          expect(isPlainAscii(s)).toBe(true);
          for (const r of redactors) expect(r.plan.redactString(s)).toBe(s);
        }
        if (isPlainAscii(s)) expect(JSON.stringify(s)).toBe(`"${s}"`);
      }),
      { numRuns: 3000 },
    );
  });

  // each string trips exactly one of the checks the one pass makes
  it.each([
    ["Bearer abcdefgh1"],
    ["the bearer abcdefgh1"],
    ["Basic dTpwYXNz"],
    ["key AKIAABCDEFGHLMNOPQRS"],
    ["eyJab.cd.ef"],
    ["card 4111 1111 1111 1111"],
    ["card 4111-1111-1111-1111"],
    ["5555555555554444"],
    ["visa 4222222222222"],
    ["4222-222-222-222"],
    ["https://u:p@host/x"],
    ["a?token=abc"],
    ["-----BEGIN PRIVATE KEY-----"],
  ])("never clears %j", (s) => {
    expect(isPlainClear(s)).toBe(false);
    expect(compileRedaction().plan.redactString(s)).not.toBe(s);
  });

  it.each([
    ["request completed"],
    ["/api/orders/:id"],
    ["GET"],
    ["u-4999"],
    ["r-199999"],
    ["2026-12-01T10:00:00.000Z"],
    ["2026-12-01 10:00:00"],
    ["f47ac10b-58cc-4372-a567-0e02b2c3d479"],
    ["4111 1111 1111"],
    ["+1 555 0100 99"],
  ])("clears %j", (s) => expect(isPlainClear(s)).toBe(true));

  it("custom patterns turn the one-pass clearing off", () => {
    const r = compileRedaction({ patterns: ["abc"] });
    expect(r.plan.plainClear).toBeUndefined();
    expect(r.plan.redactString("xabcx")).toBe("x[REDACTED:custom]x");
  });
});
