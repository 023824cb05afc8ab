/**
 * `stowage/express`: a middleware that gives each request a child logger
 * (`req.log`, bound to its request id) and writes one record when the response
 * finishes, plus an error middleware that puts a thrown error (with its stack)
 * on that record. Express is only referenced by type here.
 */
import type { ErrorRequestHandler, Request, RequestHandler } from "express";
import type { Logger } from "../../logger/logger.js";
import {
  clientIp,
  logRequest,
  requestIdFrom,
  resolveRequestLogOptions,
  type RequestLogOptions,
} from "../http/request-record.js";

const ERROR = Symbol("stowage.error");

declare module "express-serve-static-core" {
  interface Request {
    /** The request's child logger (bindings: `requestId`), set by `stowageExpress`. */
    log: Logger;
    /** The request id (from the request header, or generated). */
    requestId: string;
  }
}

/**
 * @example
 * const app = express();
 * app.use(stowageExpress(logger));
 * app.get("/orders/:id", (req, res) => { req.log.info("loading"); res.json({}); });
 * app.use(stowageExpressErrors());
 */
export function stowageExpress(logger: Logger, options: RequestLogOptions = {}): RequestHandler {
  const o = resolveRequestLogOptions(options);
  return (req, res, next) => {
    const start = performance.now();
    const requestId = requestIdFrom(req.get(o.requestIdHeader));
    req.requestId = requestId;
    req.log = logger.child({ requestId });
    if (o.setResponseHeader) res.setHeader(o.requestIdHeader, requestId);
    const path = req.path;
    if (o.skip?.(path)) return next();
    res.once("finish", () =>
      logRequest(req.log, {
        method: req.method,
        route: routePattern(req),
        path,
        status: res.statusCode,
        durationMs: performance.now() - start,
        requestId,
        userAgent: req.get("user-agent"),
        ip: clientIp(o.trustProxy, req.get("x-forwarded-for"), req.socket.remoteAddress),
        ...(o.query ? { query: { ...(req.query as Record<string, unknown>) } } : {}),
        ...(o.headers ? { headers: { ...req.headers } } : {}),
        ...(ERROR in req ? { error: (req as unknown as Record<symbol, unknown>)[ERROR] } : {}),
      }),
    );
    next();
  };
}

/**
 * Register after the routes: records the error on the request's record, then
 * passes it on to the next error handler (Express's default answers 500).
 * @example app.use(stowageExpressErrors());
 */
export function stowageExpressErrors(): ErrorRequestHandler {
  return (err: unknown, req, _res, next) => {
    (req as unknown as Record<symbol, unknown>)[ERROR] = err;
    next(err);
  };
}

/** `baseUrl` + the matched route's path; undefined when no route matched (404). */
function routePattern(req: Request): string | undefined {
  const route = req.route as { path?: unknown } | undefined;
  if (!route || typeof route.path !== "string") return undefined;
  return `${req.baseUrl}${route.path}` || "/";
}
