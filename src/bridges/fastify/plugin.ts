/**
 * `stowage/fastify`: a Fastify plugin (not encapsulated, so its hooks see every
 * route) that gives each request a child logger (`request.stowage`; Fastify's
 * own `request.log` is left alone), writes one record per response with the
 * route pattern, and puts a handler's error (with its stack) on that record.
 */
import type { FastifyInstance, FastifyPluginCallback, FastifyRequest } from "fastify";
import type { Logger } from "../../logger/logger.js";
import {
  clientIp,
  logRequest,
  requestIdFrom,
  resolveRequestLogOptions,
  type RequestLogOptions,
} from "../http/request-record.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The request's child logger (bindings: `requestId`), set by the stowage plugin. */
    stowage: Logger;
    /** The request id (from the request header, or generated). */
    stowageRequestId: string;
  }
}

/** Plugin options: the logger plus the common request-log options. */
export interface StowageFastifyOptions extends RequestLogOptions {
  logger: Logger;
}

interface RequestState {
  start: number;
  error?: unknown;
}
const STATE = Symbol("stowage.state");
type WithState = FastifyRequest & { [STATE]?: RequestState };

const plugin: FastifyPluginCallback<StowageFastifyOptions> = (
  app: FastifyInstance,
  options,
  done,
) => {
  if (!options?.logger)
    return done(new Error("stowage/fastify: register it with { logger } (a stowage Logger)"));
  const o = resolveRequestLogOptions(options);
  const base = options.logger;
  app.decorateRequest("stowage", null as unknown as Logger);
  app.decorateRequest("stowageRequestId", "");
  app.addHook("onRequest", (request, reply, next) => {
    const header = request.headers[o.requestIdHeader];
    const requestId = requestIdFrom(typeof header === "string" ? header : undefined);
    request.stowageRequestId = requestId;
    request.stowage = base.child({ requestId });
    (request as WithState)[STATE] = { start: performance.now() };
    if (o.setResponseHeader) void reply.header(o.requestIdHeader, requestId);
    next();
  });
  app.addHook("onError", (request, _reply, error, next) => {
    const state = (request as WithState)[STATE];
    if (state) state.error = error;
    next();
  });
  app.addHook("onResponse", (request, reply, next) => {
    const state = (request as WithState)[STATE];
    const path = request.url.split("?")[0] ?? request.url;
    if (state && !o.skip?.(path)) {
      const ua = request.headers["user-agent"];
      const xff = request.headers["x-forwarded-for"];
      logRequest(request.stowage, {
        method: request.method,
        route: request.routeOptions.url,
        path,
        status: reply.statusCode,
        durationMs: performance.now() - state.start,
        requestId: request.stowageRequestId,
        userAgent: typeof ua === "string" ? ua : undefined,
        ip: clientIp(
          o.trustProxy,
          typeof xff === "string" ? xff : undefined,
          request.socket.remoteAddress,
        ),
        ...(o.query ? { query: { ...(request.query as Record<string, unknown>) } } : {}),
        ...(o.headers ? { headers: { ...request.headers } } : {}),
        ...(state.error !== undefined ? { error: state.error } : {}),
      });
    }
    next();
  });
  done();
};

// Fastify's "skip-override": the hooks apply to the whole app, like fastify-plugin does.
(plugin as unknown as Record<symbol, unknown>)[Symbol.for("skip-override")] = true;
(plugin as unknown as Record<symbol, unknown>)[Symbol.for("fastify.display-name")] = "stowage";

/**
 * @example
 * const app = Fastify();
 * await app.register(stowageFastify, { logger });
 * app.get("/orders/:id", async (request) => { request.stowage.info("loading"); return {}; });
 */
export const stowageFastify = plugin;
