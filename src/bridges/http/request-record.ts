/**
 * The request record shared by the Express, Fastify and Hono adapters (issue 14
 * §3): request id (taken from or added to a header), client ip (forwarded only
 * when the proxy is trusted), one record per request at a level chosen by
 * status. Headers and query go into `data`, so the logger's §3.3 redaction
 * (authorization, cookie, token, …) applies to them like to any record.
 */
import type { Logger } from "../../logger/logger.js";

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

/** @example resolveRequestLogOptions({ trustProxy: true }).requestIdHeader // "x-request-id" */
export function resolveRequestLogOptions(o: RequestLogOptions = {}): ResolvedRequestLogOptions {
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
    const first = forwardedFor.split(",")[0]?.trim();
    if (first) return first;
  }
  return socketAddress;
}

/** What an adapter knows when a response has been sent. */
export interface FinishedRequest {
  method: string;
  /** The route pattern (`/orders/:id`), or undefined when no route matched. */
  route: string | undefined;
  path: string;
  status: number;
  durationMs: number;
  requestId: string;
  userAgent: string | undefined;
  ip: string | undefined;
  query?: Record<string, unknown> | undefined;
  headers?: Record<string, unknown> | undefined;
  error?: unknown;
}

/** Writes the one record of a request through its child logger (never throws, never flushes). */
export function logRequest(log: Logger, r: FinishedRequest): void {
  const route = r.route ?? "(no route)";
  const data: Record<string, unknown> = {
    method: r.method,
    route,
    path: r.path,
    status: r.status,
    durationMs: Math.round(r.durationMs * 1000) / 1000,
  };
  if (r.userAgent !== undefined) data.userAgent = r.userAgent;
  if (r.ip !== undefined) data.ip = r.ip;
  if (r.query !== undefined && Object.keys(r.query).length > 0) data.query = r.query;
  if (r.headers !== undefined) data.headers = r.headers;
  const message = `${r.method} ${route} ${r.status}`;
  // pino order with `err`: the logger fills the record's `error` (stack included).
  if (r.error !== undefined) log.error({ ...data, err: asError(r.error) }, message);
  else if (r.status >= 500) log.error(message, data);
  else if (r.status >= 400) log.warn(message, data);
  else log.info(message, data);
}

/** URLSearchParams → a plain object (repeated keys become arrays). */
export function queryObject(params: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of params) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

function asError(e: unknown): Error {
  return e instanceof Error
    ? e
    : new Error(typeof e === "string" ? e : "non-Error thrown", { cause: e });
}
