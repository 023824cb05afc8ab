/**
 * `stowage/client`: a small browser batcher for the ingestion endpoint (issue
 * 14 §4). A bounded queue (new records are dropped and counted when full),
 * batches sent with `fetch` keepalive, retries with full-jitter backoff, and on
 * `pagehide` everything left goes out with `navigator.sendBeacon`. Browser APIs
 * only; no Node module is imported.
 */

/** Levels, least to most severe (the logger's names). */
const LEVELS = ["trace", "debug", "info", "success", "warning", "error", "critical"] as const;
export type ClientLevel = (typeof LEVELS)[number];

export interface ClientOptions {
  /** The ingestion endpoint (`createIngestHandler`). */
  url: string;
  /** The shared ingest token: a header with fetch, `?token=` with sendBeacon (which cannot set headers). */
  token?: string;
  /** Lowest level sent (default `info`). */
  level?: ClientLevel;
  /** Records kept while waiting to send (default 1,000); more are dropped and counted. */
  maxQueue?: number;
  /** Records per request (default 100). */
  maxBatch?: number;
  /** Bytes per request (default 60,000: browsers cap keepalive and beacon bodies at 64 KiB). */
  maxBatchBytes?: number;
  /** How often the queue is sent (default 5,000 ms). */
  flushIntervalMs?: number;
  /** Attempts per batch before it is dropped and counted (default 5). */
  maxAttempts?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Log uncaught errors and unhandled rejections (default false). */
  captureErrors?: boolean;
  /** Fields added to every record's `bindings` (page, release, …). */
  bindings?: Record<string, unknown>;
}

export interface ClientStats {
  queued: number;
  sent: number;
  /** Dropped: queue full, or a batch refused (4xx) or out of attempts. */
  dropped: number;
  beacons: number;
}

type Method = (message: string, data?: unknown) => void;
export type StowageClient = Record<ClientLevel | "warn", Method> & {
  /** Sends what is queued now; resolves when the server answered (or attempts ran out). */
  flush(): Promise<void>;
  stats(): ClientStats;
  /** Stops the timer and the page listeners (a final flush is left to the caller). */
  close(): void;
};

interface Entry {
  line: string;
}

/**
 * @example
 * import { createClient } from "stowage/client";
 * const log = createClient({ url: "/ingest", token: "browser-key-1", captureErrors: true });
 * log.info("checkout opened", { cart: 3 });
 */
export function createClient(options: ClientOptions): StowageClient {
  const o = {
    level: "info" as ClientLevel,
    maxQueue: 1000,
    maxBatch: 100,
    maxBatchBytes: 60_000,
    flushIntervalMs: 5000,
    maxAttempts: 5,
    initialBackoffMs: 1000,
    maxBackoffMs: 30_000,
    ...options,
  };
  if (typeof o.url !== "string" || o.url.length === 0)
    throw new Error("stowage/client: `url` (the ingestion endpoint) is required");
  const min = LEVELS.indexOf(o.level);
  const queue: Entry[] = [];
  const stats: ClientStats = { queued: 0, sent: 0, dropped: 0, beacons: 0 };
  let sending: Promise<void> | null = null;

  const push = (level: ClientLevel, message: string, data?: unknown) => {
    if (LEVELS.indexOf(level) < min) return;
    if (queue.length >= o.maxQueue) return void stats.dropped++;
    const rec: Record<string, unknown> = {
      timestamp: new Date().toISOString(),
      level,
      message: String(message),
    };
    if (data instanceof Error) rec.error = errorFields(data);
    else if (data !== undefined) rec.data = data;
    if (o.bindings) rec.bindings = o.bindings;
    let line: string;
    try {
      line = JSON.stringify(rec);
    } catch {
      line = JSON.stringify({ ...rec, data: "[Unserializable]" });
    }
    queue.push({ line });
    stats.queued = queue.length;
    if (queue.length >= o.maxBatch) void flush();
  };

  /** Takes the next batch off the queue: at most maxBatch records and maxBatchBytes. */
  const take = (): string | null => {
    let n = 0;
    let bytes = 0;
    while (n < queue.length && n < o.maxBatch) {
      const size = queue[n]!.line.length + 1;
      if (n > 0 && bytes + size > o.maxBatchBytes) break;
      bytes += size;
      n++;
    }
    if (n === 0) return null;
    const body =
      queue
        .splice(0, n)
        .map((e) => e.line)
        .join("\n") + "\n";
    stats.queued = queue.length;
    return body;
  };

  const post = async (body: string): Promise<void> => {
    for (let attempt = 1; attempt <= o.maxAttempts; attempt++) {
      try {
        const headers: Record<string, string> = { "content-type": "text/plain" };
        if (o.token) headers["x-stowage-token"] = o.token;
        const res = await fetch(o.url, { method: "POST", body, headers, keepalive: true });
        if (res.ok) return void (stats.sent += countLines(body));
        if (res.status < 500 && res.status !== 429) break; // refused: retrying cannot help
      } catch {
        // network error: retry
      }
      if (attempt < o.maxAttempts) {
        const ceiling = Math.min(o.maxBackoffMs, o.initialBackoffMs * 2 ** (attempt - 1));
        await new Promise((r) => setTimeout(r, Math.random() * ceiling));
      }
    }
    stats.dropped += countLines(body);
  };

  const flush = (): Promise<void> => {
    sending ??= (async () => {
      for (let body = take(); body !== null; body = take()) await post(body);
    })().finally(() => (sending = null));
    return sending;
  };

  /** The page is going away: everything left goes out by beacon (fetch keepalive if refused). */
  const beaconAll = () => {
    const url = o.token
      ? `${o.url}${o.url.includes("?") ? "&" : "?"}token=${encodeURIComponent(o.token)}`
      : o.url;
    for (let body = take(); body !== null; body = take()) {
      const ok =
        typeof navigator !== "undefined" &&
        navigator.sendBeacon?.(url, new Blob([body], { type: "text/plain" }));
      if (ok) {
        stats.beacons++;
        stats.sent += countLines(body);
      } else void post(body);
    }
  };
  const onHidden = () => {
    if (document.visibilityState === "hidden") beaconAll();
  };
  const onError = (e: ErrorEvent) =>
    push("error", e.message || "uncaught error", e.error instanceof Error ? e.error : undefined);
  const onRejection = (e: PromiseRejectionEvent) =>
    push(
      "error",
      "unhandled rejection",
      e.reason instanceof Error ? e.reason : { reason: String(e.reason) },
    );

  const timer = setInterval(() => void flush(), o.flushIntervalMs);
  const w = typeof window !== "undefined" ? window : undefined;
  w?.addEventListener("pagehide", beaconAll);
  w?.document?.addEventListener("visibilitychange", onHidden);
  if (o.captureErrors) {
    w?.addEventListener("error", onError);
    w?.addEventListener("unhandledrejection", onRejection);
  }

  const client = { flush, stats: () => ({ ...stats }) } as StowageClient;
  for (const level of LEVELS) client[level] = (m, d) => push(level, m, d);
  client.warn = client.warning;
  client.close = () => {
    clearInterval(timer);
    w?.removeEventListener("pagehide", beaconAll);
    w?.document?.removeEventListener("visibilitychange", onHidden);
    w?.removeEventListener("error", onError);
    w?.removeEventListener("unhandledrejection", onRejection);
  };
  return client;
}

function errorFields(e: Error): Record<string, unknown> {
  return { name: e.name, message: e.message, ...(e.stack ? { stack: e.stack } : {}) };
}

function countLines(body: string): number {
  let n = 0;
  for (let i = body.indexOf("\n"); i >= 0; i = body.indexOf("\n", i + 1)) n++;
  return n;
}
