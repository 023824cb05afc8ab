/**
 * The request record shared by the Express, Fastify and Hono adapters: request
 * id (taken from or added to a header), client ip (forwarded only when the proxy
 * is trusted), exactly one record per request at a level chosen by status, and the
 * abort rule (a request the client abandons is recorded `aborted: true`, with the
 * status only if one was sent). Headers and query go into `data`, so the logger's
 * §3.3 redaction (authorization, cookie, token, …) applies to them like to any record.
 *
 * Per-request cost is kept to what the record needs: one state object, a child
 * logger created only when the handler asks for it (the record carries the same
 * bindings without one), no URL parsing unless the request has a query string, no
 * closures per request. The record is serialised at the end of the event-loop turn,
 * together with the turn's other requests, not before the response is sent.
 */
import { checkBridgeOptions } from "../shared/bridge-options.js";
import type { ServerResponse } from "node:http";
import type { Logger } from "../../logger/logger.js";
import {
  isCredentialHeaderName,
  isCredentialQueryParam,
  redactNamed,
} from "../../record/redact-names.js";

/** Options common to the three framework adapters. */
export interface RequestLogOptions {
  /** Header carrying the request id; taken from the request when present, else generated. Default `x-request-id`. */
  requestIdHeader?: string;
  /** Echo the request id on the response header (default true). */
  setResponseHeader?: boolean;
  /** Read the client ip from `X-Forwarded-For` (only behind a proxy you trust). Default false: the socket address. */
  trustProxy?: boolean;
  /** Log the request headers (redacted by the logger). Default false. */
  headers?: boolean;
  /** Log the parsed query string (redacted by the logger). Default true. */
  query?: boolean;
  /** Skip the record for these requests (e.g. health checks); they keep their child logger. */
  skip?: (path: string) => boolean;
}

/** Options after defaults. */
export interface ResolvedRequestLogOptions {
  requestIdHeader: string;
  setResponseHeader: boolean;
  trustProxy: boolean;
  headers: boolean;
  query: boolean;
  skip: ((path: string) => boolean) | undefined;
}

const REQUEST_LOG_OPTION_KEYS = [
  "requestIdHeader",
  "setResponseHeader",
  "trustProxy",
  "headers",
  "query",
  "skip",
];

/**
 * Checks (an unknown key is refused, naming the closest one) and resolves an adapter's options.
 * @example resolveRequestLogOptions({ trustProxy: true }).requestIdHeader // "x-request-id"
 */
export function resolveRequestLogOptions(
  o: RequestLogOptions = {},
  bridge = "stowage/http",
): ResolvedRequestLogOptions {
  checkBridgeOptions(bridge, o, REQUEST_LOG_OPTION_KEYS);
  return {
    requestIdHeader: (o.requestIdHeader ?? "x-request-id").toLowerCase(),
    setResponseHeader: o.setResponseHeader ?? true,
    trustProxy: o.trustProxy ?? false,
    headers: o.headers ?? false,
    query: o.query ?? true,
    skip: o.skip,
  };
}

/** Request ids longer than this, or with characters outside [\w.:-], are replaced (log injection). */
const MAX_ID_LENGTH = 128;
const ID_PATTERN = /^[\w.:-]+$/;

/** The incoming id when it is sane, else a fresh UUID. */
export function requestIdFrom(incoming: string | null | undefined): string {
  if (incoming && incoming.length <= MAX_ID_LENGTH && ID_PATTERN.test(incoming)) return incoming;
  return globalThis.crypto.randomUUID();
}

/** The first `X-Forwarded-For` entry when the proxy is trusted, else the socket address. */
export function clientIp(
  trustProxy: boolean,
  forwardedFor: string | null | undefined,
  socketAddress: string | undefined,
): string | undefined {
  if (trustProxy && forwardedFor) {
    const comma = forwardedFor.indexOf(",");
    const first = (comma < 0 ? forwardedFor : forwardedFor.slice(0, comma)).trim();
    if (first) return first;
  }
  return socketAddress;
}

/**
 * What an adapter keeps for one request between its start and its record: the
 * request id, the start time, a thrown error, and the request's child logger,
 * made when the handler first asks for it.
 */
export class RequestState {
  /** `performance.now()` when the adapter first saw the request. */
  readonly start = performance.now();
  /** The error a handler threw, once an error hook saw it. */
  error: unknown = undefined;
  hasError = false;
  private child: Logger | undefined = undefined;
  private written = false;

  constructor(
    private readonly base: Logger,
    readonly requestId: string,
  ) {}

  /** The request's child logger (bindings `{ requestId }`), created on first access. */
  get log(): Logger {
    return (this.child ??= this.base.child({ requestId: this.requestId }));
  }

  /** True once the request's record is written: `logRequest` writes one per request, never two. */
  get recorded(): boolean {
    return this.written;
  }

  /** Marks the record written; false when it already was (the one-record guard of `logRequest`). */
  claimRecord(): boolean {
    if (this.written) return false;
    this.written = true;
    return true;
  }

  fail(error: unknown): void {
    this.error = error;
    this.hasError = true;
  }

  /**
   * One record with this request's bindings: through its child logger when the handler
   * made one, else the same line without making it (most requests never read `req.log`).
   * It is written at the end of the event-loop turn (`Logger.logSoon`), after the
   * response is on the wire, with the time of this call; flush/close write it first.
   */
  record(
    level: "info" | "warning" | "error",
    message: string,
    data: Record<string, unknown>,
  ): void {
    if (this.child !== undefined) this.child.logSoon(undefined, level, message, data);
    else this.base.logSoon({ requestId: this.requestId }, level, message, data);
  }
}

/** What an adapter knows when a response has been sent, or the client went away first. */
export interface FinishedRequest {
  method: string;
  /** The route pattern (`/orders/:id`), or undefined when no route matched. */
  route: string | undefined;
  path: string;
  /** The status sent; undefined when the client went away before any was (see `nodeResponseEnd`). */
  status: number | undefined;
  /** True when the response never completed because the client went away (see `nodeResponseEnd`). */
  aborted?: boolean;
  userAgent: string | undefined;
  ip: string | undefined;
  query: Record<string, unknown> | undefined;
  headers: Record<string, unknown> | undefined;
}

/** How a request ended, for its record: the status sent (if any) and whether the client went away first. */
export interface RequestEnd {
  status: number | undefined;
  aborted: boolean;
}

/** The parts of a Node response (`http.ServerResponse`, also light-my-request's) the abort rule reads. */
export type NodeResponse = Pick<
  ServerResponse,
  "writableFinished" | "writableEnded" | "destroyed" | "headersSent" | "statusCode"
>;

/**
 * The abort rule (issue 30 row 10), the one place the three adapters learn how a request
 * ended on Node. Read it on the response's "finish" or "close" (or an adapter's hook for
 * them). A response that completed is a normal record with its status, even when the
 * client closes the socket afterwards. One that closed before completing — the client
 * aborted, its socket was destroyed — is `aborted: true`, with the status only when the
 * head went out (what the client may have seen); none when nothing was sent, even if the
 * handler answers later into the closed socket (Hono wrote those as 200).
 *
 * Completed: every byte handed to the socket (`writableFinished`), or `end()` called on a
 * response that is not destroyed — light-my-request's in-memory response (Fastify's
 * `inject`) has no socket to drain, so its `writableFinished` stays false after "finish".
 *
 * @example res.on("close", () => logRequest(state, { ...facts, ...nodeResponseEnd(res) }));
 */
export function nodeResponseEnd(res: NodeResponse): RequestEnd {
  if (res.writableFinished || (res.writableEnded && !res.destroyed))
    return { status: res.statusCode, aborted: false };
  return { status: res.headersSent ? res.statusCode : undefined, aborted: true };
}

/**
 * The same rule where there is no Node response (Hono on Bun, Deno, workers, `app.request`):
 * read when the handler has returned its `Response`, before the runtime sends it; a request
 * whose signal has aborted by then (the runtime saw the client go) gets nothing: aborted, no status.
 *
 * @example logRequest(state, { ...facts, ...fetchResponseEnd(c.req.raw.signal, c.res.status) });
 */
export function fetchResponseEnd(signal: AbortSignal | undefined, status: number): RequestEnd {
  return signal?.aborted === true
    ? { status: undefined, aborted: true }
    : { status, aborted: false };
}

/**
 * Writes the one record of a request through its child logger (never throws, never
 * flushes); a second call for the same request writes nothing, so an adapter may call
 * it from both its finish path and its close path. An aborted request is a warning
 * (the client left; an error only when the handler threw or a 5xx went out), with
 * `aborted: true` and no `status` when none was sent: `GET /slow aborted`.
 */
export function logRequest(state: RequestState, r: FinishedRequest): void {
  if (!state.claimRecord()) return;
  const durationMs = Math.round((performance.now() - state.start) * 1000) / 1000;
  const route = r.route ?? "(no route)";
  const status = r.status;
  const data: Record<string, unknown> = { method: r.method, route, path: r.path };
  if (status !== undefined) data.status = status;
  data.durationMs = durationMs;
  if (r.aborted === true) data.aborted = true;
  if (r.userAgent !== undefined) data.userAgent = r.userAgent;
  if (r.ip !== undefined) data.ip = r.ip;
  // Query keys (`key`, `code`, `t`, `sig`, …) and header names (`x-functions-key`, …) that are
  // credentials only here, not as data keys: redacted before the logger's key table (issue 31 §3).
  if (r.query !== undefined && hasKeys(r.query))
    data.query = redactNamed(r.query, isCredentialQueryParam);
  if (r.headers !== undefined) data.headers = redactNamed(r.headers, isCredentialHeaderName);
  let message = status === undefined ? `${r.method} ${route}` : `${r.method} ${route} ${status}`;
  if (r.aborted === true) message += " aborted";
  // pino order with `err`: the logger fills the record's `error` (stack included).
  if (state.hasError) {
    data.err = asError(state.error);
    state.log.error(data, message);
  } else state.record(levelOf(status, r.aborted === true), message, data);
}

function levelOf(status: number | undefined, aborted: boolean): "info" | "warning" | "error" {
  if (status !== undefined && status >= 500) return "error";
  if (aborted || (status !== undefined && status >= 400)) return "warning";
  return "info";
}

/** The query part of a request target (`/a?b=1` → `b=1`), or undefined when there is none. */
export function queryString(url: string): string | undefined {
  const q = url.indexOf("?");
  return q < 0 || q === url.length - 1 ? undefined : url.slice(q + 1);
}

/** The path part of a request target (`/a?b=1` → `/a`). */
export function pathOf(url: string): string {
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
}

/** A query string → a plain object (repeated keys become arrays). */
export function queryObject(search: string | URLSearchParams): Record<string, unknown> {
  const params = typeof search === "string" ? new URLSearchParams(search) : search;
  const out: Record<string, unknown> = {};
  for (const [k, v] of params) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

function hasKeys(o: Record<string, unknown>): boolean {
  for (const _ in o) return true;
  return false;
}

function asError(e: unknown): Error {
  return e instanceof Error
    ? e
    : new Error(typeof e === "string" ? e : "non-Error thrown", { cause: e });
}
