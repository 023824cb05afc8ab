// Hostile values against redaction (SPEC §3.3): what applications really log
// (rawHeaders, header pairs, Maps, URLs, connection strings), the key table both ways, and
// fast-check properties over the serializer and the real logger (child bindings, Error props).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/index.js";
import {
  compileRedaction,
  createKeyMatcher,
  DEFAULT_REDACT_KEYS,
  STAYS_CLEAR_EXAMPLES,
} from "../../src/record/redact.js";
import type { LogRecord } from "../../src/record/record.js";
import { serializeRecord } from "../../src/record/safe-json.js";
import { LocalStore } from "../../src/store/local-store.js";
import { readBack } from "../support/read-back.js";

const SECRET = "S3cr3tValue9x";
/** A Basic credential carries the secret base64-encoded: that form must not be stored either. */
const basic = (secret: string, user = "u") => Buffer.from(`${user}:${secret}`).toString("base64");
const BASIC = basic(SECRET, "admin");
const redact = compileRedaction();
const line = (data: unknown) =>
  serializeRecord(
    { timestamp: "2026-01-01T00:00:00.000Z", level: "info", message: "m", data } as LogRecord,
    { redact },
  );

describe("§2 values applications really log", () => {
  const cases: [string, () => unknown][] = [
    [
      "node:http rawHeaders (flat name/value list)",
      () => ({
        rawHeaders: [
          "Host",
          "example.com",
          "Authorization",
          `Bearer ${SECRET}`,
          "Cookie",
          `sid=${SECRET}`,
        ],
      }),
    ],
    ["header pairs", () => ({ headers: [["authorization", SECRET]] })],
    ["HTTP/2 pseudo-header list", () => [":path", "/", "x-api-key", SECRET]],
    ["password inside a Map", () => ({ m: new Map([["password", SECRET]]) })],
    [
      "password inside a Map with object keys",
      () => ({
        m: new Map<unknown, unknown>([
          [{ id: 1 }, 1],
          ["password", SECRET],
        ]),
      }),
    ],
    ["?access_token= in a URL", () => `https://api.example.com/v1?access_token=${SECRET}&x=1`],
    ["&token= in a URL", () => `https://api.example.com/v1?page=2&token=${SECRET}`],
    ["api_key= in a bare query string", () => `api_key=${SECRET}&format=json`],
    [
      "pre-signed S3 URL",
      () =>
        `https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${SECRET}%2F20260101&X-Amz-Signature=${SECRET}`,
    ],
    ["Authorization: Basic in free text", () => `Authorization: Basic ${BASIC}`],
    ["ADO connection string", () => `Server=db;Database=app;User Id=sa;Password=${SECRET};`],
    ["ODBC connection string", () => `DRIVER={x};UID=sa;PWD=${SECRET}`],
    ["libpq keyword string", () => `host=db port=5432 password=${SECRET} dbname=app`],
    ["quoted value", () => `password='${SECRET} with space'`],
    ["Error property", () => Object.assign(new Error("boom"), { apiKeys: [SECRET] })],
  ];
  it.each(cases)("%s: the secret is not stored", (_name, value) => {
    const out = line(value());
    expect(() => JSON.parse(out) as unknown).not.toThrow();
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain(BASIC);
  });

  const clear: [string, unknown, string][] = [
    ["a plain word list stays", ["host", "example.com"], "example.com"],
    ["an ordinary query string stays", "https://x.io/?page=2&sort=name", "sort=name"],
    ["Basic prose stays", "Basic information about the order", "Basic information"],
    ["a cache key stays", { cacheKey: "user:42" }, "user:42"],
    ["token counts stay", { usage: { prompt_tokens: 12, tokens: 30 } }, '"tokens":30'],
  ];
  it.each(clear)("%s", (_name, value, kept) => {
    expect(line(value)).toContain(kept);
  });
});

describe("§2 key table: plurals and secret compounds redacted, names that only contain key stay", () => {
  const isSensitive = createKeyMatcher(DEFAULT_REDACT_KEYS);
  const redacted = [
    "passwords",
    "secrets",
    "apiKeys",
    "api_keys",
    "cookies",
    "credentials",
    "credential",
    "ssh_key",
    "sshKeys",
    "signing_key",
    "signingKeys",
    "encryption_key",
    "session_key",
    "private_keys",
    "privateKeys",
    "mnemonic",
    "seedPhrase",
    "masterKey",
    "hmacKey",
    "licenseKey",
    "accessKeys",
    "accessTokens",
    "refresh_tokens",
    "clientSecrets",
    "dbPasswords",
    "sessions",
    "pins",
    "otps",
    "recovery_codes",
    "x-amz-credential",
    "webhookSecret",
  ];
  it.each(redacted)("%s is redacted", (k) => expect(isSensitive(k)).toBe(true));
  it.each([...STAYS_CLEAR_EXAMPLES])("%s stays in clear", (k) =>
    expect(isSensitive(k)).toBe(false),
  );
});

const SENSITIVE_NAMES = [
  "password",
  "passwords",
  "dbPassword",
  "api_key",
  "apiKeys",
  "Authorization",
  "set-cookie",
  "client_secret",
  "ssh_key",
  "credentials",
  "mnemonic",
  "x-api-key",
];
const secretArb = fc.stringMatching(/^[A-Za-z0-9]{12,24}$/).map((s) => `Zq9${s}`);
const safeKey = fc.constantFrom("a", "b", "user", "items", "meta", "list", "n", "headers");
/** Arbitrary JSON-ish values (no secret-looking keys) that a secret is planted into. */
const valueArb = fc.letrec((tie) => ({
  leaf: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 8 })),
  node: fc.oneof(
    { depthSize: "small" },
    tie("leaf"),
    fc.array(tie("node"), { maxLength: 4 }),
    fc.dictionary(safeKey, tie("node"), { maxKeys: 4 }),
  ),
})).node;

type Plant = (secret: string) => unknown;
const plantArb: fc.Arbitrary<Plant> = fc.oneof(
  fc.constantFrom(...SENSITIVE_NAMES).map((k): Plant => (s) => ({ [k]: s })),
  fc.constantFrom(...SENSITIVE_NAMES).map((k): Plant => (s) => ({ [k]: { nested: [s] } })),
  fc.constantFrom(...SENSITIVE_NAMES).map(
    (k): Plant =>
      (s) =>
        new Map([[k, s]]),
  ),
  fc
    .constantFrom("authorization", "cookie", "x-api-key")
    .map((k): Plant => (s) => ["Host", "h", k, s]),
  fc.constantFrom("token", "access_token", "api_key", "X-Amz-Signature", "password", "pwd").map(
    (k): Plant =>
      (s) =>
        `https://h.example/p?x=1&${k}=${s}`,
  ),
  fc.constant<Plant>((s) => `Authorization: Bearer ${s}`),
  fc.constant<Plant>((s) => `Basic ${basic(s)}`),
  fc.constant<Plant>((s) => `postgres://app:${s}@db:5432/app`),
  fc.constant<Plant>((s) => `Server=db;Password=${s};`),
  fc.constant<Plant>((s) => Object.assign(new Error("failed"), { password: s })),
);

/** Puts `planted` somewhere inside `value` (or beside it). */
function plantInto(value: unknown, planted: unknown, where: number): unknown {
  if (Array.isArray(value) && value.length > 0) {
    const copy = [...value];
    const i = where % copy.length;
    copy[i] = plantInto(copy[i], planted, where >> 2);
    return copy;
  }
  if (value !== null && typeof value === "object" && !(value instanceof Map)) {
    const keys = Object.keys(value);
    if (keys.length > 0 && where % 3 !== 0) {
      const k = keys[where % keys.length]!;
      return {
        ...value,
        [k]: plantInto((value as Record<string, unknown>)[k], planted, where >> 2),
      };
    }
  }
  return { v: value, inner: planted };
}

describe("§2 property: a planted secret never reaches the stored line, which is always JSON", () => {
  it("serializer + redaction over arbitrary nested values", () => {
    fc.assert(
      fc.property(valueArb, plantArb, secretArb, fc.nat(), (value, plant, secret, where) => {
        const out = line(plantInto(value, plant(secret), where));
        JSON.parse(out);
        expect(out).not.toContain(secret);
        expect(out).not.toContain(basic(secret));
      }),
      { numRuns: 600 },
    );
  });

  it("through the real logger: message data, child() bindings and Error properties", async () => {
    const path = mkdtempSync(join(tmpdir(), "stowage-hostile-values-"));
    const log = createLogger({ console: false, destination: "local", local: { path } });
    const secrets: string[] = [];
    fc.assert(
      fc.property(valueArb, plantArb, secretArb, fc.nat(), (value, plant, secret, where) => {
        secrets.push(secret);
        const planted = plantInto(value, plant(secret), where);
        switch (where % 3) {
          case 0:
            log.info("data", { payload: planted });
            break;
          case 1:
            log.child({ ctx: planted }).warn("bound");
            break;
          default:
            log.error("failed", Object.assign(new Error("boom"), { detail: planted }));
        }
      }),
      { numRuns: 150 },
    );
    expect((await log.flush({ timeoutMs: 10_000 })).ok).toBe(true);
    await log.close();
    const objects = await readBack(new LocalStore({ root: path }), "");
    const text = objects.map((o) => o.text).join("");
    expect(text.split("\n").filter(Boolean)).toHaveLength(150); // every line parsed by readBack
    for (const s of secrets) {
      expect(text.split("\n").find((l) => l.includes(s) || l.includes(basic(s)))).toBeUndefined();
    }
  });
});
