/**
 * Issue 31 §3: the shapes redaction learned — `name: value` pairs and JSON text in
 * strings, URL fragments and query-only names, header names, HAR lists, the new key
 * table entries — each with the ordinary look-alike that must stay, and the one-pass
 * clearing contract (plain-string.ts) checked against the new rules.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LogRecord } from "./record.js";
import { isPlainClear } from "./plain-string.js";
import {
  compileRedaction,
  createKeyMatcher,
  DEFAULT_REDACT_KEYS,
  isCredentialHeaderName,
  isCredentialQueryParam,
  redactNamed,
  STAYS_CLEAR_EXAMPLES,
} from "./redact.js";
import { pairedSecretIndexes } from "./redact-arrays.js";
import { createPairNameMatcher } from "./redact-text.js";
import { serializeRecord } from "./safe-json.js";

const redact = compileRedaction();
const r = (s: string) => redact.plan.redactString(s);
const line = (data: unknown) =>
  serializeRecord(
    { timestamp: "2026-01-01T00:00:00.000Z", level: "info", message: "m", data } as LogRecord,
    { redact },
  );

describe("issue 31 §3 name: value pairs and JSON text in strings", () => {
  const cases: [string, string][] = [
    ['{"user":"bob","password":"hunter2"}', '{"user":"bob","password":"[REDACTED]"}'],
    ['{ "client_secret" : "cs-1" }', '{ "client_secret" : "[REDACTED]" }'],
    ['{"pin":4821,"n":1}', '{"pin":"[REDACTED]","n":1}'],
    ['{"apiKeys":["a1","b2"],"n":1}', '{"apiKeys":"[REDACTED]","n":1}'],
    ['{"credentials":{"user":"u","pass":"p"}}', '{"credentials":"[REDACTED]"}'],
    ['{"body":"{\\"token\\":\\"tk-1\\"}"}', '{"body":"{\\"token\\":\\"[REDACTED]\\"}"}'],
    ['{"token":null,"password":""}', '{"token":null,"password":""}'],
    ["password: hunter2", "password: [REDACTED]"],
    ["password: 'a b' and more", "password: '[REDACTED]' and more"],
    ["{ user: 'bob', apiKey: 'k-1' }", "{ user: 'bob', apiKey: '[REDACTED]' }"],
    ["Authorization: Token abc123", "Authorization: [REDACTED]"],
    ['Authorization: Digest username="u", response="r1"', "Authorization: [REDACTED]"],
    [
      "curl -H 'Authorization: Token t1' https://x",
      "curl -H 'Authorization: [REDACTED]' https://x",
    ],
    ["Cookie: connect.sid=s1; theme=dark\r\nHost: x", "Cookie: [REDACTED]\r\nHost: x"],
    ["x-functions-key: fk1", "x-functions-key: [REDACTED]"],
    ["Authorization: Bearer abcdef123456", "Authorization: [REDACTED:bearer]"],
  ];
  it.each(cases)("issue 31 §3 %j", (input, expected) => expect(r(input)).toBe(expected));

  const stays = [
    "error: connection refused",
    "GET /api/orders/:id 200",
    "10:00: started",
    '{"user":"bob","count":3}',
    "key: users:42",
    "see auth://broker",
    "password:hunter2", // no space: the one-pass check could not see it (documented)
    "Digest of the week: 3 incidents",
  ];
  it.each(stays)("issue 31 §3 stays: %j", (s) => expect(r(s)).toBe(s));
});

describe("issue 31 §3 parameters: #fragments, query-only names, cookie names", () => {
  const cases: [string, string][] = [
    ["https://a/cb#access_token=t1&x=1", "https://a/cb#access_token=[REDACTED]&x=1"],
    ["https://maps/api?a=1&key=AIza1", "https://maps/api?a=1&key=[REDACTED]"],
    ["https://a/cb?code=c1&state=s", "https://a/cb?code=[REDACTED]&state=s"],
    ["https://a/dl?t=tok1", "https://a/dl?t=[REDACTED]"],
    ["https://g/o?X-Goog-Signature=g1", "https://g/o?X-Goog-Signature=[REDACTED]"],
    ["sid=s1", "sid=[REDACTED]"],
    ["/app;jsessionid=j1", "/app;jsessionid=[REDACTED]"],
  ];
  it.each(cases)("issue 31 §3 %j", (input, expected) => expect(r(input)).toBe(expected));
  it.each(["key=user:42", "t=5 retries=2", "code=200 ok", "status code=404"])(
    "issue 31 §3 outside a URL query the query-only names stay: %j",
    (s) => expect(r(s)).toBe(s),
  );
});

describe("issue 31 §3 names that are credentials in one place only", () => {
  it("issue 31 §3 query parameters", () => {
    for (const k of ["key", "code", "t", "pass", "sig", "X-Amz-Signature", "oauth_signature"])
      expect(isCredentialQueryParam(k), k).toBe(true);
    for (const k of ["page", "sort", "state", "keyword", "promo_code", "type"])
      expect(isCredentialQueryParam(k), k).toBe(false);
  });

  it("issue 31 §3 header names", () => {
    for (const h of [
      "x-functions-key",
      "Ocp-Apim-Subscription-Key",
      "x-upstream-key",
      "x-signature",
      "X-Hub-Signature-256",
    ])
      expect(isCredentialHeaderName(h), h).toBe(true);
    for (const h of ["idempotency-key", "Sec-WebSocket-Key", "cacheKey", "key", "x-request-id"])
      expect(isCredentialHeaderName(h), h).toBe(false);
  });

  it("issue 31 §3 redactNamed copies only when a name is a credential", () => {
    const q = { key: "AIza1", page: "2" };
    expect(redactNamed(q, isCredentialQueryParam)).toEqual({ key: "[REDACTED]", page: "2" });
    expect(q.key).toBe("AIza1");
    const clear = { page: "2" };
    expect(redactNamed(clear, isCredentialQueryParam)).toBe(clear);
  });

  it("issue 31 §3 header lists: rawHeaders and HAR entries with a credential header name", () => {
    const isName = (n: string) =>
      createKeyMatcher(DEFAULT_REDACT_KEYS)(n) || isCredentialHeaderName(n);
    expect(pairedSecretIndexes(["Host", "h", "x-functions-key", "k"], isName)).toEqual([3]);
    const har = [
      { name: "Accept", value: "*/*" },
      { name: "Cookie", value: "sid=1" },
    ];
    expect(pairedSecretIndexes(har, isName)).toEqual([1]);
    expect(pairedSecretIndexes([{ name: "Cookie" }], isName)).toBeNull(); // no value: not HAR
    expect(pairedSecretIndexes([{ id: 1 }, { id: 2 }], isName)).toBeNull();
    expect(line({ headers: har })).toBe(
      line({ headers: [{ name: "Accept", value: "*/*" }, "[REDACTED]"] }),
    );
  });
});

describe("issue 31 §3 key table additions", () => {
  const isSensitive = createKeyMatcher(DEFAULT_REDACT_KEYS);
  it.each([
    "PGPASSWORD",
    "rootpassword",
    "authtoken",
    "csrfmiddlewaretoken",
    "_csrf",
    "passcode",
    "DB_PASS",
    "password_hash",
    "secret_key_base",
    "connect.sid",
    "JSESSIONID",
    "authCode",
    "backup_codes",
    "subscription_key",
    "AccountKey",
    "jwt",
  ])("issue 31 §3 %s is redacted", (k) => expect(isSensitive(k)).toBe(true));
  it.each([...STAYS_CLEAR_EXAMPLES, "maxtokens", "secretary", "tokenizer"])(
    "issue 31 §3 %s stays",
    (k) => expect(isSensitive(k)).toBe(false),
  );
});

describe("issue 31 §3 one-pass clearing stays exact with the new rules", () => {
  const pieces = fc.constantFrom(
    "password",
    "token",
    "key",
    "Authorization",
    "Cookie",
    "x-functions-key",
    ":",
    ": ",
    ":'",
    "'",
    " ",
    "hunter2",
    "Token ",
    "10",
    "/",
    "#",
    "?",
    "&",
    "t",
    "sid",
    "a",
  );
  it("issue 31 §3 a string isPlainClear clears is one redaction leaves alone", () => {
    const redactors = [redact, compileRedaction({ keys: ["email"] })];
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 10 }), (parts) => {
        const s = parts.join("");
        for (const x of redactors) {
          if (isPlainClear(s)) expect(x.plan.redactString(s)).toBe(s);
          // the plan's check also looks the name before a `name: ` colon up
          if (x.plan.plainClear!(s)) expect(x.plan.redactString(s)).toBe(s);
        }
      }),
      { numRuns: 4000 },
    );
  });

  it.each(["password: x", "{ apiKey:'x' }", "x-functions-key: k"])(
    "issue 31 §3 never clears %j",
    (s) => {
      expect(isPlainClear(s)).toBe(false);
      expect(redact.plan.plainClear!(s)).toBe(false);
      expect(r(s)).not.toBe(s);
    },
  );

  it.each(["error: connection refused", "retry 3: timeout", "user: bob"])(
    "issue 31 §3 a colon after an ordinary name keeps the one-pass clearing: %j",
    (s) => expect(redact.plan.plainClear!(s)).toBe(true),
  );
});

describe("issue 31 §3 the name filter before a lookup never changes an answer", () => {
  it("issue 31 §3 filtered and unfiltered matchers agree on key-like names", () => {
    const word = fc.constantFrom(
      ...DEFAULT_REDACT_KEYS.flatMap((k) => k.split(" ")),
      "error",
      "user",
      "cache",
      "functions",
      "key",
      "keys",
      "signature",
      "256",
      "2",
      "ip",
      "mail",
    );
    const sep = fc.constantFrom("", "_", "-", ".", " ");
    const nameArb = fc
      .tuple(
        fc.array(fc.tuple(word, sep), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.constantFrom("", "s", "S"),
      )
      .map(([parts, upper, plural]) => {
        const n = parts.map(([w, s]) => w + s).join("") + plural;
        return upper ? n.toUpperCase() : n;
      });
    for (const keys of [DEFAULT_REDACT_KEYS, [...DEFAULT_REDACT_KEYS, "email"], ["ip"]]) {
      const km = createKeyMatcher(keys);
      const filtered = createPairNameMatcher(km, true, keys);
      const plain = createPairNameMatcher(km, true);
      fc.assert(
        fc.property(nameArb, (n) => {
          expect(filtered(n), n).toBe(plain(n));
        }),
        { numRuns: 2000 },
      );
    }
  });
});

describe("issue 31 §3 hostile inputs stay linear and exact", () => {
  it("issue 31 §3 thousands of unterminated JSON members and colons", () => {
    const s = `${'"password":"'.repeat(1300)}${"token: ".repeat(1000)}`;
    const out = r(s);
    expect(out.startsWith('"password":"')).toBe(true);
    expect(out).not.toMatch(/token: (?!\[REDACTED\])\S/);
  });
});
