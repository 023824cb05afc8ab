/**
 * Issue 31 §1: the ingestion endpoint's token ships in the page, so every caller is
 * treated as hostile. Each attack runs against a real HTTP server (node:http, Hono on
 * @hono/node-server for the Fetch form, Express 5 with express.json()); what is
 * accepted is read back from the real MinIO. Work is measured by counting
 * `JSON.parse` / `JSON.stringify` calls made while a request is handled, never by
 * wall-clock time (CPU per MiB lives in bench/bridges-ingest.ts).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import express from "express";
import { Hono } from "hono";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLogger, type Logger } from "../../src/index.js";
import { createIngestHandler, type IngestHandler } from "../../src/ingest.js";
import { StowageError } from "../../src/shared/errors.js";
import { bucketIdCounts, s3Config } from "../support/loggers.js";
import { uniquePrefix } from "../support/minio.js";

const TOKEN = "attack-token-0123";
const MiB = 1024 * 1024;
const ROOT = join(import.meta.dirname, "../..");
const prefix = uniquePrefix("ingest-attack");
const servers: Server[] = [];
const dirs: string[] = [];
let logger: Logger;

beforeAll(() => {
  logger = createLogger(s3Config(prefix, { flushIntervalMs: 600_000 }));
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  await logger?.close({ timeoutMs: 10_000 });
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function listen(s: Server): Promise<string> {
  servers.push(s);
  if (!s.listening) await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/ingest`;
}

const auth = { authorization: `Bearer ${TOKEN}` };
const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    body,
    headers: { ...auth, ...headers },
    // A guard against a hang, not a speed assertion.
    signal: AbortSignal.timeout(20_000),
  });

/** Runs `send` and counts the JSON.parse / JSON.stringify calls made until its response is in. */
async function counted(send: () => Promise<Response>) {
  const parse = vi.spyOn(JSON, "parse");
  const stringify = vi.spyOn(JSON, "stringify");
  try {
    const res = await send();
    const calls = { parse: parse.mock.calls.length, stringify: stringify.mock.calls.length };
    parse.mockRestore();
    stringify.mockRestore();
    const text = await res.text();
    return { status: res.status, calls, answer: JSON.parse(text) as Record<string, unknown> };
  } finally {
    parse.mockRestore();
    stringify.mockRestore();
  }
}

/** A valid NDJSON body of about `bytes`, `n` records padded to fill it, ids from `from`. */
function validBody(n: number, bytes: number, from = 0): string {
  const pad = Math.max(0, Math.floor(bytes / n) - 80);
  return Array.from(
    { length: n },
    (_, i) =>
      JSON.stringify({ message: "page event", data: { id: from + i, pad: "p".repeat(pad) } }) +
      "\n",
  ).join("");
}

describe("issue 31 §1 CPU: the work per body is bounded before JSON.parse", () => {
  let handler: IngestHandler;
  let url = "";
  beforeAll(async () => {
    handler = createIngestHandler(logger, {
      auth: { token: TOKEN },
      maxBodyBytes: 2 * MiB,
    });
    url = await listen(createServer(handler));
  });

  it("issue 31 §1: a 1 MiB body of `x` lines costs no more parsing than a valid 1 MiB body, and is refused 400, counted", async () => {
    const valid = validBody(1000, MiB, 1_000_000);
    expect(valid.length).toBeGreaterThan(0.95 * MiB);
    const ok = await counted(() => post(url, valid));
    expect(ok.status).toBe(200);
    expect(ok.answer).toMatchObject({ accepted: 1000 });

    const malformed = "x\n".repeat(MiB / 2);
    const bad = await counted(() => post(url, malformed));
    // Today: 524,288 throwing JSON.parse calls (3.25 s of main-thread CPU).
    expect(bad.calls.parse).toBeLessThanOrEqual(ok.calls.parse);
    expect(bad.calls.parse).toBeLessThanOrEqual(16);
    expect(bad.status).toBe(400);
    expect(bad.answer).toMatchObject({ accepted: 0, error: expect.stringContaining("not JSON") });

    // Valid lines first, then garbage: still stopped after a few bad lines, nothing stored.
    const mixed = validBody(10, 2_000, 2_000_000) + "{oops\n".repeat(100_000);
    const m = await counted(() => post(url, mixed));
    expect(m.calls.parse).toBeLessThanOrEqual(10 + 16);
    expect(m.status).toBe(400);
    expect(handler.stats().refusedRequests.badRequest).toBe(2);
    expect(handler.stats().accepted).toBe(1000);
  });

  it("issue 31 §1: records past maxRecords are counted `tooMany` without being parsed", async () => {
    const body = '{"message":"m"}\n'.repeat(Math.floor(MiB / 16));
    const r = await counted(() => post(url, body));
    // Today: every one of the 65,536 lines goes through JSON.parse.
    expect(r.calls.parse).toBeLessThanOrEqual(1000 + 16);
    expect(r.status).toBe(200);
    expect(r.answer).toMatchObject({ accepted: 1000, rejected: { tooMany: 65_536 - 1000 } });
    const arr = "[" + '{"message":"m"},'.repeat(2_999) + '{"message":"m"}]';
    const a = await counted(() => post(url, arr, { "content-type": "application/json" }));
    expect(a.calls.parse).toBeLessThanOrEqual(1000 + 16);
    expect(a.answer).toMatchObject({ accepted: 1000, rejected: { tooMany: 2000 } });
  });

  it("issue 31 §1: a JSON array of 500,000 non-records costs no JSON.stringify per element, and is refused 400", async () => {
    const body = "[" + "1,".repeat(499_999) + "1]";
    const r = await counted(() => post(url, body, { "content-type": "application/json" }));
    // Today: one JSON.parse of the whole body, then one JSON.stringify per element.
    expect(r.calls.stringify).toBeLessThanOrEqual(16);
    expect(r.calls.parse).toBeLessThanOrEqual(16);
    expect(r.status).toBe(400);
  });
});

describe("issue 31 §1 nesting: a deep body is a counted 400, never a 500", () => {
  const deep = (n: number) => "[".repeat(n) + "]".repeat(n);

  it("issue 31 §1: a JSON array nested 200,000 deep answers 400 and is counted (Node form)", async () => {
    const handler = createIngestHandler(logger, { auth: { token: TOKEN } });
    const url = await listen(createServer(handler));
    const res = await post(url, deep(200_000), { "content-type": "application/json" });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ accepted: 0 });
    expect(handler.stats().refusedRequests.badRequest).toBe(1);
  });

  it("issue 31 §1: the same body through the Fetch form (Hono) answers 400, counted, instead of throwing", async () => {
    const handler = createIngestHandler(logger, { auth: { token: TOKEN } });
    const app = new Hono();
    app.post("/ingest", (c) => handler.fetch(c.req.raw));
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
    await new Promise<void>((r) => (s.listening ? r() : s.once("listening", () => r())));
    const url = await listen(s);
    const res = await post(url, deep(200_000), { "content-type": "application/json" });
    expect(res.status).toBe(400);
    expect(handler.stats().refusedRequests.badRequest).toBe(1);
  });

  it("issue 31 §1: a record nested deeper, or written wider, than maxFields is rejected `tooManyFields` before it is parsed", async () => {
    const handler = createIngestHandler(logger, { auth: { token: TOKEN }, maxRecordBytes: MiB });
    const url = await listen(createServer(handler));
    const body = `[{"message":"deep","data":${deep(100_000)}},{"message":"fine","data":{"id":3000000}}]`;
    const r = await counted(() => post(url, body, { "content-type": "application/json" }));
    expect(r.status).toBe(200);
    expect(r.answer).toMatchObject({ accepted: 1, rejected: { tooManyFields: 1 } });
    expect(r.calls.parse).toBeLessThanOrEqual(2);
    const nd = `{"message":"deep","data":${deep(100_000)}}\n`;
    const n = await counted(() => post(url, nd));
    expect(n.answer).toMatchObject({ accepted: 0, rejected: { tooManyFields: 1 } });
    expect(n.calls.parse).toBe(0);
    // Within the default 16 KiB, 5,000 empty arrays: JSON.parse would allocate each one.
    const wide = `{"message":"wide","data":[${"[],".repeat(4_999)}[]]}\n`.repeat(50);
    const w = await counted(() => post(url, wide));
    expect(w.answer).toMatchObject({ accepted: 0, rejected: { tooManyFields: 50 } });
    expect(w.calls.parse).toBe(0);
  });
});

describe("issue 31 §1 Express: mounted after express.json()", () => {
  let handler: IngestHandler;
  let url = "";
  beforeAll(async () => {
    handler = createIngestHandler(logger, {
      auth: { token: TOKEN },
      maxRecords: 5,
      maxFields: 20,
      maxRecordBytes: 512,
      maxBodyBytes: 64 * 1024,
    });
    const app = express();
    app.use(express.json({ limit: "1mb" }));
    app.post("/ingest", handler);
    // A middleware that reads the body itself and leaves nothing in req.body.
    app.post(
      "/eaten",
      (req, _res, next) => {
        req.resume();
        req.on("end", () => next());
      },
      handler,
    );
    url = await listen(createServer(app));
  });

  it("issue 31 §1: uses req.body (limits applied) instead of waiting forever; the records land in the bucket", async () => {
    const recs = Array.from({ length: 7 }, (_, i) => ({
      message: "x",
      data: { id: 4_000_000 + i },
    }));
    const res = await post(url, JSON.stringify(recs), { "content-type": "application/json" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ accepted: 5, rejected: { tooMany: 2 } });

    const one = await post(url, JSON.stringify({ message: "one", data: { id: 4_000_100 } }), {
      "content-type": "application/json",
    });
    expect(await one.json()).toMatchObject({ accepted: 1 });

    const wide = {
      message: "wide",
      data: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i])),
    };
    const big = { message: "big", data: { pad: "p".repeat(600) } };
    const limits = await post(url, JSON.stringify([wide, big, { bad: 1 }]), {
      "content-type": "application/json",
    });
    expect(await limits.json()).toMatchObject({
      accepted: 0,
      rejected: { tooManyFields: 1, oversized: 1, malformed: 1 },
    });

    // A body larger than maxBodyBytes is refused even though express.json (limit 1mb) read it.
    const many = JSON.stringify(Array.from({ length: 100 }, () => ({ message: "m".repeat(900) })));
    expect((await post(url, many, { "content-type": "application/json" })).status).toBe(413);

    const r = await logger.flush({ timeoutMs: 20_000 });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const ids = await bucketIdCounts(prefix);
    for (const id of [0, 1, 2, 3, 4].map((i) => 4_000_000 + i)) expect(ids.get(id)).toBe(1);
    expect(ids.get(4_000_005)).toBeUndefined();
    expect(ids.get(4_000_100)).toBe(1);
  });

  it("issue 31 §1: a body read by another middleware, with nothing in req.body, gets a clear error (500: the server's setup), counted", async () => {
    const res = await post(url.replace("/ingest", "/eaten"), '{"message":"m"}\n', {
      "content-type": "application/x-ndjson",
    });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({
      accepted: 0,
      error: expect.stringContaining("already read by another middleware"),
    });
    expect(handler.stats().refusedRequests.internal).toBe(1);
  });
});

/** A POST that declares `length` bytes, sends `first`, and holds the rest back; resolves its status. */
function slowUpload(url: string, length: number, first: number) {
  const req = httpRequest(url, {
    method: "POST",
    headers: { ...auth, "content-type": "application/x-ndjson", "content-length": length },
  });
  req.on("error", () => undefined);
  req.write(`{"message":"${"s".repeat(Math.max(0, first - 16))}"}\n`);
  const answered = new Promise<{ status: number; retryAfter: string | undefined }>((resolve) =>
    req.on("response", (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] as string });
    }),
  );
  return { req, answered };
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([p, guard]).finally(() => clearTimeout(timer));
}

describe("issue 31 §1 bodies in flight: a byte budget and a read deadline", () => {
  it("issue 31 §1: slow uploads past maxBytesInFlight get 503 + Retry-After at once; the admitted ones 408 at the deadline; then the budget is free", async () => {
    const handler = createIngestHandler(logger, {
      auth: { token: TOKEN },
      maxBodyBytes: 64 * 1024,
      maxBytesInFlight: 256 * 1024,
      bodyTimeoutMs: 1_500,
    });
    const url = await listen(createServer(handler));
    // 40 uploads declaring 60,000 bytes each (2.4 MB) against a 256 KiB budget: 4 fit.
    const uploads = Array.from({ length: 40 }, () => slowUpload(url, 60_000, 1_000));
    const answers = await within(
      Promise.all(uploads.map((u) => u.answered)),
      30_000,
      "40 slow uploads",
    );
    const busy = answers.filter((a) => a.status === 503);
    const late = answers.filter((a) => a.status === 408);
    expect(busy).toHaveLength(36);
    for (const a of busy) expect(a.retryAfter).toMatch(/^\d+$/);
    expect(late).toHaveLength(4);
    expect(handler.stats().refusedRequests).toMatchObject({ busy: 36, timeout: 4 });
    for (const u of uploads) u.req.destroy();

    // Nothing is held any more: a whole 60 KB body is taken.
    const res = await post(url, validBody(50, 60_000, 5_000_000));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ accepted: 50 });
  }, 60_000);

  it("issue 31 §1: a body without Content-Length reserves maxBodyBytes", async () => {
    const handler = createIngestHandler(logger, {
      auth: { token: TOKEN },
      maxBodyBytes: 100 * 1024,
      maxBytesInFlight: 150 * 1024,
      bodyTimeoutMs: 1_000,
    });
    const url = await listen(createServer(handler));
    const chunked = () => {
      const req = httpRequest(url, { method: "POST", headers: { ...auth } });
      req.on("error", () => undefined);
      req.write('{"message":"a"}\n');
      return {
        req,
        answered: new Promise<number>((resolve) =>
          req.on("response", (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          }),
        ),
      };
    };
    const a = chunked();
    const b = chunked();
    const statuses = await within(Promise.all([a.answered, b.answered]), 20_000, "two chunked");
    expect(statuses.sort()).toEqual([408, 503]);
    a.req.destroy();
    b.req.destroy();
  }, 30_000);
});

describe("issue 31 §1 auth and options", () => {
  it('issue 31 §1: without `auth` the handler says so once on stderr at creation; `auth: "none"` is explicit and silent', async () => {
    const dir = mkdtempSync(join(tmpdir(), "stowage-ingest-auth-"));
    dirs.push(dir);
    const app = join(dir, "app.ts");
    writeFileSync(
      app,
      `import { createLogger } from ${JSON.stringify(join(ROOT, "src/index.js"))};
      import { createIngestHandler } from ${JSON.stringify(join(ROOT, "src/ingest.js"))};
      const logger = createLogger({ console: false, destination: "local", local: { path: ${JSON.stringify(join(dir, "store"))} } });
      createIngestHandler(logger);
      createIngestHandler(logger, { auth: "none" });
      createIngestHandler(logger, { auth: { token: "0123456789" } });
      await logger.close();
      process.stdout.write("created\\n");
      `,
    );
    const child = spawn(process.execPath, ["--import", "jiti/register", app], {
      cwd: ROOT,
      timeout: 60_000,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c));
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    const status = await new Promise<number | null>((r) => child.on("close", r));
    expect(status, stderr).toBe(0);
    expect(stdout).toContain("created");
    const lines = stderr.split("\n").filter((l) => l.startsWith("stowage/ingest:"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("no `auth`");
    expect(lines[0]).toContain('auth: "none"');
  }, 90_000);

  it('issue 31 §1: `auth: "none"` accepts a caller without a token', async () => {
    const handler = createIngestHandler(logger, { auth: "none" });
    const url = await listen(createServer(handler));
    const res = await fetch(url, { method: "POST", body: '{"message":"anyone"}\n' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ accepted: 1 });
  });

  it("issue 31 §1: an unknown option is refused naming the closest one (issue 34 §1), nested ones too", () => {
    const refusal = (options: object): StowageError => {
      try {
        createIngestHandler(logger, options as never);
      } catch (err) {
        expect(err).toBeInstanceOf(StowageError);
        return err as StowageError;
      }
      throw new Error(`accepted ${JSON.stringify(options)}`);
    };
    const top = refusal({ auth: "none", maxBodyByte: 1024 });
    expect(top.code).toBe("config");
    expect(top.message).toContain("unknown option `maxBodyByte`; did you mean `maxBodyBytes`?");
    expect(refusal({ auth: "none", bodyTimeoutMS: 5 }).message).toContain(
      "did you mean `bodyTimeoutMs`?",
    );
    expect(refusal({ auth: "none", cors: { origin: ["https://a.example"] } }).message).toContain(
      "did you mean `origins`?",
    );
    expect(refusal({ auth: { token: "0123456789", tokn: 1 } }).message).toContain(
      "did you mean `token`?",
    );
    expect(refusal({ auth: "none", cors: { origins: "https://a.example" } }).message).toContain(
      "cors.origins",
    );
    expect(refusal({ auth: "nobody" }).message).toContain('"none"');
    expect(refusal({ auth: "none", maxBytesInFlight: 1024, maxBodyBytes: 4096 }).message).toContain(
      "maxBytesInFlight",
    );
  });
});
