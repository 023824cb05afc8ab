/**
 * the ingestion endpoint, as a Node handler (node:http) and as a
 * Fetch handler (Hono on @hono/node-server), writing into the real MinIO:
 * limits, auth, CORS, skew, the origin marker, redaction, and counts.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Hono } from "hono";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, type Logger } from "../../src/index.js";
import { createIngestHandler, type IngestHandler } from "../../src/ingest.js";
import { s3Config, s3Reader } from "../support/loggers.js";
import { uniquePrefix } from "../support/minio.js";
import { readBack } from "../support/read-back.js";

const TOKEN = "browser-key-0123";
const prefix = uniquePrefix("ingest");
let logger: Logger;
let handler: IngestHandler;
let strict: IngestHandler;
const servers: Server[] = [];
let nodeUrl = "";
let honoUrl = "";

async function listen(s: Server): Promise<string> {
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  logger = createLogger({
    ...s3Config(prefix, { flushIntervalMs: 600_000 }),
    service: "web",
  } as Parameters<typeof createLogger>[0]);
  const limits = { maxBodyBytes: 4096, maxRecords: 5, maxRecordBytes: 512, maxFields: 20 };
  handler = createIngestHandler(logger, {
    ...limits,
    auth: { token: TOKEN },
    cors: { origins: ["https://shop.example"] },
  });
  strict = createIngestHandler(logger, {
    ...limits,
    skew: "reject",
    auth: (r) => r.header("x-tenant") === "acme",
  });
  nodeUrl = await listen(createServer(handler));
  const app = new Hono();
  app.post("/ingest", (c) => strict.fetch(c.req.raw));
  app.options("/ingest", (c) => strict.fetch(c.req.raw));
  const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
  servers.push(s);
  await new Promise<void>((r) => (s.listening ? r() : s.once("listening", () => r())));
  honoUrl = `http://127.0.0.1:${(s.address() as AddressInfo).port}/ingest`;
});

afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  await logger?.close();
});

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", body, headers: { authorization: `Bearer ${TOKEN}`, ...headers } });
const ndjson = (...recs: unknown[]) => recs.map((r) => JSON.stringify(r)).join("\n") + "\n";

describe("§4 Node handler", () => {
  it("accepts NDJSON and counts each rejected record by reason", async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const body =
      ndjson(
        {
          message: "ok-1",
          level: "warn",
          data: { id: 1, password: "hunter2" },
          bindings: { origin: "server", page: "/cart" },
        },
        { message: "ok-2", timestamp: future },
        { message: "bad", extra: 1 },
        { message: "x".repeat(600) },
        {
          message: "fields",
          data: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i])),
        },
      ) + "{not json\n";
    const res = await post(nodeUrl, body);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      accepted: 2,
      filtered: 0,
      clamped: 1,
      rejected: { malformed: 2, oversized: 1, tooMany: 0, tooManyFields: 1, skew: 0, refused: 0 },
      refusedBy: { queueFull: 0, spoolFull: 0, oversized: 0, closed: 0, failed: 0 },
      retry: [],
    });
  });

  it("accepts a JSON array and refuses records past maxRecords", async () => {
    const arr = Array.from({ length: 7 }, (_, i) => ({ message: `arr-${i}` }));
    const res = await post(nodeUrl, JSON.stringify(arr), { "content-type": "application/json" });
    expect(await res.json()).toMatchObject({ accepted: 5, rejected: { tooMany: 2 } });
  });

  it("refuses whole requests: no or wrong token 401, body too large 413, unreadable 400, GET 405", async () => {
    expect((await fetch(nodeUrl, { method: "POST", body: ndjson({ message: "a" }) })).status).toBe(
      401,
    );
    expect(
      (await post(nodeUrl, ndjson({ message: "a" }), { authorization: "Bearer nope-nope-nope" }))
        .status,
    ).toBe(401);
    expect((await post(nodeUrl, "x".repeat(5000))).status).toBe(413);
    const bad = await post(nodeUrl, "[1, 2");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      accepted: 0,
      error: expect.stringContaining("neither a JSON array nor NDJSON"),
    });
    expect((await fetch(nodeUrl)).status).toBe(405);
    // sendBeacon cannot set headers: the token may ride in the query string.
    expect(
      (
        await fetch(`${nodeUrl}/?token=${TOKEN}`, {
          method: "POST",
          body: ndjson({ message: "q" }),
        })
      ).status,
    ).toBe(200);
  });

  it("CORS: an allowed origin gets its preflight answered, any other origin 403", async () => {
    const pre = await fetch(nodeUrl, {
      method: "OPTIONS",
      headers: { origin: "https://shop.example" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(pre.headers.get("access-control-allow-headers")).toContain("x-stowage-token");
    const evil = await post(nodeUrl, ndjson({ message: "evil" }), {
      origin: "https://evil.example",
    });
    expect(evil.status).toBe(403);
    expect(evil.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("§4 Fetch handler (Hono)", () => {
  it("runs the same endpoint: callback auth, skew rejected and counted", async () => {
    const old = new Date(Date.now() - 3 * 86_400_000).toISOString();
    expect((await fetch(honoUrl, { method: "POST", body: ndjson({ message: "a" }) })).status).toBe(
      401,
    );
    const res = await fetch(honoUrl, {
      method: "POST",
      headers: { "x-tenant": "acme" },
      body: JSON.stringify([
        { message: "fetch-ok", timestamp: Date.now() },
        { message: "too old", timestamp: old },
      ]),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ accepted: 1, clamped: 0, rejected: { skew: 1 } });
    expect(
      (
        await fetch(honoUrl, {
          method: "POST",
          headers: { "x-tenant": "acme" },
          body: "y".repeat(5000),
        })
      ).status,
    ).toBe(413);
    expect(strict.stats()).toMatchObject({
      accepted: 1,
      rejected: { skew: 1 },
      refusedRequests: { unauthorized: 1, bodyTooLarge: 1 },
    });
  });
});

it("§4 accepted records land in the bucket marked with their origin, redacted, clamped times kept", async () => {
  expect(handler.stats()).toMatchObject({
    accepted: 8,
    clamped: 1,
    refusedRequests: {
      unauthorized: 2,
      bodyTooLarge: 1,
      badRequest: 1,
      forbiddenOrigin: 1,
      method: 1,
    },
  });
  const r = await logger.flush({ timeoutMs: 20_000 });
  expect(r.ok, JSON.stringify(r)).toBe(true);
  const reader = s3Reader();
  const lines = (await readBack(reader, `${prefix}/`)).flatMap((o) => o.lines);
  reader.close();
  expect(lines).toHaveLength(9);
  for (const l of lines) expect((l.bindings as { origin: string }).origin).toBe("client");
  const first = lines.find((l) => l.message === "ok-1")!;
  expect(first).toMatchObject({
    level: "warning",
    service: "web",
    data: { id: 1, password: "[REDACTED]" },
    bindings: { page: "/cart" },
  });
  const clamped = lines.find((l) => l.message === "ok-2")!;
  expect(Date.parse(clamped.timestamp as string)).toBeLessThan(Date.now() + 60_000);
  expect((clamped.bindings as { clientTimestamp: string }).clientTimestamp).toMatch(/^\d{4}-/);
});
