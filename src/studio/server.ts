/**
 * Studio's HTTP server (node:http, no framework): guards every request (Host,
 * then Origin and token for the API), routes the JSON API onto the load
 * controller and source context, and serves the built UI.
 *
 * Invariants: no handler runs before the guards pass; response bodies are
 * scrubbed of the configured secret values as a last line of defence; errors
 * carry a category, a message and a hint, never a stack or provider text.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { GrantLimits, Source } from "../reader/types.js";
import { MAX_RANGE_MS, type ApiError, type InfoResponse } from "./api-types.js";
import { apiError, internalError, mapLoadError, type MappedError } from "./api-errors.js";
import { LoadController, Refusal } from "./load-controller.js";
import { allowedHosts, checkHost, checkOrigin, checkToken, SECURITY_HEADERS } from "./security.js";
import { readSourceContext } from "./source-context.js";
import { serveAsset } from "./static-assets.js";

export interface StudioServerOptions {
  source: Source;
  /** Real path of the attached project, fixed for the server's lifetime. */
  projectDir: string | undefined;
  limits: GrantLimits;
  token: string;
  host: string;
  assetsDir: string | undefined;
  version: string;
  doctorCommand: string;
  /** Values that must never appear in a response (static credentials). */
  secrets: string[];
  /** Called with unexpected errors (the CLI prints them). */
  onError?: (err: unknown) => void;
}

const MAX_BODY_BYTES = 64 * 1024;
/** A refused body is read and dropped up to this size before the socket is cut. */
const DRAIN_BYTES = 8 * 1024 * 1024;

/** Creates (does not start) the server; `port` is read from the socket once it listens. */
export function createStudioServer(options: StudioServerOptions): Server {
  const controller = new LoadController(options.source, options.limits);
  const secrets = options.secrets.filter((s) => s.length >= 8);
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      options.onError?.(err);
      if (!res.headersSent) sendJson(res, internalError());
      else res.destroy();
    });
  });

  function port(): number {
    const addr = server.address();
    return typeof addr === "object" && addr ? addr.port : 0;
  }

  function sendJson(
    res: ServerResponse,
    value: MappedError | { status: number; body: unknown },
  ): void {
    let text = JSON.stringify(value.body);
    for (const s of secrets) if (text.includes(s)) text = text.split(s).join("[REDACTED]");
    res.writeHead(value.status, {
      ...SECURITY_HEADERS,
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "content-length": String(Buffer.byteLength(text)),
    });
    res.end(text);
  }

  function fail(
    res: ServerResponse,
    f: { status: number; category: ApiError["error"]["category"]; message: string; hint?: string },
  ): void {
    sendJson(res, apiError(f.status, f.category, f.message, f.hint));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const hosts = allowedHosts(options.host, port());
    const hostFailure = checkHost(req, hosts);
    if (hostFailure) return fail(res, hostFailure);
    const url = new URL(req.url ?? "/", "http://studio.invalid");
    if (!url.pathname.startsWith("/api/")) {
      if (req.method === "GET" || req.method === "HEAD") {
        if (await serveAsset(options.assetsDir, url.pathname, res, { ...SECURITY_HEADERS })) return;
      }
      return fail(res, {
        status: 404,
        category: "not-found",
        message: `nothing at ${url.pathname.slice(0, 80)}`,
      });
    }
    const guard = checkOrigin(req, hosts) ?? checkToken(req, options.token);
    if (guard) return fail(res, guard);
    const route = `${req.method ?? "GET"} ${url.pathname}`;
    // Aborted when the client goes away before the answer (tab closed, fetch aborted), so
    // the grant stops its LISTs/GETs at once instead of running to its end.
    const gone = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) gone.abort();
    });
    const { signal } = gone;
    try {
      switch (route) {
        case "GET /api/info":
          return sendJson(res, { status: 200, body: info() });
        case "GET /api/source-context":
          return sendJson(res, {
            status: 200,
            body: await readSourceContext(
              { projectDir: options.projectDir },
              {
                caller: url.searchParams.get("caller") ?? undefined,
                stack: url.searchParams.get("stack") ?? undefined,
              },
            ),
          });
        case "POST /api/load": {
          const body = await readJson(req);
          return sendJson(res, {
            status: 200,
            body: await controller.load(body.from, body.to, signal),
          });
        }
        case "POST /api/more":
          return sendJson(res, {
            status: 200,
            body: await controller.more((await readJson(req)).loadId, signal),
          });
        case "POST /api/refresh":
          return sendJson(res, {
            status: 200,
            body: await controller.refresh((await readJson(req)).loadId, signal),
          });
        default:
          return fail(res, {
            status: 404,
            category: "not-found",
            message: `no API route ${route.slice(0, 80)}`,
          });
      }
    } catch (err) {
      if (err instanceof Refusal) {
        if (err.closeConnection) res.setHeader("connection", "close");
        return sendJson(res, err.mapped);
      }
      const mapped = mapLoadError(err, {
        source: options.source.description,
        doctorCommand: options.doctorCommand,
      });
      if (mapped.status === 502 && mapped.body.error.category === "storage") options.onError?.(err);
      return sendJson(res, mapped);
    }
  }

  function info(): InfoResponse {
    const project = options.projectDir;
    return {
      app: "stowage-studio",
      version: options.version,
      source: options.source.description,
      project: project
        ? { attached: true, name: project.split(/[\\/]/).pop() ?? project, path: project }
        : { attached: false },
      limits: options.limits,
      maxRangeMs: MAX_RANGE_MS,
      serverNow: Date.now(),
      doctorCommand: options.doctorCommand,
    };
  }

  return server;
}

/** Reads a small JSON object body; anything else is a 400 (or 415 for the wrong type). */
async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const type = req.headers["content-type"] ?? "";
  if (!/^application\/json\b/i.test(type)) {
    throw new Refusal(
      apiError(415, "bad-request", "POST bodies must be JSON (content-type: application/json)"),
    );
  }
  const body = await readBody(req);
  try {
    const value = JSON.parse(body.toString("utf8") || "{}") as unknown;
    if (value && typeof value === "object" && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    /* fall through */
  }
  throw new Refusal(apiError(400, "bad-request", "the request body is not a JSON object"));
}

/**
 * The body up to MAX_BODY_BYTES; past it, a 413 that closes the connection:
 * the rest is drained (up to DRAIN_BYTES, then the socket is cut) rather than left unread,
 * so the client receives the answer instead of a reset, and no keep-alive socket stalls.
 */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      if (size > DRAIN_BYTES) return void req.socket.destroy();
      if (refused) return; // draining
      refused = true;
      chunks.length = 0;
      reject(
        new Refusal(apiError(413, "bad-request", "the request body is too large"), {
          closeConnection: true,
        }),
      );
    };
    req.on("data", onData);
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", reject);
  });
}
