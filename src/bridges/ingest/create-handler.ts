/**
 * `createIngestHandler(logger, options)`: the ingestion endpoint as a Node
 * `(req, res)` handler that also carries a Fetch API form (`handler.fetch`) for
 * Hono, Bun and edge-style servers, and `handler.stats()` with every count.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../../logger/logger.js";
import {
  IngestCore,
  type CoreRequest,
  type CoreResponse,
  type IngestCounts,
} from "./ingest-core.js";
import { resolveIngestOptions, type IngestOptions } from "./options.js";

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
  const core = new IngestCore(logger, resolveIngestOptions(options));
  const handler = ((req: IncomingMessage, res: ServerResponse) => {
    core.handle(nodeRequest(req)).then(
      (out) => sendNode(res, out),
      () => sendNode(res, { status: 500, headers: {}, body: '{"accepted":0,"error":"internal"}' }),
    );
  }) as IngestHandler;
  handler.fetch = async (request) => {
    const out = await core.handle(fetchRequest(request));
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
    readBody: (maxBytes) =>
      new Promise((resolve, reject) => {
        const declared = Number(req.headers["content-length"]);
        if (Number.isFinite(declared) && declared > maxBytes) {
          req.resume();
          return resolve(null);
        }
        const chunks: Buffer[] = [];
        let size = 0;
        req.on("data", (c: Buffer) => {
          size += c.length;
          if (size > maxBytes) {
            req.removeAllListeners("data");
            req.resume();
            resolve(null);
          } else chunks.push(c);
        });
        // Bounded: `size` is checked against maxBytes on every chunk above.
        // eslint-disable-next-line no-restricted-syntax
        req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
        req.on("error", reject);
      }),
  };
}

function sendNode(res: ServerResponse, out: CoreResponse): void {
  res.writeHead(out.status, out.headers);
  res.end(out.status === 204 ? undefined : out.body);
}

function fetchRequest(request: Request): CoreRequest {
  return {
    method: request.method,
    url: request.url,
    header: (name) => request.headers.get(name),
    readBody: async (maxBytes) => {
      const declared = Number(request.headers.get("content-length"));
      if (Number.isFinite(declared) && declared > maxBytes) return null;
      if (!request.body) return "";
      const reader = request.body.getReader();
      const parts: Uint8Array[] = [];
      let size = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) {
          await reader.cancel();
          return null;
        }
        parts.push(value);
      }
      const all = new Uint8Array(size);
      let at = 0;
      for (const p of parts) {
        all.set(p, at);
        at += p.byteLength;
      }
      return new TextDecoder().decode(all);
    },
  };
}
