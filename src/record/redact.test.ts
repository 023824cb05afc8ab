import { describe, expect, it } from "vitest";
import { isStowageError } from "../shared/errors.js";
import type { LogRecord } from "./record.js";
import { compileRedaction, createKeyMatcher, DEFAULT_REDACT_KEYS, normalizeKey } from "./redact.js";
import { luhnValid, redactDefaultPatterns } from "./redact-patterns.js";
import { sanitizeField, serializeRecord } from "./safe-json.js";

const base = { timestamp: "2026-03-01T10:00:00.000Z", level: "info", message: "m" } as const;
const out = (rec: Partial<LogRecord>, redact = compileRedaction()) =>
  JSON.parse(serializeRecord({ ...base, ...rec }, { redact })) as Record<string, unknown>;

describe("§3.3 sensitive keys", () => {
  it("§3.3 camel, kebab, snake, upper and pascal variants all normalise to the same key", () => {
    for (const k of [
      "accessToken",
      "access-token",
      "ACCESS_TOKEN",
      "access_token",
      "AccessToken",
      "access token",
    ]) {
      expect(normalizeKey(k)).toBe("access token");
    }
    expect(normalizeKey("X-API-Key")).toBe("x api key");
    expect(normalizeKey("APIKey")).toBe("api key");
  });

  it("§3.3 every default key and its case variants are redacted", () => {
    const data: Record<string, unknown> = {};
    for (const k of DEFAULT_REDACT_KEYS) {
      const words = k.split(" ");
      data[words.join("_").toUpperCase()] = "s1";
      data[words.map((w, i) => (i ? w[0]!.toUpperCase() + w.slice(1) : w)).join("")] = "s2";
      data[words.join("-")] = "s3";
    }
    const redacted = out({ data }).data as Record<string, unknown>;
    for (const [k, v] of Object.entries(redacted)) expect(v, k).toBe("[REDACTED]");
    expect(Object.keys(redacted).length).toBeGreaterThan(DEFAULT_REDACT_KEYS.length);
  });

  it("§3.3 a sensitive key redacts its whole value, objects and arrays included, at any depth", () => {
    const r = out({
      data: {
        user: { credentialCount: 1, password: { hash: "x", salt: "y" } },
        tokens: 3,
        session: [1, 2],
      },
    });
    expect(r.data).toEqual({
      user: { credentialCount: 1, password: "[REDACTED]" },
      tokens: 3,
      session: "[REDACTED]",
    });
    expect(out({ bindings: { apiKey: "k" } }).bindings).toEqual({ apiKey: "[REDACTED]" });
    const err = Object.assign(new Error("e"), { authorization: "Basic xyz" });
    expect((out({ error: err }).error as Record<string, unknown>).authorization).toBe("[REDACTED]");
  });

  it("§3.3 whole words only: compound keys ending in a sensitive key match, substrings do not", () => {
    const m = createKeyMatcher(DEFAULT_REDACT_KEYS);
    for (const k of [
      "dbPassword",
      "x-api-key",
      "clientSecret",
      "csrf_token",
      "userPin",
      "apikey",
      "accesstoken",
      "Set-Cookie",
    ]) {
      expect(m(k), k).toBe(true);
    }
    for (const k of [
      "spinner",
      "author",
      "oauthProvider",
      "pinned",
      "tokenCount",
      "prompt_tokens",
      "passwordless_enabled",
      "sessionCount",
      "keyboard",
    ]) {
      expect(m(k), k).toBe(false);
    }
  });

  it("§3.3 custom keys use the same rule; disableDefaults turns default keys off", () => {
    const r = compileRedaction({ keys: ["email"], disableDefaults: true });
    expect(out({ data: { userEmail: "a@b.c", EMAIL: "x", password: "p" } }, r).data).toEqual({
      userEmail: "[REDACTED]",
      EMAIL: "[REDACTED]",
      password: "p",
    });
  });
});

describe("§3.3 default value patterns", () => {
  const cases: [string, string, string][] = [
    ["bearer", "Authorization: Bearer abcDEF123456.xyz-789", "Authorization: [REDACTED:bearer]"],
    ["jwt", "t=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.sig_-nature ok", "t=[REDACTED:jwt] ok"],
    [
      "aws-access-key",
      "key AKIAIOSFODNN7EXAMPLE and ASIAY34FZKBOKMUTVV7A.",
      "key [REDACTED:aws-access-key] and [REDACTED:aws-access-key].",
    ],
    [
      "private-key",
      "k: -----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY----- done",
      "k: [REDACTED:private-key] done",
    ],
    [
      "private-key (truncated block)",
      "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
      "[REDACTED:private-key]",
    ],
    [
      "url-credentials",
      "db at postgres://app:s3cr@t@db.internal:5432/prod?x=1",
      "db at postgres://[REDACTED:url-credentials]@db.internal:5432/prod?x=1",
    ],
    ["card", "paid with 4111 1111 1111 1111 today", "paid with [REDACTED:card] today"],
    [
      "card (dashes, amex)",
      "card 4111-1111-1111-1111 or 378282246310005",
      "card [REDACTED:card] or [REDACTED:card]",
    ],
  ];
  for (const [kind, input, expected] of cases) {
    it(`§3.3 ${kind}`, () => {
      expect(redactDefaultPatterns(input)).toBe(expected);
      expect(out({ message: input }).message).toBe(expected);
      expect(out({ data: { deep: [{ note: input }] } }).data).toEqual({
        deep: [{ note: expected }],
      });
    });
  }

  it("§3.3 look-alikes stay: non-Luhn numbers, epoch ms, plain URLs, prose 'bearer', Asia", () => {
    const keep = [
      "order 4111111111111112 shipped", // 16 digits, Luhn-invalid
      "ts 1772359200006 and 2000000000008", // 13-digit epoch ms, both Luhn-valid
      "see https://example.com:8443/path?a=b@c",
      "the bearer of bad news",
      "zone Asia/Tokyo, id ASIA1",
      "2026-03-01 10:00:00",
    ];
    for (const s of keep) expect(redactDefaultPatterns(s), s).toBe(s);
    expect(luhnValid("4111111111111111")).toBe(true);
    expect(luhnValid("4111111111111112")).toBe(false);
    expect(luhnValid("2000000000008") && luhnValid("1772359200006")).toBe(true);
    expect(redactDefaultPatterns("visa13 4222222222222")).toBe("visa13 [REDACTED:card]"); // 13 digits with prefix 4
  });

  it("§3.3 disableDefaults turns default patterns off; custom patterns (RegExp or string) still apply", () => {
    const r = compileRedaction({ disableDefaults: true, patterns: [/ticket-\d+/i, "user-[a-z]+"] });
    expect(out({ message: "Bearer abcdef123456 TICKET-42 user-bob" }, r).message).toBe(
      "Bearer abcdef123456 [REDACTED:custom] [REDACTED:custom]",
    );
  });

  it("§3.3 an invalid custom pattern is a config error", () => {
    expect(() => compileRedaction({ patterns: ["(unclosed"] })).toThrowError(
      /redact\.patterns\[0\]/,
    );
    let err: unknown;
    try {
      compileRedaction({ patterns: ["(unclosed"] });
    } catch (e) {
      err = e;
    }
    expect(isStowageError(err, "config")).toBe(true);
  });

  it("§3.3 a secret straddling the string cap is still redacted before truncation", () => {
    const s = `${"x".repeat(95)} AKIAIOSFODNN7EXAMPLE`;
    const line = JSON.parse(
      serializeRecord(
        { ...base, message: s },
        { redact: compileRedaction(), maxStringLength: 100 },
      ),
    );
    expect(line.message).not.toContain("AKIA");
  });
});

describe("§3.3 custom paths", () => {
  it("§3.3 exact dot path, * one segment, ** any depth", () => {
    const r = compileRedaction({
      paths: ["data.user.email", "data.*.token2", "**.ssn2"],
      disableDefaults: true,
    });
    const rec = out(
      {
        data: {
          user: { email: "a@b.c", name: "n" },
          a: { token2: 1, x: 2 },
          b: { c: { token2: 3 } },
          ssn2: 4,
          deep: [{ ssn2: 5 }],
        },
        bindings: { ssn2: 6, email: "keep" },
      },
      r,
    );
    expect(rec.data).toEqual({
      user: { email: "[REDACTED]", name: "n" },
      a: { token2: "[REDACTED]", x: 2 },
      b: { c: { token2: 3 } },
      ssn2: "[REDACTED]",
      deep: [{ ssn2: "[REDACTED]" }],
    });
    expect(rec.bindings).toEqual({ ssn2: "[REDACTED]", email: "keep" });
  });

  it("§3.3 array indices are segments; a trailing ** redacts everything below; top-level fields can be paths", () => {
    const r = compileRedaction({
      paths: ["data.list.*.id", "data.secretish.**", "caller"],
      disableDefaults: true,
    });
    const rec = out(
      {
        caller: "src/a.ts:1",
        data: { list: [{ id: 1, v: 1 }, { id: 2 }], secretish: { a: 1, b: [2] } },
      },
      r,
    );
    expect(rec.caller).toBe("[REDACTED]");
    expect(rec.data).toEqual({
      list: [{ id: "[REDACTED]", v: 1 }, { id: "[REDACTED]" }],
      secretish: { a: "[REDACTED]", b: "[REDACTED]" },
    });
  });

  it("§3.3 a path that does not start at a record field is a config error with the fix", () => {
    expect(() => compileRedaction({ paths: ["user.email"] })).toThrowError(/data\.user\.email/);
    expect(() => compileRedaction({ paths: ["data..x"] })).toThrowError(/empty segment/);
  });

  it("§3.3 the redactor called directly returns a redacted, sanitised copy and leaves the input alone", () => {
    const redact = compileRedaction();
    const data = { password: "p", n: 1n };
    const copy = redact({ ...base, data });
    expect(copy.data).toEqual({ password: "[REDACTED]", n: "1" });
    expect(data.password).toBe("p");
  });

  it("§3.3 sanitizeField applies the paths of its field (bindings serialised once by child())", () => {
    const redact = compileRedaction({ paths: ["bindings.tenant.*"] });
    expect(
      sanitizeField("bindings", { tenant: { id: 1 }, apiKey: "k", n: 2n }, { redact }),
    ).toEqual({
      tenant: { id: "[REDACTED]" },
      apiKey: "[REDACTED]",
      n: "2",
    });
    expect(sanitizeField("data", { tenant: { id: 1 } }, { redact })).toEqual({ tenant: { id: 1 } });
  });
});
