/**
 * `stowage/fastify`: a Fastify plugin (not encapsulated, so its hooks see every
 * route) that gives each request a child logger (`request.stowage`, created on
 * first access; Fastify's own `request.log` is left alone), writes one record per
 * request with the route pattern — on `onResponse`, or on the raw response's "close"
 * when the client went away first (Fastify runs no `onResponse` then; `aborted` by the
 * shared rule in `nodeResponseEnd`) — and puts a handler's error (with its stack) on it.
 */
import type { ServerResponse } from "node:http";
import type { FastifyInstance, FastifyPluginCallback, FastifyRequest } from "fastify";
import type { Logger } from "../../logger/logger.js";
import {
  clientIp,
  logRequest,
  nodeResponseEnd,
  pathOf,
  requestIdFrom,
  RequestState,
  resolveRequestLogOptions,
  type RequestLogOptions,
  type ResolvedRequestLogOptions,
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
const REQUEST = Symbol("stowage.fastifyRequest");
type WithState = FastifyRequest & { [STATE]?: FastifyRequestState };
type RawWithRequest = ServerResponse & { [REQUEST]?: WithState };

class FastifyRequestState extends RequestState {
  constructor(
    base: Logger,
    requestId: string,
    readonly options: ResolvedRequestLogOptions,
  ) {
    super(base, requestId);
  }
}

const plugin: FastifyPluginCallback<StowageFastifyOptions> = (
  app: FastifyInstance,
  options,
  done,
) => {
  if (!options?.logger)
    return done(new Error("stowage/fastify: register it with { logger } (a stowage Logger)"));
  const { logger: base, ...requestOptions } = options;
  let o: ReturnType<typeof resolveRequestLogOptions>;
  try {
    o = resolveRequestLogOptions(requestOptions, "stowage/fastify");
  } catch (err) {
    return done(err as Error);
  }
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
    const state = new FastifyRequestState(
      base,
      requestIdFrom(typeof header === "string" ? header : undefined),
      o,
    );
    (request as WithState)[STATE] = state;
    if (o.setResponseHeader) void reply.header(o.requestIdHeader, state.requestId);
    // One listener for all requests (`this` is the raw response): the abandoned request's record.
    const raw = reply.raw as RawWithRequest;
    raw[REQUEST] = request;
    raw.on("close", onRawClose);
    next();
  });
  app.addHook("onError", (request, _reply, error, next) => {
    (request as WithState)[STATE]?.fail(error);
    next();
  });
  app.addHook("onResponse", (request, reply, next) => {
    record(request, reply.raw);
    next();
  });
  done();
};

/**
 * The raw response's "close": after a completed response `onResponse` has written the
 * record and this writes nothing; when the client went away first it is the only call.
 */
function onRawClose(this: RawWithRequest): void {
  const request = this[REQUEST];
  if (request !== undefined) record(request, this);
}

/** The request's one record (`logRequest` writes the first call's, ignores the rest). */
function record(request: WithState, raw: ServerResponse): void {
  const state = request[STATE];
  if (state === undefined || state.recorded) return;
  const o = state.options;
  const path = pathOf(request.url);
  if (o.skip?.(path)) return;
  const ua = request.headers["user-agent"];
  const xff = request.headers["x-forwarded-for"];
  const end = nodeResponseEnd(raw);
  logRequest(state, {
    method: request.method,
    route: request.routeOptions.url,
    path,
    status: end.status,
    aborted: end.aborted,
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
