/**
 * `stowage/fastify`: a Fastify plugin (not encapsulated, so its hooks see every
 * route) that gives each request a child logger (`request.stowage`, created on
 * first access; Fastify's own `request.log` is left alone), writes one record per
 * response with the route pattern, and puts a handler's error (with its stack)
 * on that record.
 */
import type { FastifyInstance, FastifyPluginCallback, FastifyRequest } from "fastify";
import type { Logger } from "../../logger/logger.js";
import {
  clientIp,
  logRequest,
  pathOf,
  requestIdFrom,
  RequestState,
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

const STATE = Symbol("stowage.request");
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
  // Getters on Fastify's request prototype: nothing is copied onto each request.
  app.decorateRequest("stowage", {
    getter(this: WithState) {
      return this[STATE]?.log as Logger;
    },
    setter(this: WithState, value: Logger) {
      Object.defineProperty(this, "stowage", { value, writable: true, configurable: true });
    },
  });
  app.decorateRequest("stowageRequestId", {
    getter(this: WithState) {
      return this[STATE]?.requestId ?? "";
    },
  });
  app.addHook("onRequest", (request, reply, next) => {
    const header = request.headers[o.requestIdHeader];
    const state = new RequestState(
      base,
      requestIdFrom(typeof header === "string" ? header : undefined),
    );
    (request as WithState)[STATE] = state;
    if (o.setResponseHeader) void reply.header(o.requestIdHeader, state.requestId);
    next();
  });
  app.addHook("onError", (request, _reply, error, next) => {
    (request as WithState)[STATE]?.fail(error);
    next();
  });
  app.addHook("onResponse", (request, reply, next) => {
    const state = (request as WithState)[STATE];
    const path = pathOf(request.url);
    if (state !== undefined && !o.skip?.(path)) {
      const ua = request.headers["user-agent"];
      const xff = request.headers["x-forwarded-for"];
      logRequest(state, {
        method: request.method,
        route: request.routeOptions.url,
        path,
        status: reply.statusCode,
        userAgent: ua,
        ip: clientIp(
          o.trustProxy,
          typeof xff === "string" ? xff : undefined,
          request.socket.remoteAddress,
        ),
        query:
          o.query && request.url.includes("?")
            ? { ...(request.query as Record<string, unknown>) }
            : undefined,
        headers: o.headers ? { ...request.headers } : undefined,
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
