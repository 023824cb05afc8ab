/**
 * `stowage/hono`: a Hono middleware that gives each request a child logger
 * (`c.get("log")`, bound to its request id) and writes one record after the
 * handler with the matched route pattern, status and any thrown error. It uses
 * only Web APIs, so it runs on Node, Bun and edge runtimes alike.
 */
import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { Logger } from "../../logger/logger.js";
import {
  clientIp,
  logRequest,
  queryObject,
  requestIdFrom,
  resolveRequestLogOptions,
  type RequestLogOptions,
} from "../http/request-record.js";

/** Context variables set by the middleware: `c.get("log")`, `c.get("requestId")`. */
export interface StowageHonoVariables {
  log: Logger;
  requestId: string;
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
  const o = resolveRequestLogOptions(options);
  return async (c, next) => {
    const start = performance.now();
    const requestId = requestIdFrom(c.req.header(o.requestIdHeader));
    const log = logger.child({ requestId });
    c.set("log", log);
    c.set("requestId", requestId);
    await next();
    if (o.setResponseHeader) c.res.headers.set(o.requestIdHeader, requestId);
    const url = new URL(c.req.url);
    if (o.skip?.(url.pathname)) return;
    const route = routePath(c);
    logRequest(log, {
      method: c.req.method,
      route: route && route !== "*" && route !== "/*" ? route : undefined,
      path: url.pathname,
      status: c.res.status,
      durationMs: performance.now() - start,
      requestId,
      userAgent: c.req.header("user-agent"),
      ip: clientIp(o.trustProxy, c.req.header("x-forwarded-for"), socketAddress(c)),
      ...(o.query ? { query: queryObject(url.searchParams) } : {}),
      ...(o.headers ? { headers: Object.fromEntries(c.req.raw.headers) } : {}),
      ...(c.error !== undefined ? { error: c.error } : {}),
    });
  };
}

/** The peer address on @hono/node-server (`c.env.incoming`); other runtimes: unknown. */
function socketAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}
