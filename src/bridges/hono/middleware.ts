/**
 * `stowage/hono`: a Hono middleware that gives each request a child logger
 * (`c.get("log")`, bound to its request id) and writes one record per request with
 * the matched route pattern, status and any thrown error: on `@hono/node-server`
 * when Node's response closes (so the record has the status actually sent, and a
 * request the client abandoned is `aborted`, by the shared rule in `nodeResponseEnd`),
 * elsewhere after the handler (`fetchResponseEnd`: aborted when the request's signal
 * is). It uses only Web APIs, so it runs on Node, Bun and edge runtimes alike; on
 * `@hono/node-server` it reads the request headers from Node's request and sets
 * the response header on Node's response, so neither side has to be turned into
 * a full Fetch `Request`/`Response` just for the record.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { Logger } from "../../logger/logger.js";
import {
  clientIp,
  fetchResponseEnd,
  logRequest,
  nodeResponseEnd,
  queryObject,
  queryString,
  requestIdFrom,
  RequestState,
  resolveRequestLogOptions,
  type FinishedRequest,
  type RequestEnd,
  type RequestLogOptions,
  type ResolvedRequestLogOptions,
} from "../http/request-record.js";

/** Context variables set by the middleware: `c.get("log")`, `c.get("requestId")`. */
export interface StowageHonoVariables {
  log: Logger;
  requestId: string;
}

/** `@hono/node-server`'s bindings (`c.env.incoming`, `c.env.outgoing`), when present. */
interface NodeBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
}

/**
 * @example
 * const app = new Hono<{ Variables: StowageHonoVariables }>();
 * app.use(stowageHono(logger));
 * app.get("/orders/:id", (c) => { c.get("log").info("loading"); return c.json({}); });
 */
export function stowageHono(
  logger: Logger,
  options: RequestLogOptions = {},
): MiddlewareHandler<{ Variables: StowageHonoVariables }> {
  const o = resolveRequestLogOptions(options, "stowage/hono");
  return async (c, next) => {
    const node = nodeBindings(c);
    const incoming = node?.incoming;
    const state = new RequestState(logger, requestIdFrom(header(c, incoming, o.requestIdHeader)));
    // Hono's variables are a plain map, so the child is made here rather than on first read.
    c.set("log", state.log);
    c.set("requestId", state.requestId);
    const outgoing = node?.outgoing;
    const onNode = typeof outgoing?.setHeader === "function";
    if (o.setResponseHeader && onNode) outgoing!.setHeader(o.requestIdHeader, state.requestId);
    const skipped = o.skip?.(c.req.path) === true;
    // On Node the record waits for the response to close: after it was sent, or when the
    // client went away — possibly while the handler still runs (issue 30 row 10).
    if (onNode && !skipped)
      outgoing!.on("close", () =>
        logRequest(state, facts(c, incoming, o, nodeResponseEnd(outgoing!))),
      );
    await next();
    if (o.setResponseHeader && !onNode) c.res.headers.set(o.requestIdHeader, state.requestId);
    if (skipped) return;
    if (c.error !== undefined) state.fail(c.error);
    if (!onNode)
      logRequest(state, facts(c, incoming, o, fetchResponseEnd(c.req.raw.signal, c.res.status)));
  };
}

/** The record's fields, read from the context when the record is written. */
function facts(
  c: Context,
  incoming: IncomingMessage | undefined,
  o: ResolvedRequestLogOptions,
  end: RequestEnd,
): FinishedRequest {
  const route = routePath(c);
  const search = o.query ? queryString(c.req.url) : undefined;
  return {
    method: c.req.method,
    route: route && route !== "*" && route !== "/*" ? route : undefined,
    path: c.req.path,
    status: end.status,
    aborted: end.aborted,
    userAgent: header(c, incoming, "user-agent"),
    ip: clientIp(
      o.trustProxy,
      o.trustProxy ? header(c, incoming, "x-forwarded-for") : undefined,
      incoming?.socket?.remoteAddress,
    ),
    query: search === undefined ? undefined : queryObject(search),
    headers: o.headers
      ? incoming !== undefined
        ? { ...incoming.headers }
        : Object.fromEntries(c.req.raw.headers)
      : undefined,
  };
}

/** A request header, from Node's parsed headers when there is a Node request. */
function header(
  c: Context,
  incoming: IncomingMessage | undefined,
  name: string,
): string | undefined {
  if (incoming === undefined) return c.req.header(name);
  const v = incoming.headers[name];
  return typeof v === "string" ? v : undefined;
}

/** The Node request/response under `@hono/node-server` (`c.env.incoming`/`outgoing`); other runtimes: undefined. */
function nodeBindings(c: Context): NodeBindings | undefined {
  const env = c.env as NodeBindings | undefined;
  return env !== undefined && env !== null && typeof env === "object" && env.incoming !== undefined
    ? env
    : undefined;
}
