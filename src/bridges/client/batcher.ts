/**
 * `stowage/client`: a small browser batcher for the ingestion endpoint (issue
 * 14 §4, issue 30 row 9). Owns the queue and when it is sent: batches by fetch
 * keepalive (send.ts reads each answer), and on `pagehide` or when the page is hidden
 * what is left goes out by `navigator.sendBeacon`. Browser APIs only; no Node module.
 *
 * Invariants:
 * - The queue is the one place unsent records wait: a record the server refused for
 *   capacity (or a 429, 5xx, network error) goes back to its front, in order, and is
 *   sent again after a full-jitter backoff (at least the server's Retry-After, at most
 *   `maxBackoffMs`: the one formula, store/backoff.ts); after `maxAttempts` sends it is
 *   dropped and counted.
 * - Every request body is at most `maxBatchBytes` UTF-8 bytes (≤ 64 KiB, the browsers'
 *   keepalive/beacon cap); a record that cannot fit alone is dropped when logged.
 * - `stats()` counts what the server answered, never what was merely sent.
 */
import {
  LEVELS,
  resolveClientOptions,
  type ClientLevel,
  type ClientOptions,
  type ClientStats,
} from "./options.js";
import { retryDelayMs } from "../../store/backoff.js";
import { send } from "./send.js";
import { utf8Bytes } from "./utf8.js";

export type { ClientLevel, ClientOptions, ClientStats } from "./options.js";

type Method = (message: string, data?: unknown) => void;
export type StowageClient = Record<ClientLevel | "warn", Method> & {
  /** Sends what is queued now; resolves when every record got an answer (or ran out of attempts). */
  flush(): Promise<void>;
  stats(): ClientStats;
  /** Stops the timer and the page listeners (a final flush is left to the caller). */
  close(): void;
};

interface Entry {
  line: string;
  /** UTF-8 bytes in a body, newline included. */
  bytes: number;
  /** Times sent. */
  sends: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * @example
 * import { createClient } from "stowage/client";
 * const log = createClient({ url: "/ingest", token: "browser-key-1", captureErrors: true });
 * log.info("checkout opened", { cart: 3 });
 */
export function createClient(options: ClientOptions): StowageClient {
  const o = resolveClientOptions(options);
  const min = LEVELS.indexOf(o.level);
  const queue: Entry[] = [];
  let queuedBytes = 0;
  const stats: ClientStats = {
    queued: 0,
    accepted: 0,
    filtered: 0,
    refused: 0,
    dropped: 0,
    unconfirmed: 0,
    retried: 0,
    beacons: 0,
  };
  let sending: Promise<void> | null = null;
  /** Flushes waiting: while > 0 the send loop empties the queue, not only full batches. */
  let draining = 0;

  const requeue = (entries: Entry[]) => {
    queue.unshift(...entries);
    for (const e of entries) queuedBytes += e.bytes;
    stats.queued = queue.length;
  };

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
    const bytes = utf8Bytes(line) + 1;
    if (bytes > o.maxBatchBytes) return void stats.dropped++; // no request could carry it
    queue.push({ line, bytes, sends: 0 });
    queuedBytes += bytes;
    stats.queued = queue.length;
    // A full batch leaves now: queued bytes never pile up past what one request (or the
    // page's last beacon) can carry; the rest waits for the interval.
    if (queue.length >= o.maxBatch || queuedBytes >= o.maxBatchBytes) void run();
  };

  /** Takes the next batch off the queue: at most maxBatch records and maxBatchBytes UTF-8 bytes. */
  const take = (): Entry[] => {
    let n = 0;
    let bytes = 0;
    while (n < queue.length && n < o.maxBatch && bytes + queue[n]!.bytes <= o.maxBatchBytes)
      bytes += queue[n++]!.bytes;
    queuedBytes -= bytes;
    const batch = queue.splice(0, n);
    stats.queued = queue.length;
    return batch;
  };

  /** One batch sent and answered; returns the backoff before the next, null when none is due. */
  const sendBatch = async (batch: Entry[], round: number): Promise<number | null> => {
    const r = await send(
      o.url,
      o.token,
      batch.map((e) => e.line),
    );
    stats.accepted += r.accepted;
    stats.filtered += r.filtered;
    stats.refused += r.refused;
    stats.unconfirmed += r.unconfirmed;
    if (r.again.length === 0) return null;
    const again: Entry[] = [];
    for (const i of r.again) {
      const e = batch[i]!;
      if (++e.sends >= o.maxAttempts) stats.dropped++;
      else again.push(e);
    }
    if (again.length === 0) return null;
    stats.retried += again.length;
    requeue(again);
    return retryDelayMs(o, round + 1, { kind: "retryable", retryAfterMs: r.waitMs });
  };

  /** Sends batches while a full one is queued, or until the queue is empty while a flush waits. */
  const run = (): Promise<void> =>
    (sending ??= (async () => {
      let round = 0; // consecutive batches that needed a retry: the backoff grows with it
      while (draining > 0 || queue.length >= o.maxBatch || queuedBytes >= o.maxBatchBytes) {
        const batch = take();
        if (batch.length === 0) break;
        const waitMs = await sendBatch(batch, round);
        round = waitMs === null ? 0 : round + 1;
        if (waitMs) await sleep(waitMs);
      }
    })().finally(() => (sending = null)));

  /** Everything queued now and until the queue is empty goes out (the interval and `flush()`). */
  const flush = async (): Promise<void> => {
    draining++;
    try {
      while (sending || queue.length > 0) await run();
    } finally {
      draining--;
    }
  };

  /**
   * The page is going away: what is queued goes out by beacon. The browser lets at most
   * 64 KiB of keepalive/beacon bodies be in flight; a beacon it refuses puts its records
   * back (they leave with the next send if the page lives on, e.g. it was only hidden).
   */
  const beaconAll = () => {
    const beacon =
      typeof navigator !== "undefined" ? navigator.sendBeacon?.bind(navigator) : undefined;
    if (!beacon) return void flush();
    const url = o.token
      ? `${o.url}${o.url.includes("?") ? "&" : "?"}token=${encodeURIComponent(o.token)}`
      : o.url;
    for (let batch = take(); batch.length > 0; batch = take()) {
      const body = batch.map((e) => e.line).join("\n") + "\n";
      if (!beacon(url, new Blob([body], { type: "text/plain" }))) return requeue(batch);
      stats.beacons++;
      stats.unconfirmed += batch.length;
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
