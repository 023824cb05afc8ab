/**
 * Issue 31 §3: secrets in shapes the redaction did not cover yet, each planted as a
 * unique canary and looked for in what is really stored or shown.
 *
 * 1. Framework adapters with `headers: true` on real Express 5 / Fastify 5 / Hono 4
 *    servers writing to a local-directory store: credentials in query keys
 *    (`X-Amz-Signature`, `sig`, `code`, `key`, `t`, …), header names (`x-functions-key`,
 *    `ocp-apim-subscription-key`, …) and `;jsessionid=` in the path.
 * 2. Text shapes through the real logger: JSON text inside strings (an axios error's
 *    `config.data`), `password: x`, `Authorization: Token …` / `Digest …`,
 *    `#access_token=` fragments, HAR `{ name, value }` headers, `Cookie: connect.sid=…`;
 *    and sensitive key names the table missed. Ordinary look-alikes must stay.
 * 3. Studio's source context over real files: credentials written in 20 forms.
 * Each is also a fast-check property.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import express from "express";
import fc from "fast-check";
import Fastify from "fastify";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { stowageExpress } from "../../src/express.js";
import { stowageFastify } from "../../src/fastify.js";
import { stowageHono, type StowageHonoVariables } from "../../src/hono.js";
import { createLogger, type Logger } from "../../src/index.js";
import type { LogRecord } from "../../src/record/record.js";
import {
  compileRedaction,
  createKeyMatcher,
  DEFAULT_REDACT_KEYS,
} from "../../src/record/redact.js";
import { serializeRecord } from "../../src/record/safe-json.js";
import { readSourceContext } from "../../src/studio/source-context.js";
import { LocalStore } from "../../src/store/local-store.js";
import { readBack } from "../support/read-back.js";

/** A unique canary per case: letters and digits no default pattern would catch on its own. */
const canary = (tag: string, n: number) => `Qz${tag}${String(n).padStart(3, "0")}Vw4k`;

/** The canaries found in `text`, by case name. */
const leaked = (text: string, cases: readonly { name: string; secret: string }[]) =>
  cases.filter((c) => text.includes(c.secret)).map((c) => c.name);

async function storedText(path: string): Promise<string> {
  return (await readBack(new LocalStore({ root: path }), "")).map((o) => o.text).join("");
}

// ---------------------------------------------------------------------------------------
// 1. Framework adapters

/** Query parameters that carry credentials (pre-signed URLs, OAuth callbacks, API keys). */
const QUERY_KEYS = [
  "access_token",
  "token",
  "api_key",
  "apikey",
  "X-Amz-Signature",
  "X-Amz-Credential",
  "X-Amz-Security-Token",
  "X-Goog-Signature",
  "X-Goog-Credential",
  "sig",
  "signature",
  "Signature",
  "oauth_signature",
  "jsessionid",
  "code",
  "key",
  "pass",
  "password",
  "pwd",
  "t",
  "client_secret",
  "id_token",
  "refresh_token",
  "auth",
  "sessionid",
  "ticket",
  "hmac",
  "private_token",
];

/** Request headers that carry credentials, with the value shape each really has. */
const HEADERS: [name: string, value: (secret: string) => string][] = [
  ["authorization", (s) => `Token ${s}`],
  ["proxy-authorization", (s) => `Digest username="u", realm="r", response="${s}"`],
  ["cookie", (s) => `theme=dark; connect.sid=${s}`],
  ["x-api-key", (s) => s],
  ["x-auth-token", (s) => s],
  ["x-csrf-token", (s) => s],
  ["x-functions-key", (s) => s],
  ["ocp-apim-subscription-key", (s) => s],
  ["x-upstream-key", (s) => s],
  ["x-signature", (s) => s],
  ["x-hub-signature-256", (s) => `sha256=${s}`],
  ["stripe-signature", (s) => `t=1700000000,v1=${s}`],
  ["x-amz-security-token", (s) => s],
  ["x-goog-api-key", (s) => s],
  ["x-vault-token", (s) => s],
  ["private-token", (s) => s],
  ["x-shopify-access-token", (s) => s],
  ["x-auth-key", (s) => s],
  ["apikey", (s) => s],
  ["x-client-secret", (s) => s],
  ["x-session-id", (s) => s],
];

interface RunningApp {
  url: string;
  close(): Promise<void>;
}
const running = (server: Server): RunningApp => ({
  url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  close: () => new Promise((resolve) => server.close(() => resolve())),
});

const adapterOptions = { headers: true };

const frameworks: [string, (log: Logger) => Promise<RunningApp>][] = [
  [
    "Express 5",
    async (log) => {
      const app = express();
      app.use(stowageExpress(log, adapterOptions));
      app.get("/orders/:id", (_req, res) => void res.json({ ok: true }));
      return running(
        await new Promise<Server>((resolve) => {
          const s = app.listen(0, "127.0.0.1", () => resolve(s));
        }),
      );
    },
  ],
  [
    "Fastify 5",
    async (log) => {
      const app = Fastify();
      await app.register(stowageFastify, { logger: log, ...adapterOptions });
      app.get("/orders/:id", async () => ({ ok: true }));
      const url = await app.listen({ port: 0, host: "127.0.0.1" });
      return { url, close: () => app.close() };
    },
  ],
  [
    "Hono 4 (@hono/node-server)",
    async (log) => {
      const app = new Hono<{ Variables: StowageHonoVariables }>();
      app.use(stowageHono(log, adapterOptions));
      app.get("/orders/:id", (c) => c.json({ ok: true }));
      return running(
        await new Promise<Server>((resolve) => {
          const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () =>
            resolve(s as Server),
          );
        }),
      );
    },
  ],
];

describe("issue 31 §3 adapters with headers: true store no credential from the query, the headers or the path", () => {
  it.each(frameworks)(
    "issue 31 §3 %s: query keys, header names and ;jsessionid= never reach the store; ordinary values stay",
    async (_name, start) => {
      const path = mkdtempSync(join(tmpdir(), "stowage-secrets-http-"));
      const log = createLogger({ console: false, destination: "local", local: { path } });
      const cases: { name: string; secret: string }[] = [];
      const query = new URLSearchParams();
      for (const [i, k] of QUERY_KEYS.entries()) {
        const secret = canary("q", i);
        cases.push({ name: `query ${k}`, secret });
        query.append(k, secret);
      }
      query.append("page", "2");
      query.append("sort", "created_at");
      const headers: Record<string, string> = {
        accept: "application/json",
        "idempotency-key": "order-7781-retry",
        "x-request-id": "secrets-1",
      };
      for (const [i, [name, value]] of HEADERS.entries()) {
        const secret = canary("h", i);
        cases.push({ name: `header ${name}`, secret });
        headers[name] = value(secret);
      }
      const pathSecret = canary("p", 0);
      cases.push({ name: "path ;jsessionid=", secret: pathSecret });

      const app = await start(log);
      try {
        const res = await fetch(`${app.url}/orders/7;jsessionid=${pathSecret}?${query}`, {
          headers,
        });
        await res.arrayBuffer();
        expect(res.status).toBe(200);
      } finally {
        await app.close();
      }
      expect((await log.close({ timeoutMs: 10_000 })).ok).toBe(true);
      const text = await storedText(path);
      const records = text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { data?: Record<string, unknown> });
      const rec = records.find((r) => r.data?.route === "/orders/:id");
      expect(rec, text).toBeDefined();
      expect(cases).toHaveLength(QUERY_KEYS.length + HEADERS.length + 1);
      expect(leaked(text, cases)).toEqual([]);
      // the record is still useful: what carries no credential stays
      expect(rec!.data).toMatchObject({
        query: { page: "2", sort: "created_at" },
        headers: { accept: "application/json", "idempotency-key": "order-7781-retry" },
      });
      expect(String(rec!.data!.path)).toMatch(/^\/orders\/7;jsessionid=/);
    },
  );
});

// ---------------------------------------------------------------------------------------
// 2. Text shapes and key names

/** Each case turns a secret into a value an application really logs. */
const TEXT_CASES: [name: string, plant: (s: string) => unknown][] = [
  [
    "axios error: config.data JSON",
    (s) =>
      Object.assign(new Error("Request failed with status code 401"), {
        name: "AxiosError",
        code: "ERR_BAD_REQUEST",
        config: {
          method: "post",
          url: "https://api.example.com/login",
          data: JSON.stringify({ username: "bob", password: s }),
        },
      }),
  ],
  ["logged request body (JSON text)", (s) => ({ body: `{"user":"bob","apiKey":"${s}"}` })],
  ["JSON text with spaces", (s) => `payload { "client_secret" : "${s}" }`],
  ["JSON text nested in JSON text", (s) => JSON.stringify({ body: JSON.stringify({ token: s }) })],
  ["JSON text, array of secrets", (s) => `{"apiKeys":["${s}","other"]}`],
  ["JSON text, object under a sensitive key", (s) => `{"credentials":{"user":"u","pass":"${s}"}}`],
  ["password: x", (s) => `password: ${s}`],
  ["YAML quoted value", (s) => `db:\n  password: "${s} with space"\n  host: db`],
  ["util.inspect output", (s) => `{ user: 'bob', password: '${s}' }`],
  ["api_key: x in text", (s) => `using api_key: ${s} for upstream`],
  ["Authorization: Token …", (s) => `Authorization: Token ${s}`],
  [
    "Authorization: Digest …",
    (s) => `Authorization: Digest username="bob", realm="api", nonce="abc", response="${s}"`,
  ],
  ["Proxy-Authorization: Token …", (s) => `Proxy-Authorization: Token ${s}`],
  ["curl command line", (s) => `curl -H 'Authorization: Token ${s}' https://api.example.com/x`],
  ["#access_token= fragment", (s) => `https://app.example/cb#access_token=${s}&token_type=bearer`],
  ["#id_token= fragment", (s) => `https://app.example/cb#state=x&id_token=${s}`],
  [
    "HAR headers list",
    (s) => ({
      log: {
        entries: [
          {
            request: {
              method: "GET",
              url: "https://example.com/",
              headers: [
                { name: "Host", value: "example.com" },
                { name: "Cookie", value: `sid=${s}` },
              ],
            },
          },
        ],
      },
    }),
  ],
  [
    "HAR headers list, custom key header",
    (s) => ({ headers: [{ name: "X-Functions-Key", value: s }] }),
  ],
  ["HAR header entry alone", (s) => ({ header: { name: "Cookie", value: `sid=${s}` } })],
  ["Cookie: connect.sid=…", (s) => `Cookie: connect.sid=${s}; theme=dark`],
  ["Set-Cookie: sid=…", (s) => `Set-Cookie: sid=${s}; Path=/; HttpOnly`],
  ["Cookie: JSESSIONID=…", (s) => `Cookie: JSESSIONID=${s}`],
  [
    "raw HTTP request dump",
    (s) => `POST /login HTTP/1.1\r\nHost: x\r\nCookie: sid=${s}\r\nContent-Length: 9\r\n\r\nok`,
  ],
  ["x-functions-key: x in text", (s) => `x-functions-key: ${s}`],
  [
    "a logged req.headers object",
    (s) => ({ headers: { host: "h", "x-upstream-key": s, "stripe-signature": `t=1,v1=${s}` } }),
  ],
  ["rawHeaders with x-functions-key", (s) => ["Host", "h", "x-functions-key", s]],
  ["header pairs with ocp-apim-subscription-key", (s) => [["ocp-apim-subscription-key", s]]],
  ["Google API key in a URL", (s) => `GET https://maps.googleapis.com/maps/api/geo?a=x&key=${s}`],
  ["OAuth callback code in a URL", (s) => `GET https://app.example/cb?code=${s}&state=xyz`],
  ["pre-signed S3 URL", (s) => `https://b.s3.amazonaws.com/k?X-Amz-Signature=${s}`],
  ["Azure SAS URL", (s) => `https://a.blob.core.windows.net/c/b?sv=2022-11-02&sr=b&sig=${s}`],
];

/** Strings and values that look a little like the shapes above and must stay in clear. */
const STAYS: [name: string, value: unknown, kept: string][] = [
  ["a colon that names no secret", "error: connection refused", "connection refused"],
  ["a route with a colon", "/api/orders/:id", "/api/orders/:id"],
  ["JSON text without secrets", '{"user":"bob","count":3}', '\\"count\\":3'],
  ["an ordinary URL query", "https://x.io/?page=2&sort=name", "sort=name"],
  ["prose with Digest", "Digest of the week: 3 incidents", "3 incidents"],
  ["logfmt key=", "key=user:42 op=get", "key=user:42"],
  ["t= outside a URL query", "t=5 retries=2", "t=5"],
  [
    "a HAR header that is no secret",
    { headers: [{ name: "Accept", value: "text/html" }] },
    "text/html",
  ],
  ["a key header name in camelCase pairs", [["cacheKey", "user:42"]], "user:42"],
];

/**
 * Key names that hold secrets in real applications (env files, ORM columns, cookies,
 * 2FA, cards, cloud SDKs): each must be redacted as a data key.
 */
const SENSITIVE_KEYS = [
  "password",
  "MYSQL_ROOT_PASSWORD",
  "passcode",
  "PGPASSWORD",
  "rootpassword",
  "DB_PASS",
  "smtp_pass",
  "authToken",
  "authtoken",
  "apitoken",
  "x-csrftoken",
  "csrfmiddlewaretoken",
  "_csrf",
  "xsrf",
  "privkey",
  "secret_key_base",
  "password_hash",
  "password_digest",
  "connect.sid",
  "JSESSIONID",
  "PHPSESSID",
  "ASP.NET_SessionId",
  "authCode",
  "authorization_code",
  "verification_code",
  "mfa_code",
  "totp",
  "backup_codes",
  "recovery_key",
  "security_code",
  "cvv2",
  "social_security_number",
  "subscription_key",
  "AccountKey",
  "SharedAccessKey",
  "sas_token",
  "bearer",
  "jwt",
  "oauth_verifier",
  "oauth_token_secret",
  "auth_key",
  "private_token",
  "webhook_secret",
  "signing_secret",
  "encryptionKey",
  "master_password",
  "secretKey",
  "passphrase",
  "pwd",
  "sessionToken",
  "refreshToken",
  "apiKey",
  "credentials",
  "x-vault-token",
];

/** Data keys that are ordinary words: redacting them would destroy ordinary data. */
const CLEAR_KEYS = [
  "key",
  "pass",
  "passed",
  "bypass",
  "boarding_pass",
  "t",
  "code",
  "status_code",
  "promo_code",
  "country_code",
  "signature",
  "sid",
  "hash",
  "nonce",
  "tokens",
  "maxTokens",
  "cacheKey",
  "sortKey",
  "accessKeyId",
  "sessionCount",
  "csrf_enabled",
  "sort-key",
  "public-key",
  "x-request-id",
  "jwt_expires_in",
  "passwordless_enabled",
  "author",
];

describe("issue 31 §3 text shapes and key names through the real logger", () => {
  it("issue 31 §3 every text shape: the secret is not stored (message, data and error)", async () => {
    const path = mkdtempSync(join(tmpdir(), "stowage-secrets-text-"));
    const log = createLogger({ console: false, destination: "local", local: { path } });
    const cases = TEXT_CASES.map(([name], i) => ({ name, secret: canary("t", i) }));
    for (const [i, [, plant]] of TEXT_CASES.entries()) {
      const value = plant(cases[i]!.secret);
      if (typeof value === "string") log.info(value);
      else if (value instanceof Error) log.error("upstream failed", value);
      else log.info("value", { payload: value });
    }
    for (const [name, value] of STAYS) log.info(name, { value });
    expect((await log.close({ timeoutMs: 10_000 })).ok).toBe(true);
    const text = await storedText(path);
    expect(text.split("\n").filter(Boolean)).toHaveLength(TEXT_CASES.length + STAYS.length);
    expect(leaked(text, cases)).toEqual([]);
    for (const [name, , kept] of STAYS) expect(text, name).toContain(kept);
  });

  it("issue 31 §3 sensitive key names are redacted as data keys; ordinary words stay", () => {
    const redact = compileRedaction();
    const data: Record<string, string> = {};
    const cases = SENSITIVE_KEYS.map((k, i) => ({ name: k, secret: canary("k", i) }));
    for (const c of cases) data[c.name] = c.secret;
    for (const k of CLEAR_KEYS) data[k] = `kept-${k}`;
    const line = serializeRecord(
      { timestamp: "2026-01-01T00:00:00.000Z", level: "info", message: "m", data } as LogRecord,
      { redact },
    );
    expect(leaked(line, cases)).toEqual([]);
    const isSensitive = createKeyMatcher(DEFAULT_REDACT_KEYS);
    expect(CLEAR_KEYS.filter((k) => isSensitive(k))).toEqual([]);
    for (const k of CLEAR_KEYS) expect(line).toContain(`kept-${k}`);
  });
});

// ---------------------------------------------------------------------------------------
// 3. Studio source context

/** Credential forms in ordinary source files; `%S%` is replaced by the canary. */
const SOURCE_FORMS: [name: string, file: string, code: string][] = [
  ["object literal", "a.ts", `const cfg = {\n  password: "%S%",\n};`],
  ["const assignment", "b.ts", `const apiKey = "%S%";`],
  ["JSON-style quoted key", "c.ts", `const c = { "client_secret": "%S%" };`],
  ["Python assignment", "d.py", `token = '%S%'`],
  ["bearer in a template", "e.ts", "const h = { Authorization: `Bearer %S%` };"],
  ["URL credentials", "f.ts", `const url = "postgres://app:%S%@db:5432/app";`],
  ["S3 client credentials", "g.ts", "const creds = { secretAccessKey: `%S%` };"],
  ["value on the next line", "h.ts", `const cfg = {\n  password:\n    "%S%",\n};`],
  ["tuple", "i.ts", `const m = new Map([["password", "%S%"]]);`],
  ["comment between key and colon", "j.ts", `const c = { password /* legacy */ : "%S%" };`],
  ["computed key", "k.ts", `const c = { ["password"]: "%S%" };`],
  ["in a string", "l.ts", `await fetch(url, { method: "POST", body: "user=bob&password=%S%" });`],
  [
    "pass: (nodemailer)",
    "m.ts",
    `const t = createTransport({ auth: { user: "u" }, x: { pass: "%S%" } });`,
  ],
  ["?? default", "n.ts", `const password = process.env.DB_PASSWORD ?? "%S%";`],
  ["String.raw", "o.ts", "const c = { password: String.raw`%S%` };"],
  ["header set call", "p.ts", `headers.set("x-api-key", "%S%");`],
  ["PHP array", "q.php", `$db = ['password' => '%S%'];`],
  ["Go short assignment", "r.go", `password := "%S%"`],
  ["|| default", "s.js", `const secret = process.env.SECRET || "%S%";`],
  ["Python getenv default", "t.py", `pw = os.environ.get("PASSWORD", "%S%")`],
];

describe("issue 31 §3 Studio source context never shows a credential written in source", () => {
  it("issue 31 §3 each credential form, read through readSourceContext from real files", async () => {
    const project = mkdtempSync(join(tmpdir(), "stowage-secrets-src-"));
    mkdirSync(join(project, "src"));
    const cases = SOURCE_FORMS.map(([name], i) => ({ name, secret: canary("s", i) }));
    const shown: string[] = [];
    for (const [i, [, file, code]] of SOURCE_FORMS.entries()) {
      const filler = Array.from({ length: 20 }, (_, n) => `const v${n} = "ordinary ${n}";`);
      const lines = [...filler, ...code.replaceAll("%S%", cases[i]!.secret).split("\n"), ...filler];
      writeFileSync(join(project, "src", file), lines.join("\n"));
      const res = await readSourceContext(
        { projectDir: project, radius: 3 },
        { caller: `src/${file}:${21 + code.split("\n").length - 1}` },
      );
      expect(res.ok, JSON.stringify(res)).toBe(true);
      if (res.ok) {
        expect(res.lines.length).toBeGreaterThan(3);
        shown.push(res.lines.join("\n"));
      }
    }
    expect(leaked(shown.join("\n---\n"), cases)).toEqual([]);
    expect(shown.join("\n")).toContain(`"ordinary 19"`); // ordinary strings stay
  });
});

// ---------------------------------------------------------------------------------------
// Properties

const secretArb = fc.stringMatching(/^[A-Za-z0-9]{10,20}$/).map((s) => `Zq9${s}`);
const spacing = fc.constantFrom("", " ", "  ", "\t");

describe("issue 31 §3 properties", () => {
  const redact = compileRedaction();
  const line = (data: unknown, message = "m") =>
    serializeRecord(
      { timestamp: "2026-01-01T00:00:00.000Z", level: "info", message, data } as LogRecord,
      { redact },
    );

  it("issue 31 §3 a text shape with any sensitive key, spacing and surrounding text never stores the secret", () => {
    const keyArb = fc.constantFrom(
      "password",
      "apiKey",
      "client_secret",
      "access_token",
      "authToken",
      "passcode",
    );
    const shapeArb = fc.constantFrom(
      (k: string, s: string, sp: string) => `{"a":1,"${k}"${sp}:${sp}"${s}"}`,
      (k: string, s: string, sp: string) => JSON.stringify({ outer: `{"${k}":${sp}"${s}"}` }),
      (k: string, s: string, sp: string) => `${k}:${sp || " "}${s}`,
      (k: string, s: string, sp: string) => `{ ${k}:${sp}'${s}' }`,
      (_k: string, s: string, sp: string) => `Authorization:${sp || " "}Token ${s}`,
      (_k: string, s: string, sp: string) => `Authorization:${sp || " "}Digest response="${s}"`,
      (_k: string, s: string, sp: string) => `Cookie:${sp || " "}connect.sid=${s}`,
      (k: string, s: string) => `https://h.example/cb#${k}=${s}`,
      (_k: string, s: string) => `https://h.example/x?key=${s}`,
    );
    fc.assert(
      fc.property(
        keyArb,
        shapeArb,
        secretArb,
        spacing,
        fc.string({ maxLength: 12 }),
        fc.string({ maxLength: 12 }),
        (k, shape, s, sp, before, after) => {
          const text = `${before.replace(/["\\]/g, "")} ${shape(k, s, sp)}\n${after}`;
          expect(line({ v: text })).not.toContain(s);
          expect(line(undefined, text)).not.toContain(s);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("issue 31 §3 header and HAR lists with a credential header in any case never store the secret", () => {
    const nameArb = fc
      .constantFrom(
        "x-functions-key",
        "ocp-apim-subscription-key",
        "x-upstream-key",
        "x-signature",
        "cookie",
      )
      .chain((n) =>
        fc.constantFrom(
          n,
          n.toUpperCase(),
          n.replace(/(^|-)([a-z])/g, (m) => m.toUpperCase()),
        ),
      );
    fc.assert(
      fc.property(nameArb, secretArb, fc.nat(3), (name, s, pos) => {
        const pairs: [string, string][] = [
          ["Host", "h"],
          ["Accept", "*/*"],
          ["User-Agent", "x"],
        ];
        pairs.splice(pos, 0, [name, s]);
        expect(line({ rawHeaders: pairs.flat() })).not.toContain(s);
        expect(line({ headers: pairs.map(([n, value]) => ({ name: n, value })) })).not.toContain(s);
      }),
      { numRuns: 300 },
    );
  });
});
