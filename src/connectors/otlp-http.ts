/**
 * The OTLP/HTTP logs connector (docs/connectors.md): record lines the logger accepted
 * are queued, batched, mapped to OTLP/JSON (otlp-mapping.ts) and POSTed to
 * `<endpoint>/v1/logs`, one request at a time, each retried through the one retry
 * policy (store/retry-policy.ts) with errors classified once (store/classify-error.ts).
 *
 * Invariants:
 * - offered = delivered + failed + pending at every moment; a record refused at the door
 *   is only in `rejected` (oversized: larger than maxBatchBytes; queueFull: the queue —
 *   open + sealed + in flight — would pass maxQueueBytes). Accepted records are never evicted;
 * - nothing here touches the destination: a failure is latched in this connector's
 *   result only, and the logger's hot path pays one array push per record;
 * - flush()/close() wait at most min(timeoutMs, flushTimeoutMs); a flush that times out
 *   leaves sending running, close() aborts what is in flight (its records stay pending)
 *   and after close() nothing more is counted;
 * - a process whose event loop ran dry waits for a connector no longer than its
 *   flushTimeoutMs: the exit drain flushes within that bound, then gives up what is left
 *   (counted failed, code "ExitAbandoned"), so a dead receiver never holds the exit for
 *   the length of its retry backoffs;
 * - header values live in a private field and are scrubbed from every message.
 */
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import type { ResolvedOtlpHttpConnector } from "../config/connector-config.js";
import { LEVEL_VALUES } from "../record/levels.js";
import { idleTimer, sleep } from "../shared/abort.js";
import { armBeforeExit, disarmBeforeExit } from "../shared/before-exit.js";
import { attemptWithRetry, type RetryPolicyOptions } from "../store/retry-policy.js";
import type {
  Connector,
  ConnectorEventListener,
  ConnectorFailure,
  ConnectorResult,
} from "./connector.js";
import { notify } from "../shared/notify.js";
import { postJson, scrub, secretValues } from "./http-post.js";
import { encodeLogsRequest, parsePartialSuccess } from "./otlp-mapping.js";

/** An export request with no records: what doctor's probe sends (OTLP answers it 2xx). */
const EMPTY_REQUEST = JSON.stringify({ resourceLogs: [] });

/**
 * One POST of an empty logs request to the connector's URL with its headers, no retry:
 * doctor's probe that the receiver is there and takes the headers. Rejects as a send
 * attempt does (http-post.ts: status, transport, timeout), with every header value
 * scrubbed from the message.
 * @example await probeOtlpHttp(resolved, connectorHeaders(resolved, process.env), signal);
 */
export async function probeOtlpHttp(
  r: ResolvedOtlpHttpConnector,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<void> {
  const url = new URL(r.url);
  const agent = url.protocol === "https:" ? new HttpsAgent() : new HttpAgent();
  try {
    await postJson({
      url,
      headers,
      body: EMPTY_REQUEST,
      timeoutMs: r.requestTimeoutMs,
      signal,
      agent,
      secrets: secretValues(headers),
    });
  } finally {
    agent.destroy();
  }
}

/** The instrumentation scope every record is sent under. */
const SCOPE = { name: "stowage" };

interface Batch {
  lines: string[];
  bytes: number;
}

export interface OtlpHttpOptions extends ResolvedOtlpHttpConnector {
  /** service.name for records that carry no `service`. */
  service: string | undefined;
}

/**
 * @example
 * const c = new OtlpHttpConnector({ ...resolved, service: "api" }, { authorization: token });
 * c.offer(line);
 * const result = await c.close(5_000);
 */
export class OtlpHttpConnector implements Connector {
  readonly name: string;
  readonly minLevel: number;
  readonly #headers: Record<string, string>;
  readonly #secrets: string[];
  private readonly url: URL;
  private readonly policy: RetryPolicyOptions;
  private readonly agent: HttpAgent;
  /** Aborts sends in flight: replaced after the exit drain gives up, ended by close(). */
  private abort = new AbortController();
  private open: string[] = [];
  private openBytes = 0;
  private readonly sealed: Batch[] = [];
  /** Bytes of open, sealed and in-flight records (UTF-8, one separator each). */
  private queuedBytes = 0;
  private sending = false;
  private offered = 0;
  private delivered = 0;
  private failed = 0;
  private requests = 0;
  private retries = 0;
  private readonly rejected = { oversized: 0, queueFull: 0 };
  private failure: ConnectorFailure | null = null;
  private closed = false;
  private cancelSeal: (() => void) | null = null;
  private idleWaiters: (() => void)[] = [];
  private exitArmed = false;
  /** A script that ends without flush() still sends what it logged (shared/before-exit.ts). */
  private readonly exitDrain = async (): Promise<void> => {
    this.exitArmed = false;
    const { timedOut } = await this.flush(undefined);
    if (timedOut && !this.closed) this.abandon();
  };

  constructor(
    private readonly options: OtlpHttpOptions,
    /** Header name → value, read from the environment by the caller; kept only in #headers. */
    headers: Readonly<Record<string, string>>,
    /** The logger's `onEvent`: retries and give-ups as they happen. */
    private readonly onEvent?: ConnectorEventListener,
  ) {
    this.name = options.name;
    this.minLevel = LEVEL_VALUES[options.level];
    this.#headers = { ...headers };
    this.#secrets = secretValues(headers);
    this.url = new URL(options.url);
    this.policy = {
      maxAttempts: options.maxAttempts,
      initialBackoffMs: options.initialBackoffMs,
      maxBackoffMs: options.maxBackoffMs,
    };
    const agentOptions = { keepAlive: true, maxSockets: 1 };
    this.agent =
      this.url.protocol === "https:" ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  }

  private get pending(): number {
    return this.offered - this.delivered - this.failed;
  }

  offer(line: string): void {
    if (this.closed) return;
    const bytes = Buffer.byteLength(line) + 1;
    const { maxBatchBytes, maxBatchRecords, maxQueueBytes } = this.options;
    if (bytes > maxBatchBytes) {
      this.rejected.oversized++;
      return;
    }
    if (this.queuedBytes + bytes > maxQueueBytes) {
      this.rejected.queueFull++;
      return;
    }
    if (this.openBytes + bytes > maxBatchBytes) this.seal();
    this.open.push(line);
    this.openBytes += bytes;
    this.queuedBytes += bytes;
    this.offered++;
    if (this.open.length >= maxBatchRecords) this.seal();
    else if (this.open.length === 1)
      this.cancelSeal = idleTimer(this.options.flushIntervalMs, () => this.seal());
    if (!this.exitArmed) {
      this.exitArmed = true;
      armBeforeExit(this.exitDrain);
    }
  }

  /** The open batch joins the queue of sealed ones, and sending starts if idle. */
  private seal(): void {
    this.cancelSeal?.();
    this.cancelSeal = null;
    if (this.open.length > 0) {
      this.sealed.push({ lines: this.open, bytes: this.openBytes });
      this.open = [];
      this.openBytes = 0;
    }
    this.pump();
  }

  private pump(): void {
    if (this.sending) return;
    const batch = this.closed ? undefined : this.sealed.shift();
    if (batch === undefined) {
      this.drained();
      return;
    }
    this.sending = true;
    void this.send(batch).finally(() => {
      this.sending = false;
      this.queuedBytes -= batch.bytes;
      this.pump();
    });
  }

  /** Nothing sealed is left: flush waiters wake; with no open batch either, no exit drain is owed. */
  private drained(): void {
    if (this.open.length === 0) this.disarmExit();
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private async send(batch: Batch): Promise<void> {
    const { body, records, invalid } = encodeLogsRequest(batch.lines, this.options.service, SCOPE);
    if (invalid > 0) this.giveUp(invalid, "other", "InvalidRecord", `${invalid} line(s) not JSON`);
    if (records === 0) return;
    const outcome = await attemptWithRetry(
      () =>
        postJson({
          url: this.url,
          headers: this.#headers,
          body,
          timeoutMs: this.options.requestTimeoutMs,
          signal: this.abort.signal,
          agent: this.agent,
          secrets: this.#secrets,
        }),
      this.policy,
      {
        signal: this.abort.signal,
        onRetry: (error, attempt, delayMs) => {
          this.retries++;
          notify(this.onEvent, {
            type: "connector-retry",
            connector: this.name,
            attempt,
            delayMs,
            error: {
              category: error.category,
              code: error.code,
              message: scrub(error.message, this.#secrets),
            },
          });
        },
      },
    );
    if (this.closed) return; // after close() nothing more is counted: these stay pending
    if (!outcome.ok) {
      const { category, code, message } = outcome.error;
      return this.giveUp(records, category, code, message);
    }
    this.requests++;
    const refused = parsePartialSuccess(outcome.value.text);
    const lost = Math.min(records, refused.count);
    this.delivered += records - lost;
    if (lost > 0)
      this.giveUp(
        lost,
        "other",
        "PartialSuccess",
        refused.message || "the receiver refused records",
      );
  }

  private giveUp(
    records: number,
    category: ConnectorFailure["category"],
    code: string,
    message: string,
  ) {
    this.failed += records;
    const shown = scrub(message, this.#secrets);
    notify(this.onEvent, {
      type: "connector-failed",
      connector: this.name,
      records,
      error: { category, code, message: shown },
    });
    if (this.failure !== null) {
      this.failure.batches++;
      return;
    }
    this.failure = {
      category,
      code,
      message: shown,
      since: new Date().toISOString(),
      batches: 1,
    };
  }

  /**
   * The exit drain ran out of time: what is queued is counted failed and the send in
   * flight aborted (it is counted when its attempt returns); later records are sent anew.
   */
  private abandon(): void {
    this.cancelSeal?.();
    this.cancelSeal = null;
    const left = this.sealed.splice(0);
    if (this.open.length > 0) left.push({ lines: this.open, bytes: this.openBytes });
    this.open = [];
    this.openBytes = 0;
    for (const b of left) {
      this.queuedBytes -= b.bytes;
      this.giveUp(
        b.lines.length,
        "aborted",
        "ExitAbandoned",
        "the process was exiting and the receiver had not taken these records within flushTimeoutMs",
      );
    }
    this.abort.abort();
    this.abort = new AbortController();
  }

  private disarmExit(): void {
    if (!this.exitArmed) return;
    this.exitArmed = false;
    disarmBeforeExit(this.exitDrain);
  }

  /** Every sealed batch settled (records offered after a flush sealed are not waited for). */
  private idle(): boolean {
    return !this.sending && this.sealed.length === 0;
  }

  /** Resolves true when idle, false when `ms` passed first. */
  private async waitIdle(ms: number): Promise<boolean> {
    if (this.idle()) return true;
    const timer = new AbortController();
    const idle = new Promise<true>((resolve) => this.idleWaiters.push(() => resolve(true)));
    const late = sleep(ms, timer.signal).then(
      () => false as const,
      () => false as const,
    );
    const done = await Promise.race([idle, late]);
    timer.abort();
    return done;
  }

  async flush(timeoutMs: number | undefined): Promise<ConnectorResult> {
    if (this.closed) return this.result(false);
    this.seal();
    const bound = Math.min(timeoutMs ?? Infinity, this.options.flushTimeoutMs);
    const idle = await this.waitIdle(Math.max(0, bound));
    return this.result(!idle);
  }

  async close(timeoutMs: number | undefined): Promise<ConnectorResult> {
    if (this.closed) return this.result(false);
    const result = await this.flush(timeoutMs);
    this.closed = true;
    this.cancelSeal?.();
    this.abort.abort();
    this.agent.destroy();
    this.disarmExit();
    return result;
  }

  private result(timedOut: boolean): ConnectorResult {
    const pending = this.pending;
    return {
      kind: "otlp-http",
      ok: this.failure === null && pending === 0,
      delivered: this.delivered,
      pending,
      failed: this.failed,
      requests: this.requests,
      retries: this.retries,
      timedOut,
      rejected: { ...this.rejected },
      failure: this.failure === null ? null : { ...this.failure },
    };
  }
}
