/**
 * Issue 30 row 9, the ingestion side: every count in the answer and in
 * `handler.stats()` is what happened to the records — accepted (the logger took
 * them), filtered (below the logger's level), refused per reason (queue full, closed,
 * …) — and the bucket holds exactly the accepted ones. The logger writes to the real
 * MinIO; a fault proxy in front of it holds delivery back (503 on every PUT) so the
 * logger's queue fills for real.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, expect, it } from "vitest";
import { createLogger, type Logger } from "../../src/index.js";
import { createIngestHandler } from "../../src/ingest.js";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy.js";
import { bucketIdCounts, s3Config } from "../support/loggers.js";
import { minio, uniquePrefix } from "../support/minio.js";

const servers: Server[] = [];
const loggers: Logger[] = [];
const proxies: FaultProxy[] = [];
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  for (const l of loggers) await l.close({ timeoutMs: 5_000 });
  for (const p of proxies) await p.close();
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/ingest`;
}

const ndjson = (recs: unknown[]) => recs.map((r) => JSON.stringify(r)).join("\n") + "\n";
const post = (url: string, recs: unknown[]) => fetch(url, { method: "POST", body: ndjson(recs) });

/** Every record of a request is counted exactly once: accepted, filtered or rejected for one reason. */
function total(answer: {
  accepted: number;
  filtered: number;
  rejected: Record<string, number>;
}): number {
  const r = answer.rejected;
  return (
    answer.accepted +
    answer.filtered +
    r.malformed! +
    r.oversized! +
    r.tooMany! +
    r.tooManyFields! +
    r.skew! +
    r.refused!
  );
}

it("issue 30 row 9: records below the logger's level are answered `filtered`, not `accepted`", async () => {
  const prefix = uniquePrefix("ingest-filtered");
  const logger = createLogger({
    ...s3Config(prefix, { flushIntervalMs: 600_000 }),
    level: "warning",
  } as Parameters<typeof createLogger>[0]);
  loggers.push(logger);
  const handler = createIngestHandler(logger);
  const url = await serve(handler);

  // 100 below the level (info, debug), 100 at or above it (warn, error), interleaved.
  const recs = Array.from({ length: 200 }, (_, i) => ({
    message: `r${i}`,
    level: ["info", "warn", "debug", "error"][i % 4],
    data: { id: i },
  }));
  const res = await post(url, recs);
  expect(res.status).toBe(200);
  const answer = (await res.json()) as Parameters<typeof total>[0];
  expect(answer).toMatchObject({ accepted: 100, filtered: 100 });
  expect(total(answer)).toBe(200);
  expect(handler.stats()).toMatchObject({ accepted: 100, filtered: 100 });

  // Raising the level at runtime is seen by the next request.
  logger.level = "error";
  const again = (await (await post(url, recs.slice(0, 4))).json()) as Parameters<typeof total>[0];
  expect(again).toMatchObject({ accepted: 1, filtered: 3 });
  expect(handler.stats()).toMatchObject({ accepted: 101, filtered: 103 });

  const r = await logger.flush({ timeoutMs: 20_000 });
  expect(r.ok, JSON.stringify(r)).toBe(true);
  const ids = await bucketIdCounts(prefix);
  const expected = recs.filter((_, i) => i % 2 === 1).map((x) => x.data.id);
  expect([...ids.keys()].sort((a, b) => (a as number) - (b as number))).toEqual(expected);
  expect(ids.get(3)).toBe(2); // sent twice, accepted twice (two requests): stored twice
  for (const [id, n] of ids) if (id !== 3) expect(n).toBe(1);
});

it("issue 30 row 9: records the logger refuses are counted per reason, and capacity refusals are marked for retry", async () => {
  const prefix = uniquePrefix("ingest-refused");
  let held = true;
  const proxy = await startFaultProxy(minio().endpoint, (req) =>
    held && req.kind === "put" ? "slowdown" : undefined,
  );
  proxies.push(proxy);
  // A small queue that cannot drain while the proxy answers 503 to every PUT; delivery keeps
  // retrying (many quick attempts) instead of latching, so it drains once the proxy heals.
  const logger = createLogger(
    s3Config(
      prefix,
      {
        flushIntervalMs: 600_000,
        maxBatchRecords: 20,
        maxQueueBytes: 32 * 1024,
        maxRecordBytes: 8 * 1024,
        maxAttempts: 100,
        initialBackoffMs: 5,
        maxBackoffMs: 200,
      },
      { endpoint: proxy.endpoint },
    ) as Parameters<typeof createLogger>[0],
  );
  loggers.push(logger);
  const handler = createIngestHandler(logger);
  const url = await serve(handler);

  const recs = Array.from({ length: 200 }, (_, i) => ({
    message: `q${i}`,
    data: { id: i, pad: "p".repeat(300) },
  }));
  const res = await post(url, recs);
  expect(res.status).toBe(200);
  const answer = (await res.json()) as Parameters<typeof total>[0] & {
    refusedBy: Record<string, number>;
    retry: number[];
  };
  const accepted = answer.accepted;
  expect(accepted).toBeGreaterThan(0);
  expect(accepted).toBeLessThan(200);
  expect(answer.refusedBy).toEqual({
    queueFull: 200 - accepted,
    spoolFull: 0,
    oversized: 0,
    closed: 0,
    failed: 0,
  });
  expect(answer.rejected.refused).toBe(200 - accepted);
  expect(total(answer)).toBe(200);
  // The records to send again are named by their place in the body.
  expect(answer.retry).toEqual(Array.from({ length: 200 - accepted }, (_, i) => accepted + i));
  expect(res.headers.get("retry-after")).toMatch(/^\d+$/);

  // Nothing of a request accepted, all for capacity: 503 with Retry-After, so any HTTP
  // client retries (and resending the whole body cannot duplicate anything).
  const full = await post(url, recs.slice(accepted, accepted + 10));
  expect(full.status).toBe(503);
  expect(full.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(await full.json()).toMatchObject({
    accepted: 0,
    refusedBy: { queueFull: 10 },
    retry: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  });

  // The store heals; the refused records, sent again, are accepted; the bucket holds each once.
  held = false;
  const drained = await logger.flush({ timeoutMs: 30_000 });
  expect(drained.ok, JSON.stringify(drained)).toBe(true);
  // As a client would: send what the answer names again, after the queue drained, until
  // nothing is left (each round accepts at least a queue's worth, so this ends).
  let left = answer.retry.map((i) => recs[i]!);
  let refusedAgain = 0;
  for (let round = 0; left.length > 0 && round < 20; round++) {
    const a = (await (await post(url, left)).json()) as Parameters<typeof total>[0] & {
      retry: number[];
    };
    expect(a.accepted).toBeGreaterThan(0);
    expect(a.accepted + a.retry.length).toBe(left.length);
    refusedAgain += a.retry.length;
    left = a.retry.map((i) => left[i]!);
    const f = await logger.flush({ timeoutMs: 30_000 });
    expect(f.ok, JSON.stringify(f)).toBe(true);
  }
  expect(left).toEqual([]);
  expect(handler.stats()).toMatchObject({
    accepted: 200,
    filtered: 0,
    refusedBy: { queueFull: 200 - accepted + 10 + refusedAgain },
    rejected: { refused: 200 - accepted + 10 + refusedAgain },
  });
  const r = await logger.flush({ timeoutMs: 30_000 });
  expect(r.ok, JSON.stringify(r)).toBe(true);
  const ids = await bucketIdCounts(prefix);
  expect(ids.size).toBe(200);
  for (const n of ids.values()) expect(n).toBe(1);

  // A closed logger refuses everything, counted as `closed`, with nothing to retry.
  await logger.close({ timeoutMs: 5_000 });
  const closed = await post(url, recs.slice(0, 3));
  expect(closed.status).toBe(200);
  const c = (await closed.json()) as { refusedBy: Record<string, number>; retry?: number[] };
  expect(c).toMatchObject({ accepted: 0, refusedBy: { closed: 3, queueFull: 0 } });
  expect(c.retry ?? []).toEqual([]);
});
