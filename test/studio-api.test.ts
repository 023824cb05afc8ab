/**
 * Studio's HTTP API against the real reader: the token, Host and Origin guards,
 * the 7-day range refusal, load/more over one session, the typed source-context
 * reasons (`../`, symlink out, non-source, missing), storage errors mapped to
 * actionable messages without secrets, and port ownership.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/index.js";
import { startStudio, type StudioHandle } from "../src/studio/index.js";
import type { LoadResponse, SourceContextResponse } from "../src/studio/api-types.js";
import { markerRecords, sampleWorkload, writeProject, LINES } from "./e2e/fixtures.js";
import { minio, uniquePrefix } from "./support/minio.js";
import { minioS3Destination } from "./support/minio-server.js";
import { startFaultProxy } from "./support/fault-proxy.js";

interface Reply {
  status: number;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Record<string, string | string[] | undefined>;
}

function call(
  studio: StudioHandle,
  path: string,
  o: {
    method?: string;
    token?: string | null;
    host?: string;
    origin?: string;
    headers?: Record<string, string>;
    body?: unknown;
    bodyType?: string;
  } = {},
): Promise<Reply> {
  const body =
    o.body === undefined ? undefined : typeof o.body === "string" ? o.body : JSON.stringify(o.body);
  const headers: Record<string, string> = {
    host: o.host ?? `127.0.0.1:${studio.port}`,
    ...(o.token === null ? {} : { authorization: `Bearer ${o.token ?? studio.token}` }),
    ...(o.origin ? { origin: o.origin } : {}),
    ...(body !== undefined ? { "content-type": o.bodyType ?? "application/json" } : {}),
    ...o.headers,
  };
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: studio.port,
        path,
        method: o.method ?? (body ? "POST" : "GET"),
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, text, json, headers: res.headers });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const HOUR = 3_600_000;
let root: string;
let projectDir: string;
let store: string;
let studio: StudioHandle;
let written = 0;
const now = Date.now();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "studio-api-"));
  ({ projectDir } = writeProject(root));
  store = join(root, "store");
  const logger = createLogger({
    console: false,
    level: "trace",
    destination: "local",
    local: { path: store },
  });
  const records = [
    ...sampleWorkload(now - 2 * HOUR, now - 60_000, 900, projectDir),
    ...markerRecords(now - 30 * 60_000, 100_000),
  ];
  for (const r of records) await logger.write(r as never);
  expect((await logger.close()).ok).toBe(true);
  written = records.length;
  mkdirSync(join(projectDir, "big"), { recursive: true });
  writeFileSync(join(projectDir, "big/huge.ts"), "// x\n".repeat(300_000));
  studio = await startStudio({
    source: { url: `file://${store}` },
    projectDir,
    port: 0,
    limits: { records: 400 },
  });
});

afterAll(async () => {
  await studio?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("Studio API guards (§5.4 security)", () => {
  it("§5.4 prints a URL on 127.0.0.1 with a 32-hex session token", () => {
    expect(studio.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32}$/);
    expect(studio.url).toContain(studio.token);
  });

  it("§5.4 a missing or wrong token is refused with 401 on every route", async () => {
    for (const [path, method] of [
      ["/api/info", "GET"],
      ["/api/load", "POST"],
      ["/api/more", "POST"],
      ["/api/source-context?caller=src/cache.ts:14", "GET"],
    ] as const) {
      const missing = await call(studio, path, {
        method,
        token: null,
        ...(method === "POST" ? { body: { from: now - HOUR, to: now } } : {}),
      });
      expect(missing.status, `${method} ${path}`).toBe(401);
      expect(missing.json.error.category).toBe("token");
      const wrong = await call(studio, path, {
        method,
        token: "0".repeat(32),
        ...(method === "POST" ? { body: {} } : {}),
      });
      expect(wrong.status, `${method} ${path}`).toBe(401);
    }
    const viaHeader = await call(studio, "/api/info", {
      token: null,
      headers: { "x-stowage-token": studio.token },
    });
    expect(viaHeader.status).toBe(200);
    expect((await call(studio, "/api/info")).status).toBe(200);
  });

  it("§5.4 a foreign Host header is refused (DNS rebinding), for the API and the page", async () => {
    for (const host of [
      `evil.example:${studio.port}`,
      `127.0.0.1.evil.example:${studio.port}`,
      "127.0.0.1:1",
    ]) {
      const api = await call(studio, "/api/info", { host });
      expect(api.status, host).toBe(403);
      expect(api.json.error.category).toBe("host");
      expect((await call(studio, "/", { host, token: null })).status, host).toBe(403);
    }
    expect((await call(studio, "/api/info", { host: `localhost:${studio.port}` })).status).toBe(
      200,
    );
  });

  it("§5.4 a foreign Origin on a state-changing call is refused; the page's own origin is accepted", async () => {
    const body = { from: now - HOUR, to: now };
    for (const origin of [
      "http://evil.example",
      `http://127.0.0.1:${studio.port + 1}`,
      "null",
      `https://127.0.0.1:${studio.port}`,
    ]) {
      const r = await call(studio, "/api/load", { body, origin });
      expect(r.status, origin).toBe(403);
      expect(r.json.error.category).toBe("origin");
    }
    const crossSite = await call(studio, "/api/load", {
      body,
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(crossSite.status).toBe(403);
    const plain = await call(studio, "/api/load", {
      body: JSON.stringify(body),
      bodyType: "text/plain",
      origin: `http://127.0.0.1:${studio.port}`,
    });
    expect(plain.status).toBe(415);
    const own = await call(studio, "/api/load", {
      body,
      origin: `http://127.0.0.1:${studio.port}`,
    });
    expect(own.status).toBe(200);
  });

  it("§5.2 a range over 7 days is refused with 400 and the reason", async () => {
    const r = await call(studio, "/api/load", { body: { from: now - 8 * 24 * HOUR, to: now } });
    expect(r.status).toBe(400);
    expect(r.json.error.category).toBe("range");
    expect(r.json.error.message).toMatch(/8\.0 days.*at most 7 days/);
    expect(r.json.error.hint).toMatch(/narrow/);
    const exactly7 = await call(studio, "/api/load", {
      body: { from: now - 7 * 24 * HOUR, to: now },
    });
    expect(exactly7.status).toBe(200);
    const empty = await call(studio, "/api/load", { body: { from: now, to: now - 1 } });
    expect(empty.status).toBe(400);
  });

  it("§5.4 /api/info describes the source and limits, never raw configuration", async () => {
    const r = await call(studio, "/api/info");
    expect(r.json).toMatchObject({
      app: "stowage-studio",
      source: `file://${store}`,
      project: { attached: true },
      limits: { records: 400, maxGrants: 5 },
    });
    expect(r.headers["cache-control"]).toBe("no-store");
    expect(r.headers["referrer-policy"]).toBe("no-referrer");
  });
});

describe("Studio API loads (§5.2, §5.3)", () => {
  it("§5.2 load then more resume exactly: every record once, partial until complete, grants counted", async () => {
    const first = await call(studio, "/api/load", { body: { from: now - 3 * HOUR, to: now } });
    expect(first.status).toBe(200);
    let res = first.json as LoadResponse;
    expect(res.partial).toBe(true);
    expect(res.stoppedBy).toBe("records");
    expect(res.lastGrant.records).toBe(400);
    const seqs: number[] = res.records.map((r) => (r.data as { seq: number }).seq);
    while (res.partial) {
      const next = await call(studio, "/api/more", { body: { loadId: res.loadId } });
      expect(next.status).toBe(200);
      res = next.json as LoadResponse;
      seqs.push(...res.records.map((r) => (r.data as { seq: number }).seq));
    }
    expect(res.complete).toBe(true);
    expect(res.stats.grantsUsed).toBe(Math.ceil(written / 400));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs.length).toBe(written);
    const done = await call(studio, "/api/more", { body: { loadId: res.loadId } });
    expect(done.status).toBe(409);
  });

  it("§5.4 auto-refresh re-reads the current hour as one more grant, only once complete, until the grants run out", async () => {
    const big = await startStudio({ source: { url: `file://${store}` }, port: 0 });
    try {
      const from = now - 3 * HOUR;
      const first = (await call(big, "/api/load", { body: { from, to: Date.now() } }))
        .json as LoadResponse;
      expect(first.complete).toBe(true);
      expect(first.stats.grantsUsed).toBe(1);
      let grants = 1;
      while (grants < 5) {
        const r = await call(big, "/api/refresh", { body: { loadId: first.loadId } });
        expect(r.status).toBe(200);
        const res = r.json as LoadResponse;
        grants++;
        expect(res.kind).toBe("refresh");
        expect(res.stats.grantsUsed).toBe(grants);
        expect(res.window!.from).toBe(
          Math.max(from, Math.floor((res.window!.to - 120_000) / HOUR) * HOUR),
        );
        const inWindow = first.records.filter((x) => {
          const t = Date.parse(x.timestamp);
          return t >= res.window!.from && t < res.window!.to;
        });
        expect(res.records.map((x) => x.message).sort()).toEqual(
          inWindow.map((x) => x.message).sort(),
        );
      }
      const out = await call(big, "/api/refresh", { body: { loadId: first.loadId } });
      expect(out.status).toBe(409);
      expect(out.json.error).toMatchObject({
        category: "allowance",
        message: "all 5 grants of this session are used",
      });
      const partial = (await call(studio, "/api/load", { body: { from, to: now } }))
        .json as LoadResponse;
      expect(partial.partial).toBe(true);
      const early = await call(studio, "/api/refresh", { body: { loadId: partial.loadId } });
      expect(early.status).toBe(409);
      expect(early.json.error.hint).toMatch(/Load more first/);
    } finally {
      await big.close();
    }
  });

  it("§5.3 a stale load id is refused so a page never mixes two sessions", async () => {
    const a = (await call(studio, "/api/load", { body: { from: now - HOUR, to: now } }))
      .json as LoadResponse;
    const b = (await call(studio, "/api/load", { body: { from: now - HOUR, to: now } }))
      .json as LoadResponse;
    expect(b.loadId).not.toBe(a.loadId);
    const stale = await call(studio, "/api/more", { body: { loadId: a.loadId } });
    expect(stale.status).toBe(409);
    expect(stale.json.error.category).toBe("stale");
  });
});

describe("Studio source context (§5.4)", () => {
  const ctx = async (q: string): Promise<SourceContextResponse> =>
    (await call(studio, `/api/source-context?${q}`)).json as SourceContextResponse;

  it("§5.4 an in-project caller returns ±12 lines around the line", async () => {
    const r = await ctx(`caller=${encodeURIComponent(`src/routes/orders.ts:${LINES.ordersBug}`)}`);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.file).toBe("src/routes/orders.ts");
    expect(r.line).toBe(LINES.ordersBug);
    expect(r.startLine).toBe(LINES.ordersBug - 12);
    expect(r.lines).toHaveLength(25);
    expect(r.lines[r.line - r.startLine]).toContain("STUDIO-E2E-BUG-LINE");
    expect(r.lines[0]).toBe(`  // orders.ts line ${LINES.ordersBug - 12}`);
  });

  it("§5.4 the stack's first project frame is used when there is no caller", async () => {
    const stack = `TypeError: x\n    at internal (node:internal/a:1:1)\n    at dep (${projectDir}/node_modules/dep/index.js:3:1)\n    at loadOrder (${projectDir}/src/routes/orders.ts:${LINES.ordersBug}:31)`;
    const r = await ctx(`stack=${encodeURIComponent(stack)}`);
    expect(r.ok && r.file === "src/routes/orders.ts" && r.line === LINES.ordersBug).toBe(true);
  });

  it("§5.4 typed reasons: ../ and a symlink out of the project, non-source, missing, too large, no caller", async () => {
    const cases: [string, string][] = [
      ["caller=../outside/secret.ts:2", "outside-project"],
      [`caller=${encodeURIComponent("src/../../outside/secret.ts:2")}`, "outside-project"],
      [`caller=${encodeURIComponent(join(root, "outside/secret.ts") + ":2")}`, "outside-project"],
      ["caller=src/linked.ts:2", "outside-project"],
      ["caller=.env:1", "not-source"],
      ["caller=src/nope.ts:3", "not-found"],
      ["caller=src/cache.ts:999", "not-found"],
      ["caller=big/huge.ts:1", "too-large"],
      ["caller=not-a-caller", "no-caller"],
      ["", "no-caller"],
    ];
    for (const [q, reason] of cases) {
      const r = await call(studio, `/api/source-context?${q}`);
      expect(r.status, q).toBe(200);
      expect(r.json, q).toMatchObject({ ok: false, reason });
      expect(r.text).not.toContain("OUTSIDE-SECRET-CONTENT");
      expect(r.text).not.toContain("do-not-show");
    }
  });

  it("never serves a stowage config file or a credential value, whatever the mode", async () => {
    writeFileSync(
      join(projectDir, "stowage.config.ts"),
      'export default {\n  s3: {\n    bucket: "b",\n    credentials: {\n      accessKeyId: "AKIAIOSFODNN7EXAMPLE",\n      secretAccessKey: "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY",\n    },\n  },\n};\n',
    );
    writeFileSync(
      join(projectDir, "src/settings.ts"),
      'export const db = {\n  password: "hunter2-do-not-leak",\n  "api_key": \'k-123456789-leak\',\n  host: "db.internal",\n};\nconst auth = `Bearer abcdefghijklmnopqrstuvwxyz0123`;\n',
    );
    const conf = await call(studio, "/api/source-context?caller=stowage.config.ts:5");
    expect(conf.json).toMatchObject({ ok: false, reason: "sensitive" });
    expect(conf.text).not.toMatch(/AKIAIOSFODNN7EXAMPLE|wJalrXUtnFEMI/);
    const r = await call(studio, "/api/source-context?caller=src/settings.ts:2");
    expect(r.json).toMatchObject({ ok: true, file: "src/settings.ts" });
    expect(r.text).not.toMatch(/hunter2|k-123456789|abcdefghijklmnopqrstuvwxyz0123/);
    expect(r.json.lines).toContain('  password: "[REDACTED]",');
    expect(r.json.lines).toContain('  host: "db.internal",');
  });

  it("§5.4 without a project every request answers no-project", async () => {
    const bare = await startStudio({ source: { url: `file://${store}` }, port: 0 });
    try {
      const r = await call(bare, `/api/source-context?caller=src/cache.ts:14`);
      expect(r.json).toMatchObject({ ok: false, reason: "no-project" });
    } finally {
      await bare.close();
    }
  });
});

describe("an oversized body", () => {
  it("§4 a 413 answer closes the keep-alive connection (the client reads the answer, then the end, no reset)", async () => {
    const body = "x".repeat(200_000);
    const head =
      `POST /api/load HTTP/1.1\r\nHost: 127.0.0.1:${studio.port}\r\nAuthorization: Bearer ${studio.token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n`;
    const socket = connect(studio.port, "127.0.0.1");
    let text = "";
    let error: Error | undefined;
    socket.on("data", (d: Buffer) => (text += d.toString("latin1")));
    socket.on("error", (e) => (error = e));
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.write(head + body);
    await closed;
    expect(error).toBeUndefined();
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text.toLowerCase()).toContain("connection: close");
    expect(text).toContain("the request body is too large");
  });
});

describe("cancellation", () => {
  it("§3 a load whose request closes stops at once (its stalled GET is abandoned) and the next load is not refused as busy", async () => {
    const m = minio();
    const prefix = uniquePrefix("studio-cancel");
    const proxy = await startFaultProxy(m.endpoint);
    const logger = createLogger({
      console: false,
      destination: "s3",
      s3: minioS3Destination(m, prefix),
    });
    for (let i = 0; i < 50; i++) logger.info(`cancel me ${i}`);
    expect((await logger.close()).ok).toBe(true);
    const s = await startStudio({
      source: {
        url: `s3://${m.bucket}/${prefix}`,
        options: {
          endpoint: proxy.endpoint,
          region: m.region,
          forcePathStyle: true,
          credentials: { accessKeyId: m.accessKeyId, secretAccessKey: m.secretAccessKey },
          retryBackoffMs: 1,
        },
      },
      port: 0,
    });
    try {
      proxy.setRule((r) => (r.kind === "get" ? "stall" : undefined));
      const body = JSON.stringify({ from: Date.now() - HOUR, to: Date.now() + 60_000 });
      const req = request({
        host: "127.0.0.1",
        port: s.port,
        path: "/api/load",
        method: "POST",
        headers: {
          host: `127.0.0.1:${s.port}`,
          authorization: `Bearer ${s.token}`,
          "content-type": "application/json",
        },
      });
      req.on("error", () => undefined);
      req.end(body);
      while ((proxy.counts.get ?? 0) === 0) await new Promise((r) => setTimeout(r, 20));
      req.destroy(); // the tab closes
      proxy.setRule(undefined);
      // The stalled GET would hold the grant for its 10 s timeout and its retries; aborted, it ends
      // as soon as the server sees the close. At most a few busy answers while that propagates.
      let again = await call(s, "/api/load", { body: JSON.parse(body) });
      for (let i = 0; again.status === 409 && i < 20; i++) {
        await new Promise((r) => setTimeout(r, 100));
        again = await call(s, "/api/load", { body: JSON.parse(body) });
      }
      expect(again.status).toBe(200);
      expect(again.json.records.length).toBe(50);
      expect(proxy.counts.get).toBeGreaterThan(1);
    } finally {
      await s.close();
      await proxy.close();
    }
  });
});

describe("Studio storage errors and ports", () => {
  it("§5.4 wrong credentials and a missing bucket become specific messages naming `stowage doctor`, without the keys", async () => {
    const m = minio();
    const secret = "WrongSecret" + "x".repeat(29);
    const cases = [
      {
        url: `s3://${m.bucket}/${uniquePrefix("studio-auth")}`,
        creds: { accessKeyId: m.accessKeyId, secretAccessKey: secret },
        category: "auth",
      },
      {
        url: `s3://no-such-bucket-${Date.now()}/x`,
        creds: { accessKeyId: m.accessKeyId, secretAccessKey: m.secretAccessKey },
        category: "bucket-not-found",
      },
    ];
    for (const c of cases) {
      const s = await startStudio({
        source: {
          url: c.url,
          options: {
            endpoint: m.endpoint,
            region: m.region,
            forcePathStyle: true,
            credentials: c.creds,
            retryBackoffMs: 1,
          },
        },
        port: 0,
      });
      try {
        const r = await call(s, "/api/load", { body: { from: now - HOUR, to: now } });
        expect(r.status, c.category).toBe(502);
        expect(r.json.error.category).toBe(c.category);
        expect(r.json.error.hint).toContain("stowage doctor");
        for (const v of [c.creds.secretAccessKey, c.creds.accessKeyId])
          expect(r.text).not.toContain(v);
        const info = await call(s, "/api/info");
        expect(info.json.source).toBe(c.url);
        for (const v of [c.creds.secretAccessKey, c.creds.accessKeyId, m.endpoint])
          expect(info.text).not.toContain(v);
      } finally {
        await s.close();
      }
    }
  });

  it("§5.4 a port held by a Studio for the same source says so; held by anything else is refused", async () => {
    await expect(
      startStudio({ source: { url: `file://${store}` }, port: studio.port }),
    ).rejects.toThrow(/a Studio for file:\/\/.* is already running at http:\/\/127\.0\.0\.1/);
    const other = mkdtempSync(join(tmpdir(), "studio-other-"));
    try {
      await expect(
        startStudio({ source: { url: `file://${other}` }, port: studio.port }),
      ).rejects.toThrow(/already in use by a Studio for another source/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("§5.4 serves the page with a strict CSP and no traversal out of the assets", async () => {
    const assets = join(root, "assets");
    mkdirSync(join(assets, "assets"), { recursive: true });
    writeFileSync(join(assets, "index.html"), "<!doctype html><title>t</title>");
    writeFileSync(join(assets, "assets/app.js"), "console.log(1)");
    const s = await startStudio({ source: { url: `file://${store}` }, port: 0, assetsDir: assets });
    try {
      const page = await call(s, "/", { token: null });
      expect(page.status).toBe(200);
      expect(String(page.headers["content-security-policy"])).toContain("default-src 'self'");
      expect((await call(s, "/assets/app.js", { token: null })).headers["content-type"]).toMatch(
        /javascript/,
      );
      for (const p of [
        "/assets/../../store",
        "/assets/%2e%2e/%2e%2e/package.json",
        "/package.json",
        "/assets/%E0%A4%A",
      ]) {
        expect((await call(s, p, { token: null })).status, p).toBe(404);
      }
    } finally {
      await s.close();
    }
  });
});
