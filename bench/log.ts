/**
 * Write-path benchmarks (issue: log write path), each a ratio against a reference
 * measured in this same run:
 * 1. hot path: ns per accepted `logger.info(message, {six fields})` vs pino to /dev/null,
 *    with default redaction on and off;
 * 2. end to end: records/s delivered to a real MinIO at default delivery settings
 *    vs plain zlib.gzipSync of the same NDJSON bytes (the CPU bound here);
 * 3. cost: PUT requests per 1,000,000 records, compression ratio, peak RSS.
 * Usage: node --import jiti/register bench/log.ts [--records N]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import pino from "pino";
import { createLogger } from "../src/index.js";
import { S3Store } from "../src/store/s3-store.js";
import { startMinio } from "../test/support/minio-server.js";
import { startFaultProxy } from "../test/support/fault-proxy.js";
import { positiveArg, requestFields } from "./_shared.js";

const E2E_RECORDS = positiveArg("records", 300_000);
const HOT_CALLS = 200_000;

const fields = requestFields;

function nsPerCall(fn: (i: number) => void, calls: number): number {
  const t = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) fn(i);
  return Number(process.hrtime.bigint() - t) / calls;
}

async function hotPath(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "stowage-bench-"));
  const make = (disableDefaults: boolean) =>
    createLogger({
      console: false,
      destination: "local",
      local: { path: dir, delivery: { maxQueueBytes: "512MiB" } },
      redact: { disableDefaults },
    });
  const p = pino(pino.destination({ dest: "/dev/null", sync: false }));
  const results: Record<string, number> = {};
  for (const [name, run] of [
    ["pino", async () => nsPerCall((i) => p.info(fields(i), "request completed"), HOT_CALLS)],
    [
      "stowage (default redaction)",
      async () => {
        const log = make(false);
        const ns = nsPerCall((i) => log.info("request completed", fields(i)), HOT_CALLS);
        await log.close();
        return ns;
      },
    ],
    [
      "stowage (redaction off)",
      async () => {
        const log = make(true);
        const ns = nsPerCall((i) => log.info("request completed", fields(i)), HOT_CALLS);
        await log.close();
        return ns;
      },
    ],
  ] as const) {
    await run(); // warm-up round
    const samples: number[] = [];
    for (let k = 0; k < 3; k++) samples.push(await run());
    results[name] = Math.min(...samples);
  }
  rmSync(dir, { recursive: true, force: true });
  const base = results.pino!;
  console.log(
    `\n-- hot path: ${HOT_CALLS.toLocaleString()} calls of info(message, {6 fields}), best of 3`,
  );
  for (const [name, ns] of Object.entries(results))
    console.log(
      `${name.padEnd(30)} ${ns.toFixed(0).padStart(6)} ns/call   ${(ns / base).toFixed(2)}× pino`,
    );
}

async function endToEnd(): Promise<void> {
  const server = await startMinio();
  const proxy = await startFaultProxy(server.endpoint); // forwards everything; counts PUTs
  const prefix = `bench/${Date.now()}`;
  const log = createLogger({
    console: false,
    destination: "s3",
    s3: {
      bucket: server.bucket,
      prefix,
      region: server.region,
      endpoint: proxy.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    },
  });
  globalThis.gc?.();
  const baselineRss = process.memoryUsage().rss;
  let peakRss = baselineRss;
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  const t0 = process.hrtime.bigint();
  let retriesOnFull = 0;
  for (let i = 0; i < E2E_RECORDS; i++) {
    const rec = { level: "info" as const, message: "request completed", data: fields(i) };
    for (;;) {
      try {
        await log.write(rec);
        break;
      } catch {
        retriesOnFull++; // queue full: delivery is the bottleneck; wait for it
        await new Promise((r) => setTimeout(r, 2));
      }
    }
  }
  const res = await log.close({ timeoutMs: 300_000 });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  clearInterval(rssTimer);
  const d = Object.values(res.destinations)[0]!;

  // Compression ratio from the bucket: stored bytes vs decoded-bytes metadata.
  const store = new S3Store({
    bucket: server.bucket,
    region: server.region,
    endpoint: server.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    maxAttempts: 3,
  });
  let stored = 0;
  let decoded = 0;
  let token: string | undefined;
  const sampleKeys: string[] = [];
  do {
    const page = await store.list({
      prefix: `${prefix}/`,
      ...(token ? { continuationToken: token } : {}),
    });
    for (const e of page.entries) {
      stored += e.size;
      sampleKeys.push(e.key);
    }
    token = page.nextContinuationToken;
  } while (token);
  for (const k of sampleKeys) decoded += Number((await store.head(k)).metadata["decoded-bytes"]);
  store.close();

  // Reference: gzipSync of the same NDJSON bytes, in 1 MiB batches (what a perfect uploader would still pay).
  const lines: string[] = [];
  for (let i = 0; i < E2E_RECORDS; i++) {
    lines.push(
      JSON.stringify({
        timestamp: new Date().toISOString(),
        level: "info",
        message: "request completed",
        data: fields(i),
      }),
    );
  }
  const t1 = process.hrtime.bigint();
  let chunk: string[] = [];
  let bytes = 0;
  for (const l of lines) {
    chunk.push(l);
    bytes += l.length + 1;
    if (bytes >= 1 << 20) {
      gzipSync(chunk.join("\n") + "\n", { level: 6 });
      chunk = [];
      bytes = 0;
    }
  }
  if (chunk.length) gzipSync(chunk.join("\n") + "\n", { level: 6 });
  const zlibSeconds = Number(process.hrtime.bigint() - t1) / 1e9;

  const rate = d.delivered / seconds;
  const zrate = E2E_RECORDS / zlibSeconds;
  console.log(
    `\n-- end to end: ${E2E_RECORDS.toLocaleString()} records through write() to MinIO, default delivery settings`,
  );
  console.log(
    `delivered ${d.delivered.toLocaleString()} in ${d.objects} objects, ok=${res.ok}, waits on a full queue: ${retriesOnFull}`,
  );
  console.log(
    `stowage → MinIO           ${Math.round(rate).toLocaleString().padStart(10)} records/s`,
  );
  console.log(
    `zlib.gzipSync (reference) ${Math.round(zrate).toLocaleString().padStart(10)} records/s   stowage = ${(rate / zrate).toFixed(2)}× zlib`,
  );
  console.log(`\n-- cost at defaults`);
  console.log(
    `PUT requests per 1,000,000 records: ${Math.round(((proxy.counts.put ?? 0) / d.delivered) * 1e6).toLocaleString()} (${proxy.counts.put ?? 0} PUTs)`,
  );
  console.log(
    `compression ratio: ${(decoded / stored).toFixed(2)} (${(decoded / 1e6).toFixed(1)} MB decoded → ${(stored / 1e6).toFixed(1)} MB stored)`,
  );
  console.log(
    `peak RSS while sustaining the load: ${(peakRss / 1024 / 1024).toFixed(0)} MiB (process before the load: ${(baselineRss / 1024 / 1024).toFixed(0)} MiB, incl. the TypeScript loader; growth ${((peakRss - baselineRss) / 1024 / 1024).toFixed(0)} MiB)`,
  );
  await proxy.close();
  await server.stop();
}

// End to end first, so its peak RSS is not inflated by the hot-path loops' garbage.
const only = process.argv.includes("--only")
  ? process.argv[process.argv.indexOf("--only") + 1]
  : undefined;
if (!only || only === "e2e") await endToEnd();
if (!only || only === "hot") await hotPath();
