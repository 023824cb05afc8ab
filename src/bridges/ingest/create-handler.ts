/**
 * `createIngestHandler(logger, options)`: the ingestion endpoint as a Node
 * `(req, res)` handler that also carries a Fetch API form (`handler.fetch`) for
 * Hono, Bun and edge-style servers, and `handler.stats()` with every count.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../../logger/logger.js";
import { reportToStderr } from "../shared/stderr-report.js";
import {
  IngestCore,
  type CoreRequest,
  type CoreResponse,
  type IngestCounts,
} from "./ingest-core.js";
import { resolveIngestOptions, type IngestOptions } from "./options.js";
import { readFetchBody, readNodeBody } from "./read-body.js";

const BRIDGE = "stowage/ingest";

/** A Node request handler with the Fetch form and the counters attached. */
export interface IngestHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /** The same endpoint as a Fetch API handler. */
  fetch(request: Request): Promise<Response>;
  /** Counts since the handler was created (a copy). */
  stats(): IngestCounts;
}

/**
 * @example
 * const ingest = createIngestHandler(logger, { auth: { token: "browser-key-1" },
 *   cors: { origins: ["https://shop.example"] } });
 * http.createServer(ingest).listen(8080);           // Node
 * app.post("/ingest", (c) => ingest.fetch(c.req.raw)); // Hono
 */
export function createIngestHandler(logger: Logger, options: IngestOptions = {}): IngestHandler {
  const resolved = resolveIngestOptions(options);
  // The token ships in the page: an endpoint open to anyone must be meant (issue 31 §1).
  if (options.auth === undefined)
    reportToStderr(
      BRIDGE,
      'no `auth` given: this endpoint accepts records from anyone who can reach it. Pass `auth: { token }` or a callback, or `auth: "none"` to accept anyone on purpose',
    );
  const core = new IngestCore(logger, resolved, (m) => reportToStderr(BRIDGE, m));
  const handler = ((req: IncomingMessage, res: ServerResponse) => {
    core.handle(nodeRequest(req)).then(
      (out) => sendNode(res, out),
      () => res.destroy(), // handle() does not throw; this only keeps a rejection from going unhandled
    );
  }) as IngestHandler;
  handler.fetch = async (request) => {
    const out = await core.handle({
      method: request.method,
      url: request.url,
      header: (name) => request.headers.get(name),
      readBody: (maxBytes, timeoutMs) => readFetchBody(request, maxBytes, timeoutMs),
    });
    return new Response(out.status === 204 ? null : out.body, {
      status: out.status,
      headers: out.headers,
    });
  };
  handler.stats = () => structuredClone(core.counts);
  return handler;
}

function nodeRequest(req: IncomingMessage): CoreRequest {
  return {
    method: req.method ?? "GET",
    url: req.url ?? "/",
    header: (name) => {
      const v = req.headers[name.toLowerCase()];
      return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
    },
    readBody: (maxBytes, timeoutMs) => readNodeBody(req, maxBytes, timeoutMs),
  };
}

function sendNode(res: ServerResponse, out: CoreResponse): void {
  if (res.headersSent || res.destroyed) return;
  // A refusal before (or while) the body arrives ends the connection, so a slow sender
  // holds it no longer than the answer takes.
  const headers = out.close ? { ...out.headers, connection: "close" } : out.headers;
  res.writeHead(out.status, headers);
  res.end(out.status === 204 ? undefined : out.body);
}
