/**
 * a process that ends never drops pending work.
 * Real child processes importing the built package end the way applications end
 * (`.then`, top-level await, CommonJS, a SIGTERM handler that flushes), on both
 * buffers, while the first PUTs answer 503 through the fault proxy: the retry
 * wait keeps the process alive, the record is delivered and counted, and the
 * process still exits on its own afterwards.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFaultProxy, type FaultProxy } from "./support/fault-proxy.js";
import { bucketIdCounts } from "./support/loggers.js";
import { minio, uniquePrefix } from "./support/minio.js";

const DIST = join(import.meta.dirname, "..", "dist", "index.js");
/** PUTs under a prefix that fail with 503 SlowDown before one is let through. */
const FAILED_PUTS = 2;

let proxy: FaultProxy;
const putsSeen = new Map<string, number>();
beforeAll(async () => {
  proxy = await startFaultProxy(minio().endpoint, (req) => {
    if (req.kind !== "put") return undefined;
    const prefix = /\/(t\/life-[0-9a-f]+)\//.exec(req.path)?.[1];
    if (!prefix) return undefined;
    const n = (putsSeen.get(prefix) ?? 0) + 1;
    putsSeen.set(prefix, n);
    return n <= FAILED_PUTS ? "slowdown" : undefined;
  });
});
afterAll(() => proxy.close());

type Buffer = "memory" | "sqlite";

function config(prefix: string, buffer: Buffer, dir: string): string {
  const m = minio();
  return JSON.stringify({
    console: false,
    destination: "s3",
    s3: {
      bucket: m.bucket,
      prefix,
      region: m.region,
      endpoint: proxy.endpoint,
      forcePathStyle: true,
      access_key_env: "K",
      secret_key_env: "S",
      // Waits of up to 1–2 s between attempts: long enough that an unref'd wait would end the process.
      delivery: {
        buffer,
        spoolPath: join(dir, "spool.db"),
        initialBackoffMs: 500,
        maxBackoffMs: 2_000,
        maxAttempts: 6,
      },
    },
  });
}

/** The body of each app style; `CFG` is the logger config, `ID` the record id. */
const APPS: Record<string, { ext: string; code: string; signal?: boolean }> = {
  "ESM, close().then(print)": {
    ext: "mjs",
    code: `import { createLogger } from DIST;
const log = createLogger(CFG);
log.info("one record", { id: ID });
log.close().then((r) => console.log(JSON.stringify(r)));`,
  },
  "ESM, top-level await flush() and no close": {
    ext: "mjs",
    code: `import { createLogger } from DIST;
const log = createLogger(CFG);
log.info("one record", { id: ID });
const r = await log.flush();
console.log(JSON.stringify(r));`,
  },
  "CommonJS, close().then(print)": {
    ext: "cjs",
    code: `import(DIST).then(({ createLogger }) => {
  const log = createLogger(CFG);
  log.info("one record", { id: ID });
  log.close().then((r) => console.log(JSON.stringify(r)));
});`,
  },
  "SIGTERM handler that flushes": {
    ext: "mjs",
    signal: true,
    code: `import { createLogger } from DIST;
const log = createLogger(CFG);
const keepAlive = setInterval(() => {}, 1000);
process.once("SIGTERM", async () => {
  clearInterval(keepAlive);
  log.info("one record", { id: ID });
  const r = await log.flush();
  console.log(JSON.stringify(r));
});
console.log("READY");`,
  },
};

function runApp(style: string, buffer: Buffer, prefix: string, id: string) {
  const app = APPS[style]!;
  const dir = mkdtempSync(join(tmpdir(), "stowage-life-"));
  const file = join(dir, `main.${app.ext}`);
  const values: Record<string, string> = {
    DIST: JSON.stringify(app.ext === "cjs" ? `file://${DIST}` : DIST),
    CFG: config(prefix, buffer, dir),
    ID: JSON.stringify(id),
  };
  // One pass: a substituted value (a temp dir such as `stowage-life-oVIDn6`) is never searched again.
  const code = app.code.replace(/\b(DIST|CFG|ID)\b/g, (name) => values[name]!);
  writeFileSync(file, code);
  return runFile(file, app.signal);
}

/** Runs one script as a real child process with the bucket's keys in K and S; its output and how it ended. */
function runFile(file: string, signalWhenReady = false) {
  const m = minio();
  const child = spawn(process.execPath, [file], {
    cwd: dirname(file),
    env: {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      K: m.accessKeyId,
      S: m.secretAccessKey,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d;
    if (signalWhenReady && out.includes("READY\n") && !child.killed) child.kill("SIGTERM");
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise<{ code: number | null; signal: string | null; out: string; err: string }>(
    (resolve) =>
      child.on("close", (code, signal) => {
        clearTimeout(killer);
        resolve({ code, signal, out, err });
      }),
  );
}

describe("pending delivery keeps the process alive; an idle logger does not", () => {
  const cases = (["memory", "sqlite"] as const).flatMap((b) =>
    Object.keys(APPS).map((style) => [b, style] as const),
  );
  it.each(cases)(
    "%s buffer, %s: exits 0 after delivering the record once",
    async (buffer, style) => {
      const prefix = uniquePrefix("life");
      const id = `${buffer}-${style}`;
      const res = await runApp(style, buffer, prefix, id);
      expect(res.signal, res.err).toBeNull(); // not killed by the 60 s guard: it ended by itself
      expect(res.code, res.err).toBe(0);
      const json = res.out.replace("READY\n", "").trim();
      expect(json, `nothing printed; stderr: ${res.err}`).not.toBe("");
      const result = JSON.parse(json) as {
        ok: boolean;
        destinations: { sink: { delivered: number; pending: number; retries: number } };
      };
      expect(result.ok).toBe(true);
      expect(result.destinations.sink).toMatchObject({ delivered: 1, pending: 0 });
      expect(result.destinations.sink.retries).toBeGreaterThanOrEqual(FAILED_PUTS);
      expect(putsSeen.get(prefix)).toBe(FAILED_PUTS + 1); // the faults really happened
      expect([...(await bucketIdCounts(prefix)).entries()]).toEqual([[id, 1]]);
    },
    90_000,
  );

  it.each(["memory", "sqlite"] as const)(
    "%s buffer: a process that makes a logger, logs nothing and never closes it exits on its own",
    async (buffer) => {
      const dir = mkdtempSync(join(tmpdir(), "stowage-life-"));
      const file = join(dir, "idle.mjs");
      writeFileSync(
        file,
        `import { createLogger } from ${JSON.stringify(DIST)};
createLogger(${config(uniquePrefix("life"), buffer, dir)});
console.log("made");`,
      );
      const res = await runFile(file);
      expect(res.signal, `killed by the 60 s guard; stderr: ${res.err}`).toBeNull();
      expect(res.code, res.err).toBe(0);
      expect(res.out).toBe("made\n");
    },
    90_000,
  );
});

describe("§3 an adapter's request record, deferred to the end of its turn, survives the process's end", () => {
  it("sqlite buffer: an app that answers one request and ends without flush or close leaves the record in the spool; the next process delivers it once", async () => {
    const prefix = uniquePrefix("life");
    const id = `hono-${Date.now()}`;
    const dir = mkdtempSync(join(tmpdir(), "stowage-life-"));
    const cfg = config(prefix, "sqlite", dir);
    // Hono's ESM build, the one dist/hono.js's own imports of "hono/…" resolve to.
    const hono = join(import.meta.dirname, "..", "node_modules", "hono", "dist", "index.js");
    const honoAdapter = join(import.meta.dirname, "..", "dist", "hono.js");
    // First process: the request's record waits for the end of the turn, then the process
    // has nothing ref'd left and ends (the open batch's interval timer is idle work).
    writeFileSync(
      join(dir, "serve.mjs"),
      `import { createLogger } from ${JSON.stringify(DIST)};
import { Hono } from ${JSON.stringify(pathToFileURL(hono).href)};
import { stowageHono } from ${JSON.stringify(honoAdapter)};
const log = createLogger(${cfg});
const app = new Hono();
app.use(stowageHono(log));
app.get("/orders/:id", (c) => c.text("ok"));
const res = await app.request("/orders/" + ${JSON.stringify(id)});
console.log(res.status);`,
    );
    // Second process: the same spool, flushed at once.
    writeFileSync(
      join(dir, "flush.mjs"),
      `import { createLogger } from ${JSON.stringify(DIST)};
const log = createLogger(${cfg});
console.log(JSON.stringify(await log.close()));`,
    );
    const first = await runFile(join(dir, "serve.mjs"));
    expect(first.signal, first.err).toBeNull();
    expect(first.code, first.err).toBe(0);
    expect(first.out).toBe("200\n");
    expect(putsSeen.get(prefix) ?? 0).toBe(0); // nothing was uploaded by the first process
    const second = await runFile(join(dir, "flush.mjs"));
    expect(second.code, second.err).toBe(0);
    const result = JSON.parse(second.out.trim()) as {
      ok: boolean;
      destinations: { sink: { delivered: number } };
    };
    expect(result.ok).toBe(true);
    expect(result.destinations.sink.delivered).toBe(1);
    const counts = await bucketIdCounts(prefix, "path");
    expect([...counts.entries()]).toEqual([[`/orders/${id}`, 1]]);
  }, 90_000);
});
