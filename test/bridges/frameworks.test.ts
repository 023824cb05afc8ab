/**
 * the Express 5, Fastify 5 and Hono 4 adapters on real servers
 * under concurrent HTTP load from the test, logging into the real MinIO through
 * a counting proxy: one record per request with the route pattern and status,
 * handler logs bound to the request id, §3.3 redaction of query and headers,
 * and no upload until the logger is flushed (no flush per request).
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { serve } from "@hono/node-server";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger, type Logger } from "../../src/index.js";
import { stowageExpress, stowageExpressErrors } from "../../src/express.js";
import { stowageFastify } from "../../src/fastify.js";
import { stowageHono, type StowageHonoVariables } from "../../src/hono.js";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy.js";
import { s3Config, s3Reader } from "../support/loggers.js";
import { minio, uniquePrefix } from "../support/minio.js";
import { readBack } from "../support/read-back.js";

interface RunningApp {
  url: string;
  close(): Promise<void>;
}
type Framework = [name: string, start: (log: Logger) => Promise<RunningApp>];

const opts = { headers: true };

/** The URL and closer of a listening server. */
function running(server: Server): RunningApp {
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A Hono app's fetch handler served on a loopback port by @hono/node-server. */
async function serveHono(
  fetch: (req: Request) => Response | Promise<Response>,
): Promise<RunningApp> {
  return running(
    await new Promise<Server>((resolve) => {
      const s = serve({ fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s as Server));
    }),
  );
}

async function startExpress(log: Logger): Promise<RunningApp> {
  const app = express();
  app.use(stowageExpress(log, opts));
  app.get("/orders/:id", (req, res) => {
    req.log.info("loading order", { id: req.params.id });
    res.json({ id: req.params.id });
  });
  app.post("/items", (_req, res) => void res.status(201).json({ ok: true }));
  app.get("/fail", () => {
    throw new Error("kaboom");
  });
  app.use(stowageExpressErrors());
  app.use(
    ((_err, _req, res, _next) =>
      void res.status(500).json({ error: "internal" })) as express.ErrorRequestHandler,
  );
  return running(
    await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    }),
  );
}

async function startFastify(log: Logger): Promise<RunningApp> {
  const app = Fastify();
  await app.register(stowageFastify, { logger: log, ...opts });
  app.get<{ Params: { id: string } }>("/orders/:id", async (request) => {
    request.stowage.info("loading order", { id: request.params.id });
    return { id: request.params.id };
  });
  app.post("/items", async (_request, reply) => reply.code(201).send({ ok: true }));
  app.get("/fail", async () => {
    throw new Error("kaboom");
  });
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  return { url, close: () => app.close() };
}

async function startHono(log: Logger): Promise<RunningApp> {
  const app = new Hono<{ Variables: StowageHonoVariables }>();
  app.use(stowageHono(log, opts));
  app.get("/orders/:id", (c) => {
    c.get("log").info("loading order", { id: c.req.param("id") });
    return c.json({ id: c.req.param("id") });
  });
  app.post("/items", (c) => c.json({ ok: true }, 201));
  app.get("/fail", () => {
    throw new Error("kaboom");
  });
  app.onError((_err, c) => c.json({ error: "internal" }, 500)); // quiet: the record has the stack
  return serveHono(app.fetch);
}

const frameworks: Framework[] = [
  ["Express 5", startExpress],
  ["Fastify 5", startFastify],
  ["Hono 4 (@hono/node-server)", startHono],
];

const proxies: FaultProxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
});

/** What each request of the load is, so the records can be checked against it. */
interface Sent {
  path: string;
  method: string;
  route: string;
  status: number;
  clientId?: string;
}

function plan(i: number): Sent {
  switch (i % 10) {
    case 0:
      return { path: "/items", method: "POST", route: "/items", status: 201 };
    case 1:
      return { path: "/fail", method: "GET", route: "/fail", status: 500 };
    case 2:
      return { path: `/missing/${i}`, method: "GET", route: "(no route)", status: 404 };
    case 3:
      return {
        path: `/orders/${i}?token=sekret-${i}&page=2`,
        method: "GET",
        route: "/orders/:id",
        status: 200,
        clientId: `client-${i}`,
      };
    default:
      return { path: `/orders/${i}`, method: "GET", route: "/orders/:id", status: 200 };
  }
}

/** `total` requests, `concurrency` at a time, from this process over loopback. */
async function load(url: string, total: number, concurrency: number): Promise<Sent[]> {
  const sent: Sent[] = [];
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const s = plan(next++);
      const headers: Record<string, string> = {
        authorization: "Bearer abc.def.ghi",
        "user-agent": "load/1",
      };
      if (s.clientId) headers["x-request-id"] = s.clientId;
      const res = await fetch(url + s.path, { method: s.method, headers });
      await res.arrayBuffer();
      expect(res.status).toBe(s.status);
      if (s.clientId) expect(res.headers.get("x-request-id")).toBe(s.clientId);
      else expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      sent.push(s);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return sent;
}

describe("§3 framework adapters under real HTTP load", () => {
  it.each(frameworks)(
    "%s: one record per request, request-bound handler logs, no flush per request",
    async (_name, start) => {
      const proxy = await startFaultProxy(minio().endpoint);
      proxies.push(proxy);
      const prefix = uniquePrefix("http");
      const log = createLogger({
        ...s3Config(prefix, { flushIntervalMs: 600_000 }, { endpoint: proxy.endpoint }),
        service: "web",
      } as Parameters<typeof createLogger>[0]);
      const app = await start(log);
      const N = 400;
      let sent: Sent[];
      try {
        sent = await load(app.url, N, 16);
      } finally {
        await app.close();
      }
      expect(proxy.counts.put ?? 0).toBe(0); // 400 requests, not one upload yet
      const res = await log.close({ timeoutMs: 30_000 });
      expect(res.ok, JSON.stringify(res)).toBe(true);
      expect(proxy.counts.put).toBe(1); // every record in one batch object

      const reader = s3Reader();
      const lines = (await readBack(reader, `${prefix}/`)).flatMap((o) => o.lines);
      reader.close();
      type Rec = {
        level: string;
        message: string;
        bindings?: { requestId?: string };
        data?: Record<string, unknown>;
        error?: { message: string; stack: string };
      };
      const records = lines as Rec[];
      const requests = records.filter((r) => r.data?.status !== undefined);
      const handlerLogs = records.filter((r) => r.message === "loading order");
      expect(requests).toHaveLength(N);
      expect(handlerLogs).toHaveLength(sent.filter((s) => s.status === 200).length);

      const byId = new Map(requests.map((r) => [r.bindings!.requestId!, r]));
      expect(byId.size).toBe(N); // every request its own id
      for (const h of handlerLogs) {
        const req = byId.get(h.bindings!.requestId!);
        expect(req?.data).toMatchObject({
          route: "/orders/:id",
          status: 200,
          path: `/orders/${String(h.data!.id)}`,
        });
      }
      const tally = (xs: { route: unknown; status: unknown; method: unknown }[]) =>
        xs.map((x) => `${String(x.method)} ${String(x.route)} ${String(x.status)}`).sort();
      expect(tally(requests.map((r) => r.data as unknown as Sent))).toEqual(tally(sent));

      const failed = requests.find((r) => r.data!.status === 500)!;
      expect(failed.level).toBe("error");
      expect(failed.error!.message).toBe("kaboom");
      expect(failed.error!.stack).toContain("frameworks.test.ts");
      expect(requests.find((r) => r.data!.status === 404)!.level).toBe("warning");

      const withClientId = requests.find((r) => r.bindings!.requestId === "client-3")!;
      expect(withClientId.data).toMatchObject({
        method: "GET",
        userAgent: "load/1",
        ip: "127.0.0.1",
        query: { token: "[REDACTED]", page: "2" },
        headers: { authorization: "[REDACTED]", "x-request-id": "client-3" },
      });
      expect(JSON.stringify(lines)).not.toContain("sekret-");
      expect(JSON.stringify(lines)).not.toContain("abc.def.ghi");
    },
  );
});

/**
 * The options, on each framework: `skip` drops the record but keeps the child
 * logger, `trustProxy` takes the first X-Forwarded-For entry, `setResponseHeader:
 * false` and `query: false` leave those out, an unsafe incoming id is replaced,
 * and the child logger is one object per request (made once, on first use).
 */
const optionsUnderTest = {
  trustProxy: true,
  setResponseHeader: false,
  query: false,
  skip: (path: string) => path === "/health",
};

async function startOptionsApp(name: string, log: Logger): Promise<RunningApp> {
  if (name === "Express 5") {
    const app = express();
    app.use(stowageExpress(log, optionsUnderTest));
    app.get("/health", (req, res) => {
      req.log.info("health probe");
      res.send("ok");
    });
    app.get("/orders/:id", (req, res) => {
      const same = req.log === req.log;
      req.log.info("handler", { same });
      res.json({ requestId: req.requestId });
    });
    return running(
      await new Promise<Server>((resolve) => {
        const s = app.listen(0, "127.0.0.1", () => resolve(s));
      }),
    );
  }
  if (name === "Fastify 5") {
    const app = Fastify();
    await app.register(stowageFastify, { logger: log, ...optionsUnderTest });
    app.get("/health", async (request) => {
      request.stowage.info("health probe");
      return "ok";
    });
    app.get("/orders/:id", async (request) => {
      const same = request.stowage === request.stowage;
      request.stowage.info("handler", { same });
      return { requestId: request.stowageRequestId };
    });
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    return { url, close: () => app.close() };
  }
  const app = new Hono<{ Variables: StowageHonoVariables }>();
  app.use(stowageHono(log, optionsUnderTest));
  app.get("/health", (c) => {
    c.get("log").info("health probe");
    return c.text("ok");
  });
  app.get("/orders/:id", (c) => {
    const same = c.get("log") === c.get("log");
    c.get("log").info("handler", { same });
    return c.json({ requestId: c.get("requestId") });
  });
  return serveHono(app.fetch);
}

describe("§3 framework adapter options", () => {
  it.each(frameworks.map(([name]) => [name]))(
    "%s: skip, trustProxy, setResponseHeader, query, unsafe incoming ids",
    async (name) => {
      const prefix = uniquePrefix("http-options");
      const log = createLogger({
        ...s3Config(prefix, { flushIntervalMs: 600_000 }),
        service: "web",
      } as Parameters<typeof createLogger>[0]);
      const app = await startOptionsApp(name, log);
      const ids: string[] = [];
      try {
        const health = await fetch(`${app.url}/health`, { headers: { "x-request-id": "probe-1" } });
        expect(await health.text()).toBe("ok");
        expect(health.headers.get("x-request-id")).toBeNull();
        for (const incoming of ["fine-id.1:2", "bad id!", "x".repeat(129)]) {
          const res = await fetch(`${app.url}/orders/7?token=sekret&page=2`, {
            headers: {
              "x-request-id": incoming,
              "x-forwarded-for": "203.0.113.7, 10.0.0.1",
              "user-agent": "options/1",
            },
          });
          expect(res.status).toBe(200);
          expect(res.headers.get("x-request-id")).toBeNull();
          ids.push(((await res.json()) as { requestId: string }).requestId);
        }
      } finally {
        await app.close();
      }
      expect(ids[0]).toBe("fine-id.1:2");
      expect(ids[1]).toMatch(/^[0-9a-f-]{36}$/);
      expect(ids[2]).toMatch(/^[0-9a-f-]{36}$/);
      expect(new Set(ids).size).toBe(3);

      const res = await log.close({ timeoutMs: 30_000 });
      expect(res.ok, JSON.stringify(res)).toBe(true);
      const reader = s3Reader();
      const lines = (await readBack(reader, `${prefix}/`)).flatMap((o) => o.lines) as {
        message: string;
        bindings?: { requestId?: string };
        data?: Record<string, unknown>;
      }[];
      reader.close();

      const probe = lines.filter((r) => r.message === "health probe");
      expect(probe).toHaveLength(1);
      expect(probe[0]!.bindings).toEqual({ requestId: "probe-1" });
      const requests = lines.filter((r) => r.data?.status !== undefined);
      expect(requests.map((r) => r.data!.path)).toEqual(["/orders/7", "/orders/7", "/orders/7"]);
      for (const [i, r] of requests.entries()) {
        expect(r.bindings).toEqual({ requestId: ids[i] });
        expect(r.data).toMatchObject({
          route: "/orders/:id",
          ip: "203.0.113.7",
          userAgent: "options/1",
        });
        expect(r.data).not.toHaveProperty("query");
      }
      const handler = lines.filter((r) => r.message === "handler");
      expect(handler.map((r) => r.bindings!.requestId)).toEqual(ids);
      expect(handler.every((r) => r.data!.same === true)).toBe(true);
      expect(JSON.stringify(lines)).not.toContain("sekret");
    },
  );
});

describe("§3 framework adapters: the request record after the response", () => {
  it("Hono (app.request) and Fastify (inject): a flush in the same turn as the response holds its record", async () => {
    const prefix = uniquePrefix("http-same-turn");
    const log = createLogger(
      s3Config(prefix, { flushIntervalMs: 600_000 }) as Parameters<typeof createLogger>[0],
    );
    const hono = new Hono<{ Variables: StowageHonoVariables }>();
    hono.use(stowageHono(log));
    hono.get("/orders/:id", (c) => c.json({ id: c.req.param("id") }));
    const fastify = Fastify();
    await fastify.register(stowageFastify, { logger: log });
    fastify.get("/orders/:id", async (request) => ({ id: (request.params as { id: string }).id }));
    await fastify.ready();
    try {
      const delivered: number[] = [];
      // No turn of the event loop between the response and flush(): the record still
      // waits for the end of the turn, and flush() writes it first.
      const a = await hono.request("/orders/1");
      expect(a.status).toBe(200);
      delivered.push((await log.flush({ timeoutMs: 30_000 })).destinations.sink.delivered);
      const b = await fastify.inject({ method: "GET", url: "/orders/2" });
      expect(b.statusCode).toBe(200);
      delivered.push((await log.flush({ timeoutMs: 30_000 })).destinations.sink.delivered);
      expect(delivered).toEqual([1, 2]);
    } finally {
      await fastify.close();
    }
    expect((await log.close({ timeoutMs: 30_000 })).ok).toBe(true);
    const reader = s3Reader();
    const lines = (await readBack(reader, `${prefix}/`)).flatMap((o) => o.lines);
    reader.close();
    expect(lines.map((r) => (r.data as { path: string }).path).sort()).toEqual([
      "/orders/1",
      "/orders/2",
    ]);
  });
});
