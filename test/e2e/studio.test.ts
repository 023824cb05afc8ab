/**
 * Studio end to end in headless Chromium: a MinIO source written by the real
 * logger, a counting proxy in front of MinIO, and the real UI. Covers: no
 * storage request before Load logs, partial → load more → complete with every
 * record once, search and facets, the detail drawer, source context (inside,
 * `../`, symlink out), Copy AI context, the 7-day refusal, and that no API
 * response ever carries the access key or secret. Screenshots go to docs/screenshots/.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/index.js";
import { startStudio, type StudioHandle } from "../../src/studio/index.js";
import type { LoadResponse } from "../../src/studio/api-types.js";
import { startCountingProxy, type CountingProxy } from "../support/counting-proxy.js";
import { ensureStudioAssets, launchBrowser } from "../support/browser.js";
import { s3Config } from "../support/loggers.js";
import { minio, uniquePrefix } from "../support/minio.js";
import {
  LINES,
  markerRecords,
  sampleWorkload,
  writeProject,
  type SampleRecord,
} from "./fixtures.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SHOTS = join(REPO, "docs", "screenshots");
const HOUR = 3_600_000;
const RECORDS_PER_GRANT = 1000;

let root: string;
let proxy: CountingProxy;
let studio: StudioHandle;
let browser: Browser;
let records: SampleRecord[];
let prefix: string;
const bodies: { url: string; text: string }[] = [];
const foreignRequests: string[] = [];
const counts: Record<string, { list: number; get: number; objects: number }> = {};

const sel = (id: string) => `[data-testid="${id}"]`;
/** Waits for the page (not a timing assertion): loads through the proxy take seconds on a busy machine. */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000, interval: 100 });
const note = (step: string) =>
  (counts[step] = {
    list: proxy.count("list"),
    get: proxy.count("get"),
    objects: new Set(proxy.getKeys(minio().bucket)).size,
  });

async function openPage(ctx: BrowserContext): Promise<Page> {
  ctx.setDefaultTimeout(10_000);
  const page = await ctx.newPage();
  page.on("response", async (res) => {
    if (!res.url().includes("/api/")) return;
    try {
      bodies.push({ url: res.url(), text: await res.text() });
    } catch {
      /* a navigation cancelled it */
    }
  });
  page.on("request", (req) => {
    if (!req.url().startsWith(`http://127.0.0.1:${studio.port}/`) && !req.url().startsWith("data:"))
      foreignRequests.push(req.url());
  });
  await page.goto(studio.url);
  await page.waitForSelector(sel("load"));
  return page;
}

const countsText = async (page: Page) => (await page.locator(sel("counts")).textContent()) ?? "";
const shown = async (page: Page) =>
  Number((await countsText(page)).split(" shown")[0]!.replace(/,/g, ""));

async function search(page: Page, q: string): Promise<void> {
  await page.fill(sel("search"), q);
  await page.press(sel("search"), "Enter");
}

beforeAll(async () => {
  ensureStudioAssets(REPO);
  mkdirSync(SHOTS, { recursive: true });
  root = mkdtempSync(join(tmpdir(), "studio-e2e-"));
  const { projectDir } = writeProject(root);
  const m = minio();
  prefix = uniquePrefix("studio-e2e");
  const now = Date.now();
  records = [
    ...sampleWorkload(now - 3 * HOUR, now - 2 * 60_000, 3000, projectDir),
    ...markerRecords(now - 20 * 60_000, 10_000),
  ];
  // Written straight to MinIO by the real logger; only Studio talks through the proxy.
  const logger = createLogger({ ...s3Config(prefix, { maxBatchRecords: 500 }), level: "trace" });
  for (const r of records) await logger.write(r as never);
  const flushed = await logger.close();
  expect(flushed.ok).toBe(true);
  proxy = await startCountingProxy(m.endpoint);
  studio = await startStudio({
    source: {
      url: `s3://${m.bucket}/${prefix}`,
      options: {
        endpoint: proxy.url,
        region: m.region,
        forcePathStyle: true,
        credentials: { accessKeyId: m.accessKeyId, secretAccessKey: m.secretAccessKey },
      },
    },
    projectDir,
    port: 0,
    limits: { records: RECORDS_PER_GRANT },
  });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await studio?.close();
  await proxy?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  if (Object.keys(counts).length)
    console.log(
      `studio e2e request counts (cumulative LIST/GET through the proxy): ${JSON.stringify(counts)}`,
    );
});

describe("Studio in a browser (§5.4)", () => {
  let ctx: BrowserContext;
  let page: Page;

  it("§5.2 makes no storage request before Load logs, and says what one load may spend", async () => {
    ctx = await browser.newContext({
      viewport: { width: 1440, height: 900 },
      colorScheme: "light",
      permissions: ["clipboard-read", "clipboard-write"],
    });
    page = await openPage(ctx);
    await poll(() => page.locator(sel("empty")).textContent()).toContain(
      "No storage request is made until then",
    );
    await poll(() => page.locator(sel("empty")).textContent()).toContain(
      "20 LIST · 64 GET · 16 MiB downloaded · 1,000 records",
    );
    await poll(() => page.locator(sel("source")).textContent()).toBe(
      `s3://${minio().bucket}/${prefix}`,
    );
    await poll(() => page.locator(sel("badge")).textContent()).toBe("Not loaded");
    await page.waitForTimeout(300);
    expect(proxy.requests).toHaveLength(0);
    await page.screenshot({ path: join(SHOTS, "studio-empty-light.png") });
  });

  it("§5.2 loads a partial grant with the allowance named, then Load more until complete with every record once", async () => {
    await page.click(sel("preset-6h"));
    await page.click(sel("load"));
    await poll(() => page.locator(sel("badge")).textContent()).toBe("Partial");
    note("load");
    expect(proxy.count("list")).toBeGreaterThan(0);
    await poll(() => page.locator(sel("stopped-by")).textContent()).toBe(
      "stopped at the 1,000-record allowance",
    );
    await poll(() => page.locator(sel("meter-records")).textContent()).toContain(
      "1,000/1,000 records",
    );
    await poll(() => page.locator(sel("meter-grants")).textContent()).toContain("grant 1/5");
    expect(await countsText(page)).toBe("1,000 shown · 1,000 loaded");
    await page.screenshot({ path: join(SHOTS, "studio-partial-light.png") });

    for (let grant = 2; grant <= 5; grant++) {
      if ((await page.locator(sel("badge")).textContent()) === "Complete") break;
      if (grant % 2) await page.click(sel("load-more"));
      else await page.keyboard.press("l");
      await poll(() => page.locator(sel("meter-grants")).textContent()).toContain(
        `grant ${grant}/5`,
      );
      note(`more-${grant}`);
    }
    await poll(() => page.locator(sel("badge")).textContent()).toBe("Complete");
    await poll(() => page.locator(sel("load-more")).count()).toBe(0);
    const total = records.length.toLocaleString("en-US");
    expect(await countsText(page)).toBe(`${total} shown · ${total} loaded`);

    const loads = bodies
      .filter((b) => /\/api\/(load|more)$/.test(b.url))
      .map((b) => JSON.parse(b.text) as LoadResponse);
    const seqs = loads.flatMap((l) => l.records.map((r) => (r.data as { seq: number }).seq));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs.length).toBe(records.length);
  });

  it("§5.4 search and a facet narrow the list", async () => {
    const timeouts = records.filter((r) => r.message === "payment provider timeout").length;
    await page.keyboard.press("/");
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe(
      "search",
    );
    await page.keyboard.type('"payment provider timeout"');
    await poll(() => shown(page)).toBe(timeouts);

    await search(page, "");
    const paymentsErrors = records.filter(
      (r) => r.service === "payments" && r.level === "error",
    ).length;
    await page.click('[data-facet="level"][data-value="error"]');
    await page.click('[data-facet="service"][data-value="payments"]');
    await poll(() => page.locator(sel("chips")).textContent()).toContain("level:error");
    await poll(() => shown(page)).toBe(paymentsErrors);
    await page.click('[data-facet="service"][data-value="payments"]', { modifiers: ["Alt"] });
    const otherErrors = records.filter(
      (r) => r.service !== "payments" && r.level === "error",
    ).length;
    await poll(() => shown(page)).toBe(otherErrors);
    await poll(() => page.locator('[data-chip="-service:payments"]').count()).toBe(1);
    await page
      .locator(sel("chips"))
      .getByRole("button", { name: "Remove -service:payments" })
      .click();
    await page.locator(sel("chips")).getByRole("button", { name: "Remove level:error" }).click();
    await poll(() => shown(page)).toBe(records.length);
  });

  it("§5.4 the drawer shows the record and the source lines of an in-project caller", async () => {
    await search(page, "marker:inside");
    await poll(() => shown(page)).toBe(1);
    await page.locator(sel("row")).first().click();
    await poll(() => page.locator(sel("drawer-message")).textContent()).toBe(
      "marker inside project",
    );
    await poll(() => page.locator(sel("drawer-json")).textContent()).toContain(
      '"marker": "inside"',
    );
    const src = page.locator(sel("source-context"));
    await poll(() => src.getAttribute("data-file")).toBe("src/routes/orders.ts");
    await poll(() => src.getAttribute("data-line")).toBe(String(LINES.ordersBug));
    await poll(() => src.locator(".ln.hl").textContent()).toContain("STUDIO-E2E-BUG-LINE");
    await poll(() => src.locator(".ln").count()).toBe(25);
    expect(page.url()).toContain("sel=");
  });

  it("§5.4 a caller outside the project (`../` or a symlink) gets a typed reason, never the file", async () => {
    for (const marker of ["dotdot", "symlink"]) {
      await search(page, `marker:${marker}`);
      await poll(() => shown(page)).toBe(1);
      await page.locator(sel("row")).first().click();
      await poll(() => page.locator(sel("drawer-message")).textContent()).toContain(
        marker === "dotdot" ? "dotdot" : "symlink",
      );
      await poll(() => page.locator(sel("source-reason")).getAttribute("data-reason")).toBe(
        "outside-project",
      );
      expect(await page.content()).not.toContain("OUTSIDE-SECRET-CONTENT");
    }
  });

  it("§5.4 Copy AI context puts a compact block on the clipboard, without any key", async () => {
    await search(page, "level:error");
    await page.keyboard.press("Escape");
    await page.locator(sel("drawer")).getByRole("button", { name: "Close" }).click();
    await page.click(sel("copy-ai"));
    await poll(() => page.locator(sel("toast")).textContent()).toContain("Copied AI context");
    const text = await page.evaluate(() => navigator.clipboard.readText());
    const errors = records.filter((r) => r.level === "error").length;
    expect(text).toContain(`source: s3://${minio().bucket}/${prefix}`);
    expect(text).toContain("filters: search: level:error");
    expect(text).toContain(`matching: ${errors.toLocaleString("en-US")} records`);
    expect(text).toContain(
      "TypeError: Cannot read properties of undefined (reading 'id') @ src/routes/orders.ts:42",
    );
    expect(text).toMatch(/## Matching records \(20 newest/);
    expect(text).not.toContain(minio().secretAccessKey);
    expect(text).not.toContain(minio().accessKeyId);
  });

  it("§5.4 keyboard: j/k move, Enter opens, Esc closes; the Errors tab groups by fingerprint", async () => {
    await search(page, "");
    await page.locator(sel("list")).click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("Escape");
    await page.keyboard.press("j");
    await page.keyboard.press("j");
    await page.keyboard.press("k");
    await page.keyboard.press("Enter");
    await page.locator(sel("drawer")).waitFor({ state: "visible" });
    await page.keyboard.press("Escape");
    await poll(() => page.locator(sel("drawer")).count()).toBe(0);
    await page.click(sel("tab-errors"));
    const typeErrors = records.filter((r) => r.error?.name === "TypeError").length;
    await poll(() => page.locator(sel("error-group")).first().textContent()).toContain(
      typeErrors.toLocaleString("en-US"),
    );
    await page.locator(sel("toast")).waitFor({ state: "detached" });
    await page.screenshot({ path: join(SHOTS, "studio-errors-light.png") });
    await page.locator(sel("error-group")).first().click();
    await poll(() => shown(page)).toBe(typeErrors);
    await poll(() => page.locator(sel("chips")).textContent()).toContain("group TypeError");
    await page.locator(sel("chips")).getByRole("button").first().click();
    await poll(() => shown(page)).toBe(records.length);
    await page.click(sel("tab-http"));
    await poll(() => page.locator(sel("http")).textContent()).toContain("requests");
    // some records carry the method in their route field; it is shown once.
    expect(await page.locator(sel("http")).textContent()).toMatch(/(GET|POST|PUT|DELETE) \/orders/);
    expect(await page.locator(sel("http")).textContent()).not.toMatch(
      /\b(GET|POST|PUT|DELETE) \1\b/,
    );
    await page.screenshot({ path: join(SHOTS, "studio-http-light.png") });
    await page.click(sel("tab-logs"));
  });

  it("§5.4 dragging the histogram zooms into loaded data without any request", async () => {
    const before = proxy.requests.length;
    const box = (await page.locator(`${sel("histogram")} .u-over`).boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.7, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.95, box.y + box.height / 2, { steps: 8 });
    await page.mouse.up();
    await poll(() => page.locator(sel("chips")).textContent()).toContain("→");
    const zoomed = await shown(page);
    expect(zoomed).toBeGreaterThan(0);
    expect(zoomed).toBeLessThan(records.length);
    expect(page.url()).toContain("view=");
    expect(proxy.requests.length).toBe(before);
    await page.locator(sel("chips")).getByRole("button", { name: "Clear zoom" }).click();
    await poll(() => shown(page)).toBe(records.length);
  });

  it("§5.4 the URL keeps range, filters and selection; a reload loads nothing until asked", async () => {
    await search(page, "marker:inside");
    await page.click('[data-facet="level"][data-value="error"]');
    await poll(() => shown(page)).toBe(1);
    await page.locator(sel("row")).first().click();
    await poll(() => page.locator(sel("drawer-message")).textContent()).toBe(
      "marker inside project",
    );
    expect(page.url()).toContain("sel="); // in the URL as soon as the page shows it
    const before = proxy.requests.length;
    await page.reload();
    await page.waitForSelector(sel("load"));
    expect(await page.inputValue(sel("search"))).toBe("marker:inside");
    await poll(() => page.locator('[data-chip="level:error"]').count()).toBe(1);
    expect(await page.locator(sel("preset-6h")).getAttribute("aria-pressed")).toBe("true");
    expect(await page.locator(sel("badge")).textContent()).toBe("Not loaded");
    await page.waitForTimeout(200);
    expect(proxy.requests.length).toBe(before);
    await page.click(sel("load"));
    await poll(() => page.locator(sel("drawer-message")).textContent()).toBe(
      "marker inside project",
    );
    await page.locator(sel("chips")).getByRole("button", { name: "Remove level:error" }).click();
    await search(page, "");
  });

  it("§5.2 a range over 7 days is refused in the UI before any request", async () => {
    const before = proxy.requests.length;
    await page.click(sel("custom-range"));
    const day = 24 * HOUR;
    const iso = (ms: number) => new Date(ms).toISOString().slice(0, 16);
    await page.fill(sel("custom-from"), iso(Date.now() - 8 * day));
    await page.fill(sel("custom-to"), iso(Date.now()));
    await poll(() => page.locator(sel("custom-problem")).textContent()).toContain("at most 7 days");
    await page.click(sel("custom-apply"));
    await poll(() => page.locator(sel("range-problem")).textContent()).toContain(
      "Studio loads at most 7 days at a time",
    );
    await poll(() => page.locator(sel("load")).isDisabled()).toBe(true);
    const api = await page.evaluate(
      async ({ token }) => {
        const r = await fetch("/api/load", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ from: Date.now() - 8 * 86_400_000, to: Date.now() }),
        });
        return { status: r.status, body: await r.json() };
      },
      { token: studio.token },
    );
    expect(api.status).toBe(400);
    expect(api.body.error.category).toBe("range");
    expect(proxy.requests.length).toBe(before);
    await page.click(sel("preset-6h"));
    await poll(() => page.locator(sel("load")).isDisabled()).toBe(false);
    await ctx.close();
  });

  it("§5.4 dark theme follows the system (screenshots)", async () => {
    const dark = await browser.newContext({
      viewport: { width: 1440, height: 900 },
      colorScheme: "dark",
    });
    const p = await openPage(dark);
    await p.click(sel("preset-6h"));
    await p.click(sel("load"));
    await poll(() => p.locator(sel("badge")).textContent()).toBe("Partial");
    note("dark-load (second session, cached objects are free)");
    const bg = await p.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(bg).toBe("rgb(14, 16, 20)");
    await search(p, "marker:inside");
    await poll(() => shown(p)).toBe(1);
    await p.locator(sel("row")).first().click();
    await p.locator(sel("source-context")).waitFor({ state: "visible" });
    await search(p, "");
    await p.screenshot({ path: join(SHOTS, "studio-detail-dark.png") });
    await p.click(sel("tab-errors"));
    await p.screenshot({ path: join(SHOTS, "studio-errors-dark.png") });
    await dark.close();

    const light = await browser.newContext({
      viewport: { width: 1440, height: 900 },
      colorScheme: "light",
    });
    const q = await openPage(light);
    await q.click(sel("preset-6h"));
    await q.click(sel("load"));
    await poll(() => q.locator(sel("badge")).textContent()).toBe("Partial");
    await search(q, "marker:inside");
    await poll(() => shown(q)).toBe(1);
    await q.locator(sel("row")).first().click();
    await q.locator(sel("source-context")).waitFor({ state: "visible" });
    await search(q, "");
    await q.screenshot({ path: join(SHOTS, "studio-detail-light.png") });
    // a 7-day view, whose axis labels ("11-24 08:00") must not run together.
    await q.click(sel("preset-7d"));
    await q.click(sel("load"));
    await poll(() => q.locator(sel("badge")).textContent()).toBe("Partial");
    await q.screenshot({ path: join(SHOTS, "studio-7d-light.png") });
    await light.close();
  });

  it("§5.4 no API response carried the access key or the secret, and the page fetched nothing from the network", () => {
    const m = minio();
    expect(bodies.length).toBeGreaterThan(10);
    for (const b of bodies) {
      expect(b.text, b.url).not.toContain(m.secretAccessKey);
      expect(b.text, b.url).not.toContain(m.accessKeyId);
      expect(b.text, b.url).not.toContain(proxy.url);
    }
    expect(foreignRequests).toEqual([]);
  });
});
