/**
 * `stowage/express`: a middleware that gives each request a child logger
 * (`req.log`, bound to its request id, created on first access) and writes one
 * record when the response closes — finished, or abandoned by the client (`aborted`,
 * by the shared rule in `nodeResponseEnd`) — plus an error middleware that puts a thrown
 * error (with its stack) on that record. Express is only referenced by type here.
 */
import type { ServerResponse } from "node:http";
import type { ErrorRequestHandler, Request, RequestHandler } from "express";
import type { Logger } from "../../logger/logger.js";
import {
  clientIp,
  logRequest,
  nodeResponseEnd,
  requestIdFrom,
  RequestState,
  resolveRequestLogOptions,
  type RequestLogOptions,
  type ResolvedRequestLogOptions,
} from "../http/request-record.js";

declare module "express-serve-static-core" {
  interface Request {
    /** The request's child logger (bindings: `requestId`), set by `stowageExpress`. */
    log: Logger;
    /** The request id (from the request header, or generated). */
    requestId: string;
  }
}

const STATE = Symbol("stowage.request");

class ExpressRequestState extends RequestState {
  /**
   * The matched route's full pattern (mount path included), taken when Express assigns
   * `req.route`: by the time the response closes, a router has restored `req.baseUrl`
   * (to "" after an error, to undefined at the app) and the pattern is gone.
   */
  routePattern: string | undefined = undefined;

  constructor(
    base: Logger,
    requestId: string,
    readonly options: ResolvedRequestLogOptions,
    /** `req.path` when the middleware ran (routers rewrite `req.url` on the way). */
    readonly path: string,
  ) {
    super(base, requestId);
  }
}

const ROUTE = Symbol("stowage.route");
type TrackedRequest = Request & { [STATE]?: ExpressRequestState; [ROUTE]?: unknown };
type TrackedResponse = ServerResponse & { req: TrackedRequest };

/** `req.log`: the request's child logger, made on first read; an assignment replaces it for that request. */
const logAccessor: PropertyDescriptor = {
  configurable: true,
  enumerable: false,
  get(this: TrackedRequest): Logger | undefined {
    return this[STATE]?.log;
  },
  set(this: TrackedRequest, value: unknown) {
    Object.defineProperty(this, "log", {
      value,
      writable: true,
      configurable: true,
      enumerable: true,
    });
  },
};

/**
 * `req.route`: a plain value for Express, read back unchanged; its assignment (when a
 * route matches, inside whichever router) also records the full pattern on the request's state.
 */
const routeAccessor: PropertyDescriptor = {
  configurable: true,
  enumerable: false,
  get(this: TrackedRequest): unknown {
    return this[ROUTE];
  },
  set(this: TrackedRequest, value: unknown) {
    this[ROUTE] = value;
    const state = this[STATE];
    const path = (value as { path?: unknown } | undefined)?.path;
    if (state !== undefined && typeof path === "string")
      state.routePattern = `${this.baseUrl ?? ""}${path}` || "/";
  },
};

const ACCESSORS: [string, PropertyDescriptor][] = [
  ["log", logAccessor],
  ["route", routeAccessor],
];

/**
 * The accessors go once on the app's request prototype (`app.request`, which
 * Express documents as the place to extend `req`), so a request costs no
 * property definition; a request with any other prototype gets its own.
 */
const patched = new WeakSet<object>();
function installAccessors(req: TrackedRequest): void {
  const proto = Object.getPrototypeOf(req) as object | null;
  if (proto !== null && patched.has(proto)) return;
  const target = proto !== null && Object.prototype.hasOwnProperty.call(proto, "app") ? proto : req;
  for (const [name, accessor] of ACCESSORS) {
    if (!Object.prototype.hasOwnProperty.call(target, name))
      Object.defineProperty(target, name, accessor);
  }
  if (target === proto) patched.add(proto);
}

/**
 * @example
 * const app = express();
 * app.use(stowageExpress(logger));
 * app.get("/orders/:id", (req, res) => { req.log.info("loading"); res.json({}); });
 * app.use(stowageExpressErrors());
 */
export function stowageExpress(logger: Logger, options: RequestLogOptions = {}): RequestHandler {
  const o = resolveRequestLogOptions(options, "stowage/express");
  return (req, res, next) => {
    const header = req.headers[o.requestIdHeader];
    const state = new ExpressRequestState(
      logger,
      requestIdFrom(typeof header === "string" ? header : undefined),
      o,
      req.path,
    );
    (req as TrackedRequest)[STATE] = state;
    installAccessors(req as TrackedRequest);
    req.requestId = state.requestId;
    if (o.setResponseHeader) res.setHeader(o.requestIdHeader, state.requestId);
    // "close", not "finish": it comes after "finish" for a completed response and alone
    // for one the client abandoned, so every request gets its one record (issue 30 row 10).
    if (!o.skip?.(state.path)) res.on("close", onClose);
    next();
  };
}

/** The response's "close" listener (one function for all requests: `this` is the response). */
function onClose(this: TrackedResponse): void {
  const req = this.req;
  const state = req[STATE];
  if (state === undefined) return;
  const o = state.options;
  const xff = req.headers["x-forwarded-for"];
  const end = nodeResponseEnd(this);
  logRequest(state, {
    method: req.method,
    route: state.routePattern ?? routePattern(req),
    path: state.path,
    status: end.status,
    aborted: end.aborted,
    userAgent: req.headers["user-agent"],
    ip: clientIp(
      o.trustProxy,
      typeof xff === "string" ? xff : undefined,
      req.socket?.remoteAddress,
    ),
    // Express parses `req.query` on every read: only when there is a query string.
    query: o.query && hasQuery(req) ? { ...(req.query as Record<string, unknown>) } : undefined,
    headers: o.headers ? { ...req.headers } : undefined,
  });
}

function hasQuery(req: Request): boolean {
  const url = req.originalUrl ?? req.url;
  return typeof url === "string" && url.includes("?");
}

/**
 * Register after the routes: records the error on the request's record, then
 * passes it on to the next error handler (Express's default answers 500).
 * @example app.use(stowageExpressErrors());
 */
export function stowageExpressErrors(): ErrorRequestHandler {
  return (err: unknown, req, _res, next) => {
    (req as TrackedRequest)[STATE]?.fail(err);
    next(err);
  };
}

/** `baseUrl` + the matched route's path; undefined when no route matched (404). */
function routePattern(req: Request): string | undefined {
  const route = req.route as { path?: unknown } | undefined;
  if (!route || typeof route.path !== "string") return undefined;
  return `${req.baseUrl}${route.path}` || "/";
}
