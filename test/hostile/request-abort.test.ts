/**
 * Issue 30 row 10: a request the client aborts gets exactly one record, in all three
 * framework adapters, on real Express 5 / Fastify 5 / Hono 4 (@hono/node-server)
 * servers, with real client sockets destroyed mid-request, read back from the real
 * MinIO bucket. Found: Express and Fastify wrote no record (0 of 20), Hono wrote 20
 * as status 200 (the status its handler returned after the client had gone).
 *
 * Per framework: 20 requests aborted while the handler waits (no status sent → the
 * record has `aborted: true` and no status), 5 aborted in the middle of a streamed
 * 200 body (`aborted: true`, status 200: the head went out), 5 whose client destroys
 * the socket only after the whole response arrived (a normal record), and 20 ordinary
 * requests (normal records) — every request id exactly once in the bucket.
 */
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import type { Server, ServerResponse } from "node:http";
import { PassThrough } from "node:stream";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { serve } from "@hono/node-server";
import { describe, expect, it } from "vitest";
import { createLogger, type Logger } from "../../src/index.js";
import { stowageExpress } from "../../src/express.js";
import { stowageFastify } from "../../src/fastify.js";
import { stowageHono, type StowageHonoVariables } from "../../src/hono.js";
import { s3Config, s3Reader } from "../support/loggers.js";
import { uniquePrefix } from "../support/minio.js";
import { readBack } from "../support/read-back.js";

/** A promise per request id, resolved by one side and awaited by the other. */
class Signals {
  private readonly waiting = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  private slot(id: string) {
    let s = this.waiting.get(id);
    if (s === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      s = { promise, resolve };
      this.waiting.set(id, s);
    }
    return s;
  }
  fire(id: string): void {
    this.slot(id).resolve();
  }
  wait(id: string): Promise<void> {
    return this.slot(id).promise;
  }
}

/** What the handlers tell the test: the handler is running (`entered`), it saw the client go (`done`). */
interface Hooks {
  entered: Signals;
  done: Signals;
}

interface RunningApp {
  port: number;
  close(): Promise<void>;
}

function running(server: Server): RunningApp {
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Express: /slow waits for the client to go, then answers 200 anyway; /stream sends a 200 head and part of a body. */
async function startExpress(log: Logger, h: Hooks): Promise<RunningApp> {
  const app = express();
  app.use(stowageExpress(log));
  app.get("/slow", (req, res) => {
    res.once("close", () =>
      setImmediate(() => {
        res.status(200).send("late"); // the client is gone: nothing reaches it
        h.done.fire(req.requestId);
      }),
    );
    h.entered.fire(req.requestId);
  });
  app.get("/stream", (req, res) => {
    res.once("close", () => h.done.fire(req.requestId));
    res.status(200).type("text/plain");
    res.write("partial\n");
  });
  app.get("/fast", (_req, res) => void res.send("ok"));
  return running(
    await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    }),
  );
}

async function startFastify(log: Logger, h: Hooks): Promise<RunningApp> {
  const app = Fastify();
  await app.register(stowageFastify, { logger: log });
  app.get("/slow", async (request, reply) => {
    const gone = new Promise<void>((resolve) => reply.raw.once("close", () => resolve()));
    h.entered.fire(request.stowageRequestId);
    await gone;
    h.done.fire(request.stowageRequestId);
    return "late"; // the client is gone: nothing reaches it
  });
  app.get("/stream", (request, reply) => {
    const body = new PassThrough();
    reply.raw.once("close", () => h.done.fire(request.stowageRequestId));
    body.write("partial\n");
    return reply.code(200).header("content-type", "text/plain").send(body);
  });
  app.get("/fast", async () => "ok");
  await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    port: (app.server.address() as AddressInfo).port,
    close: () => app.close(),
  };
}

async function startHono(log: Logger, h: Hooks): Promise<RunningApp> {
  const app = new Hono<{ Variables: StowageHonoVariables }>();
  app.use(stowageHono(log));
  app.get("/slow", async (c) => {
    const signal = c.req.raw.signal;
    const gone = new Promise<void>((resolve) =>
      signal.addEventListener("abort", () => resolve(), { once: true }),
    );
    h.entered.fire(c.get("requestId"));
    await gone;
    h.done.fire(c.get("requestId"));
    return c.text("late", 200); // the client is gone: nothing reaches it
  });
  app.get("/stream", (c) => {
    const id = c.get("requestId");
    (c.env as { outgoing: ServerResponse }).outgoing.once("close", () => h.done.fire(id));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("partial\n"));
      },
    });
    return c.body(body, 200, { "content-type": "text/plain" });
  });
  app.get("/fast", (c) => c.text("ok"));
  return running(
    await new Promise<Server>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () =>
        resolve(s as Server),
      );
    }),
  );
}

type Framework = [name: string, start: (log: Logger, h: Hooks) => Promise<RunningApp>];
const frameworks: Framework[] = [
  ["Express 5", startExpress],
  ["Fastify 5", startFastify],
  ["Hono 4 (@hono/node-server)", startHono],
];

/** A raw HTTP/1.1 GET on its own socket; resolves once `until` is among the bytes received. */
function rawGet(
  port: number,
  path: string,
  id: string,
): { socket: Socket; received(until: string): Promise<void> } {
  const socket = connect(port, "127.0.0.1");
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-request-id: ${id}\r\n\r\n`);
  let text = "";
  const waiters: { until: string; resolve: () => void }[] = [];
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString("latin1");
    for (const w of waiters) if (text.includes(w.until)) w.resolve();
  });
  socket.on("error", () => undefined); // destroyed on purpose
  return {
    socket,
    received: (until) =>
      new Promise<void>((resolve, reject) => {
        if (text.includes(until)) return resolve();
        waiters.push({ until, resolve });
        socket.once("close", () =>
          text.includes(until) ? resolve() : reject(new Error(`${id}: closed before ${until}`)),
        );
      }),
  };
}

type Rec = {
  level: string;
  message: string;
  bindings?: { requestId?: string };
  data?: Record<string, unknown>;
};

describe("issue 30 row 10: an aborted request gets its record, exactly once", () => {
  it.each(frameworks)(
    "issue 30 row 10 — %s: aborted while waiting (no status), aborted mid-body (200), finished then destroyed, normal",
    async (_name, start) => {
      const prefix = uniquePrefix("http-abort");
      const log = createLogger({
        ...s3Config(prefix, { flushIntervalMs: 600_000 }),
        service: "web",
      } as Parameters<typeof createLogger>[0]);
      const hooks: Hooks = { entered: new Signals(), done: new Signals() };
      const app = await start(log, hooks);
      const ids = {
        slow: [] as string[],
        stream: [] as string[],
        after: [] as string[],
        fast: [] as string[],
      };
      try {
        const work: Promise<void>[] = [];
        for (let i = 0; i < 20; i++) {
          const id = `slow-${i}`;
          ids.slow.push(id);
          work.push(
            (async () => {
              const c = rawGet(app.port, `/slow?n=${i}`, id);
              await hooks.entered.wait(id); // the handler is waiting: nothing sent yet
              c.socket.destroy();
              await hooks.done.wait(id); // the server saw the client go
            })(),
          );
        }
        for (let i = 0; i < 5; i++) {
          const id = `stream-${i}`;
          ids.stream.push(id);
          work.push(
            (async () => {
              const c = rawGet(app.port, "/stream", id);
              await c.received("partial\n"); // the 200 head and part of the body arrived
              c.socket.destroy();
              await hooks.done.wait(id);
            })(),
          );
        }
        for (let i = 0; i < 5; i++) {
          const id = `after-${i}`;
          ids.after.push(id);
          work.push(
            (async () => {
              const c = rawGet(app.port, "/fast", id);
              await c.received("\r\n\r\nok"); // the whole response arrived
              c.socket.destroy();
            })(),
          );
        }
        for (let i = 0; i < 20; i++) {
          const id = `fast-${i}`;
          ids.fast.push(id);
          work.push(
            (async () => {
              const res = await fetch(`http://127.0.0.1:${app.port}/fast`, {
                headers: { "x-request-id": id },
              });
              expect(await res.text()).toBe("ok");
            })(),
          );
        }
        await Promise.all(work);
      } finally {
        await app.close();
      }
      const res = await log.close({ timeoutMs: 30_000 });
      expect(res.ok, JSON.stringify(res)).toBe(true);

      const reader = s3Reader();
      const records = (await readBack(reader, `${prefix}/`)).flatMap((o) => o.lines) as Rec[];
      reader.close();
      const byId = new Map<string, Rec[]>();
      for (const r of records) {
        const id = r.bindings?.requestId ?? "(none)";
        byId.set(id, [...(byId.get(id) ?? []), r]);
      }
      const one = (id: string): Rec => {
        const got = byId.get(id) ?? [];
        expect(got.length, `records for ${id}`).toBe(1);
        return got[0]!;
      };

      const slow = ids.slow.filter((id) => byId.has(id));
      expect(slow.length, "aborted requests with a record").toBe(20);
      for (const id of ids.slow) {
        const r = one(id);
        expect(r.data, JSON.stringify(r.data)).toMatchObject({
          method: "GET",
          route: "/slow",
          path: "/slow",
          aborted: true,
        });
        expect(r.data, `${id}: no status was sent`).not.toHaveProperty("status");
        expect(r.level).toBe("warning");
      }
      for (const id of ids.stream) {
        const r = one(id);
        expect(r.data).toMatchObject({ route: "/stream", status: 200, aborted: true });
        expect(r.level).toBe("warning");
      }
      for (const id of [...ids.after, ...ids.fast]) {
        const r = one(id);
        expect(r.data).toMatchObject({ route: "/fast", status: 200 });
        expect(r.data, `${id}: finished normally`).not.toHaveProperty("aborted");
        expect(r.level).toBe("info");
      }
      expect(records).toHaveLength(50);
    },
  );

  it("issue 30 row 10 — Hono without Node bindings (app.request): a request whose signal aborts is recorded aborted, no status", async () => {
    const prefix = uniquePrefix("http-abort-fetch");
    const log = createLogger(
      s3Config(prefix, { flushIntervalMs: 600_000 }) as Parameters<typeof createLogger>[0],
    );
    const app = new Hono<{ Variables: StowageHonoVariables }>();
    app.use(stowageHono(log));
    const entered = new Signals();
    app.get("/slow", async (c) => {
      const signal = c.req.raw.signal;
      const gone = new Promise<void>((resolve) =>
        signal.addEventListener("abort", () => resolve(), { once: true }),
      );
      entered.fire(c.get("requestId"));
      await gone;
      return c.text("late", 200);
    });
    app.get("/fast", (c) => c.text("ok"));
    const controller = new AbortController();
    const pending = app.request(
      new Request("http://local/slow", {
        headers: { "x-request-id": "fetch-slow" },
        signal: controller.signal,
      }),
    );
    await entered.wait("fetch-slow");
    controller.abort();
    await pending;
    expect((await app.request("/fast", { headers: { "x-request-id": "fetch-fast" } })).status).toBe(
      200,
    );
    expect((await log.close({ timeoutMs: 30_000 })).ok).toBe(true);

    const reader = s3Reader();
    const records = (await readBack(reader, `${prefix}/`)).flatMap((o) => o.lines) as Rec[];
    reader.close();
    expect(records).toHaveLength(2);
    const slow = records.find((r) => r.bindings?.requestId === "fetch-slow")!;
    expect(slow.data, JSON.stringify(slow.data)).toMatchObject({ route: "/slow", aborted: true });
    expect(slow.data).not.toHaveProperty("status");
    const fast = records.find((r) => r.bindings?.requestId === "fetch-fast")!;
    expect(fast.data).toMatchObject({ route: "/fast", status: 200 });
    expect(fast.data).not.toHaveProperty("aborted");
  });
});
