/**
 * end to end in a real browser: a page served to Chromium uses
 * stowage/client (the bundle an app would ship), logs, throws an uncaught
 * error, and navigates away; the records reach the ingestion endpoint on
 * another origin by `sendBeacon` and land in the real MinIO.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, expect, it } from "vitest";
import { createLogger } from "../../src/index.js";
import { createIngestHandler } from "../../src/ingest.js";
import { launchBrowser } from "../support/browser.js";
import { s3Config, s3Reader } from "../support/loggers.js";
import { uniquePrefix } from "../support/minio.js";
import { readBack } from "../support/read-back.js";
import { clientBundle } from "./fixtures/client-bundle.js";

const TOKEN = "page-token-5678";
const servers: Server[] = [];
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
  for (const s of servers) await new Promise((r) => s.close(r));
});

async function listen(s: Server, host: string): Promise<number> {
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, host, r));
  return (s.address() as AddressInfo).port;
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!cond()) throw new Error(`gave up waiting for ${what}`);
}

it("§4 a page logs and navigates away: its records arrive by sendBeacon, marked with their origin", async () => {
  const prefix = uniquePrefix("browser");
  const logger = createLogger({
    ...s3Config(prefix, { flushIntervalMs: 600_000 }),
    service: "shop",
  } as Parameters<typeof createLogger>[0]);
  const bundle = await clientBundle();

  // The page is served from 127.0.0.1 and ingests on localhost: a cross-origin endpoint, as in production.
  const seen: { url: string; headers: IncomingMessage["headers"] }[] = [];
  let pageOrigin = "";
  const ingestPort = await listen(
    createServer((req, res) => {
      seen.push({ url: req.url ?? "", headers: req.headers });
      handler(req, res);
    }),
    "127.0.0.1",
  );
  const ingestUrl = `http://localhost:${ingestPort}/ingest`;
  const pagePort = await listen(
    createServer((req, res) => {
      if (req.url === "/client.js") {
        res.writeHead(200, { "content-type": "text/javascript" });
        return void res.end(bundle);
      }
      if (req.url === "/next") return void res.end("<!doctype html><title>next</title>bye");
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<!doctype html><title>shop</title><script type="module">
        import { createClient } from "/client.js";
        const log = createClient({ url: ${JSON.stringify(ingestUrl)}, token: ${JSON.stringify(TOKEN)},
          flushIntervalMs: 600000, captureErrors: true, bindings: { page: "/cart" } });
        log.info("cart opened", { items: 3, password: "p@ss" });
        log.warn("slow image", { ms: 1200 });
        log.debug("below the level: not sent");
        setTimeout(() => { throw new Error("uncaught in page"); });
        setTimeout(() => { window.__ready = true; }, 20);
      </script>`);
    }),
    "127.0.0.1",
  );
  pageOrigin = `http://127.0.0.1:${pagePort}`;
  const handler = createIngestHandler(logger, {
    auth: { token: TOKEN },
    cors: { origins: [pageOrigin] },
  });

  browser = await launchBrowser();
  const page = await browser.newPage();
  await page.goto(`${pageOrigin}/`);
  await page.waitForFunction(() => (window as unknown as { __ready?: boolean }).__ready === true);
  expect(seen).toHaveLength(0); // nothing sent while the page is open (long interval)
  await page.goto(`${pageOrigin}/next`);
  await until(() => handler.stats().accepted >= 3, "the beacon");

  expect(seen.length).toBeGreaterThan(0);
  for (const s of seen) {
    expect(s.url).toBe(`/ingest?token=${TOKEN}`); // sendBeacon: the token in the query, no custom header
    expect(s.headers["x-stowage-token"]).toBeUndefined();
    expect(s.headers.origin).toBe(pageOrigin);
  }
  expect(handler.stats()).toMatchObject({ accepted: 3, rejected: { malformed: 0, skew: 0 } });

  const res = await logger.close({ timeoutMs: 20_000 });
  expect(res.ok, JSON.stringify(res)).toBe(true);
  const reader = s3Reader();
  const lines = (await readBack(reader, `${prefix}/`)).flatMap((o) => o.lines);
  reader.close();
  expect(lines.map((l) => l.message).sort()).toEqual([
    "Uncaught Error: uncaught in page",
    "cart opened",
    "slow image",
  ]);
  for (const l of lines) expect(l.bindings).toMatchObject({ origin: "client", page: "/cart" });
  expect(lines.find((l) => l.message === "cart opened")).toMatchObject({
    level: "info",
    service: "shop",
    data: { items: 3, password: "[REDACTED]" },
  });
  const uncaught = lines.find((l) => l.message === "Uncaught Error: uncaught in page")!;
  expect(uncaught.level).toBe("error");
  expect((uncaught.error as { stack: string }).stack).toContain("uncaught in page");
});
