/**
 * Framework adapter benchmark (issue 14 §3): requests/s of a hello-world app on
 * Express 5, Fastify 5 and Hono 4 (@hono/node-server) with and without the
 * stowage adapter, measured by autocannon (own process) over loopback, in
 * alternating rounds; printed as min and median with the ratio (goal ≥ 0.9×).
 * The logger writes to a local-directory store (delivery off the request path).
 * Usage: node --import jiti/register bench/bridges-http.ts [--rounds 3] [--seconds 3]
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import Fastify from "fastify";
import { Hono } from "hono";
import { serve } from "@hono/node-server";
import { createLogger, type Logger } from "../src/index.js";
import { stowageExpress } from "../src/express.js";
import { stowageFastify } from "../src/fastify.js";
import { stowageHono } from "../src/hono.js";
import { positiveArg } from "./_shared.js";
import { alternate, autocannon, median, min } from "./_bridges.js";

// Plain require: jiti's ESM interop wraps Express in a proxy that breaks its request getters.
const express = createRequire(import.meta.url)("express") as typeof import("express");
const ROUNDS = positiveArg("rounds", 3);
const SECONDS = positiveArg("seconds", 3);

type Start = (log: Logger | null) => Promise<{ url: string; close(): Promise<void> }>;

const listen = async (s: Server) => {
  if (!s.listening) await new Promise<void>((r) => s.once("listening", () => r()));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/hello/42`,
    close: () => new Promise<void>((r) => s.close(() => r())),
  };
};

const apps: Record<string, Start> = {
  "Express 5": async (log) => {
    const app = express();
    if (log) app.use(stowageExpress(log));
    app.get("/hello/:id", (_req, res) => void res.send("hello"));
    return listen(app.listen(0, "127.0.0.1"));
  },
  "Fastify 5": async (log) => {
    const app = Fastify();
    if (log) await app.register(stowageFastify, { logger: log });
    app.get("/hello/:id", async () => "hello");
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    return { url: `${url}/hello/42`, close: () => app.close() };
  },
  "Hono 4": async (log) => {
    const app = new Hono();
    if (log) app.use(stowageHono(log));
    app.get("/hello/:id", (c) => c.text("hello"));
    return listen(serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server);
  },
};

const dir = mkdtempSync(join(tmpdir(), "stowage-bench-http-"));
const log = createLogger({
  console: false,
  destination: "local",
  local: { path: dir, delivery: { maxQueueBytes: "256MiB" } },
});
console.log(
  `\n-- adapters: hello-world req/s, autocannon -c 50 -d ${SECONDS}, ${ROUNDS} alternating rounds`,
);
console.log(
  `${"framework".padEnd(12)} ${"without (min/med)".padStart(20)} ${"with (min/med)".padStart(20)} ${"ratio (min/med)".padStart(16)}`,
);
for (const [name, start] of Object.entries(apps)) {
  const measure = (withAdapter: boolean) => async () => {
    const app = await start(withAdapter ? log : null);
    try {
      return await autocannon(app.url, { seconds: SECONDS });
    } finally {
      await app.close();
    }
  };
  await measure(false)(); // warm-up
  const s = await alternate(ROUNDS, { without: measure(false), with: measure(true) });
  const fmt = (xs: number[]) => `${min(xs).toFixed(0)}/${median(xs).toFixed(0)}`;
  console.log(
    `${name.padEnd(12)} ${fmt(s.without).padStart(20)} ${fmt(s.with).padStart(20)} ${`${(min(s.with) / min(s.without)).toFixed(2)}×/${(median(s.with) / median(s.without)).toFixed(2)}×`.padStart(16)}`,
  );
}
const r = await log.close({ timeoutMs: 60_000 });
console.log(
  `logger: ${Object.values(r.destinations)[0]!.delivered.toLocaleString()} request records delivered, ok=${r.ok}`,
);
rmSync(dir, { recursive: true, force: true });
