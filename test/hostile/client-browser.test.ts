/**
 * Issue 30 row 9, the browser side, in real Chromium: `stowage/client` (the bundle
 * an app would ship) against a real ingestion endpoint on another origin, writing
 * to the real MinIO. Its `stats()` say what the server answered, records refused for
 * capacity are sent again until accepted, and batches are measured in UTF-8 bytes
 * against the browser's 64 KiB keepalive/sendBeacon cap. The bucket is the judge.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLogger, type Logger } from "../../src/index.js";
import { createIngestHandler, type IngestHandler } from "../../src/ingest.js";
import { launchBrowser } from "../support/browser.js";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy.js";
import { bucketIdCounts, s3Config } from "../support/loggers.js";
import { minio, uniquePrefix } from "../support/minio.js";
import { clientBundle } from "../bridges/fixtures/client-bundle.js";

const TOKEN = "page-token-row9";
const KEEPALIVE_CAP = 64 * 1024;
const servers: Server[] = [];
const loggers: Logger[] = [];
const proxies: FaultProxy[] = [];
let browser: Browser;
let bundle: string;

beforeAll(async () => {
  bundle = await clientBundle();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  for (const s of servers) await new Promise((r) => s.close(r));
  for (const l of loggers) await l.close({ timeoutMs: 5_000 });
  for (const p of proxies) await p.close();
});

async function listen(s: Server): Promise<number> {
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return (s.address() as AddressInfo).port;
}

async function until(cond: () => boolean, what: string, tries = 400): Promise<void> {
  for (let i = 0; i < tries && !cond(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!cond()) throw new Error(`gave up waiting for ${what}`);
}

interface Site {
  handler: IngestHandler;
  /** The declared length (UTF-8 bytes) of every request body the endpoint received. */
  bodies: number[];
  /** Requests that carried the token in the query: sendBeacon's (it cannot set headers). */
  beacons: () => number;
  page: Page;
  origin: string;
}

/**
 * An ingestion endpoint on localhost for `logger`, and a page on 127.0.0.1 (another
 * origin, as in production) whose module script runs `script` with `createClient` and
 * `url` in scope.
 */
async function site(logger: Logger, script: string): Promise<Site> {
  const bodies: number[] = [];
  let beacons = 0;
  let url = ""; // the endpoint's, known once it listens (before the page is loaded)
  const pagePort = await listen(
    createServer((req, res) => {
      if (req.url === "/client.js") {
        res.writeHead(200, { "content-type": "text/javascript" });
        return void res.end(bundle);
      }
      if (req.url === "/next") return void res.end("<!doctype html><title>next</title>bye");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><meta charset="utf-8"><title>row 9</title><script type="module">
        import { createClient } from "/client.js";
        const url = ${JSON.stringify(url)}, token = ${JSON.stringify(TOKEN)};
        ${script}
      </script>`);
    }),
  );
  const origin = `http://127.0.0.1:${pagePort}`;
  const handler = createIngestHandler(logger, {
    auth: { token: TOKEN },
    cors: { origins: [origin] },
  });
  const ingestPort = await listen(
    createServer((req, res) => {
      // Fetch keepalive and sendBeacon both declare their body's length.
      if (req.method === "POST") bodies.push(Number(req.headers["content-length"]));
      if (req.method === "POST" && req.url?.includes("token=")) beacons++;
      handler(req, res);
    }),
  );
  url = `http://localhost:${ingestPort}/ingest`;
  const page = await browser.newPage();
  return { handler, bodies, beacons: () => beacons, page, origin };
}

const done = (page: Page, name: string) =>
  page.waitForFunction((n) => (window as unknown as Record<string, unknown>)[n] === true, name, {
    timeout: 120_000,
  });

/** A CJK message: 1 UTF-16 unit but 3 UTF-8 bytes per character. */
const cjk = (i: number) => `注文${i}：` + "日本語のログ記録".repeat(100);
const CJK_PAGE = 'const cjk = (i) => `注文${i}：` + "日本語のログ記録".repeat(100);';

it("issue 30 row 9: records the server refuses for capacity are retried until accepted, and stats() say what the server accepted", async () => {
  const prefix = uniquePrefix("client-capacity");
  let held = true;
  const proxy = await startFaultProxy(minio().endpoint, (req) =>
    held && req.kind === "put" ? "slowdown" : undefined,
  );
  proxies.push(proxy);
  // The logger's queue (64 KiB) fills while every PUT is answered 503; delivery keeps
  // retrying, so it drains once the proxy heals.
  const logger = createLogger(
    s3Config(
      prefix,
      {
        flushIntervalMs: 600_000,
        maxBatchRecords: 100,
        maxQueueBytes: 64 * 1024,
        maxRecordBytes: 8 * 1024,
        maxAttempts: 100,
        initialBackoffMs: 5,
        maxBackoffMs: 200,
      },
      { endpoint: proxy.endpoint },
    ) as Parameters<typeof createLogger>[0],
  );
  loggers.push(logger);
  const s = await site(
    logger,
    `const log = createClient({ url, token, flushIntervalMs: 600000, maxQueue: 5000, maxBatch: 100,
       maxAttempts: 100, initialBackoffMs: 20, maxBackoffMs: 200 });
     for (let i = 0; i < 5000; i++) log.info("c" + i, { id: i });
     await log.flush();
     window.__stats = log.stats();
     window.__done = true;`,
  );
  await s.page.goto(`${s.origin}/`);
  await until(() => s.handler.stats().rejected.refused > 0, "the logger to refuse for capacity");
  held = false;
  await done(s.page, "__done");
  const stats = await s.page.evaluate(() => (window as unknown as { __stats: unknown }).__stats);
  expect(stats).toMatchObject({ queued: 0, accepted: 5000, filtered: 0, refused: 0, dropped: 0 });
  expect((stats as { retried: number }).retried).toBeGreaterThan(0);
  expect(s.handler.stats()).toMatchObject({ accepted: 5000 });
  expect(s.handler.stats().refusedBy.queueFull).toBeGreaterThan(0);

  const r = await logger.close({ timeoutMs: 30_000 });
  expect(r.ok, JSON.stringify(r)).toBe(true);
  const ids = await bucketIdCounts(prefix);
  expect(ids.size).toBe(5000);
  for (const n of ids.values()) expect(n).toBe(1);
});

/** Records of the CJK tests: 30 × ~2.4 KB of UTF-8 (~74 KB), but ~26,000 UTF-16 units. */
const CJK_SCRIPT = `${CJK_PAGE} for (let i = 0; i < 30; i++) log.info(cjk(i), { id: i });`;

it("issue 30 row 9: on the page, a batch of CJK text over 64 KiB of UTF-8 is sent in bodies under the cap", async () => {
  const prefix = uniquePrefix("client-cjk-page");
  const logger = createLogger(s3Config(prefix, { flushIntervalMs: 600_000 }) as never);
  loggers.push(logger);
  const s = await site(
    logger,
    `const log = createClient({ url, token, flushIntervalMs: 600000, maxAttempts: 2, initialBackoffMs: 10 });
     ${CJK_SCRIPT}
     await log.flush();
     window.__stats = log.stats();
     window.__done = true;`,
  );
  await s.page.goto(`${s.origin}/`);
  await done(s.page, "__done");
  const stats = await s.page.evaluate(() => (window as unknown as { __stats: unknown }).__stats);
  expect(stats).toMatchObject({ queued: 0, accepted: 30, dropped: 0 });
  expect(s.bodies.reduce((a, b) => a + b, 0)).toBeGreaterThan(KEEPALIVE_CAP);
  for (const b of s.bodies) expect(b).toBeLessThanOrEqual(KEEPALIVE_CAP);

  const r = await logger.close({ timeoutMs: 20_000 });
  expect(r.ok, JSON.stringify(r)).toBe(true);
  const ids = await bucketIdCounts(prefix);
  expect([...ids.keys()].sort((a, b) => (a as number) - (b as number))).toEqual(
    Array.from({ length: 30 }, (_, i) => i),
  );
  for (const n of ids.values()) expect(n).toBe(1);
});

it("issue 30 row 9: CJK records over 64 KiB of UTF-8 leave while the page is open and, the rest, by sendBeacon on pagehide", async () => {
  const prefix = uniquePrefix("client-cjk-beacon");
  const logger = createLogger(s3Config(prefix, { flushIntervalMs: 600_000 }) as never);
  loggers.push(logger);
  const s = await site(
    logger,
    `const log = createClient({ url, token, flushIntervalMs: 600000 });
     window.__log = log;
     ${CJK_SCRIPT}
     window.__ready = true;`,
  );
  await s.page.goto(`${s.origin}/`);
  await done(s.page, "__ready");

  // A full batch (60,000 UTF-8 bytes by default) leaves at once, without waiting for the
  // interval; once it is answered, the browser's 64 KiB of keepalive/beacon bodies is free
  // again and the page goes away: the rest must leave by beacon.
  const line = (i: number) =>
    Buffer.byteLength(
      JSON.stringify({
        timestamp: new Date().toISOString(),
        level: "info",
        message: cjk(i),
        data: { id: i },
      }),
    ) + 1;
  let firstBatch = 0;
  for (let bytes = 0; bytes + line(firstBatch) <= 60_000; firstBatch++) bytes += line(firstBatch);
  expect(firstBatch).toBeLessThan(30);
  // Answered as the page sees it (its response read, so its keepalive bytes are released).
  await s.page.waitForFunction(
    (n) =>
      (window as unknown as { __log: { stats(): { accepted: number } } }).__log.stats().accepted >=
      n,
    firstBatch,
    { timeout: 20_000 },
  );
  expect(s.handler.stats().accepted).toBe(firstBatch);
  expect(s.beacons()).toBe(0);
  await s.page.goto(`${s.origin}/next`);
  await until(() => s.handler.stats().accepted === 30, "the rest, by beacon on pagehide");
  expect(s.beacons()).toBeGreaterThan(0);
  for (const b of s.bodies) expect(b).toBeLessThanOrEqual(KEEPALIVE_CAP);

  const r = await logger.close({ timeoutMs: 20_000 });
  expect(r.ok, JSON.stringify(r)).toBe(true);
  const ids = await bucketIdCounts(prefix);
  expect([...ids.keys()].sort((a, b) => (a as number) - (b as number))).toEqual(
    Array.from({ length: 30 }, (_, i) => i),
  );
  for (const n of ids.values()) expect(n).toBe(1);
});
