/**
 * A real HTTP proxy between an S3 client and MinIO that counts requests and
 * injects faults by rule: 503 SlowDown, 500, connection reset, a stall past the
 * client's timeout, or "drop": forward to MinIO, let the write land, then cut
 * the connection without answering (an ambiguous success), "flip": forward and
 * invert the first byte of the response body (bytes corrupted in flight), or
 * "flip-request": the same on the request body, on its way to the server.
 */
import {
  createServer,
  request,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { Socket } from "node:net";

export type FaultAction = "slowdown" | "500" | "reset" | "stall" | "drop" | "flip" | "flip-request";

export interface ProxiedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** "list" | "get" | "put" | "head" | "delete" | "other" */
  kind: string;
  /** 1-based sequence number of this request through the proxy. */
  seq: number;
}

/** Returns the fault to inject for a request, or undefined to forward it. */
export type FaultRule = (req: ProxiedRequest) => FaultAction | undefined;

export interface FaultProxy {
  endpoint: string;
  /** Requests seen, by kind (attempts, including faulted ones). */
  counts: Record<string, number>;
  /** Faults injected, by action. */
  injected: Record<FaultAction, number>;
  log: ProxiedRequest[];
  setRule(rule: FaultRule | undefined): void;
  close(): Promise<void>;
}

function kindOf(method: string, path: string, query: URLSearchParams): string {
  const isBucketRoot = path.split("/").filter(Boolean).length <= 1;
  if (method === "GET" && isBucketRoot && (query.has("list-type") || query.has("prefix")))
    return "list";
  if (method === "GET") return "get";
  if (method === "PUT") return "put";
  if (method === "HEAD") return "head";
  if (method === "DELETE") return "delete";
  return "other";
}

/** Forwards `from` to `to` with the first byte inverted (bytes corrupted in flight). */
function flipFirstByte(from: NodeJS.ReadableStream, to: NodeJS.WritableStream): void {
  let flipped = false;
  from.on("data", (chunk: Buffer) => {
    if (!flipped && chunk.length > 0) {
      chunk = Buffer.from(chunk);
      chunk[0] = chunk[0]! ^ 0xff;
      flipped = true;
    }
    to.write(chunk);
  });
  from.on("end", () => to.end());
}

const XML = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;

/** Starts a proxy to `target` (e.g. the MinIO endpoint) on a free loopback port. */
export async function startFaultProxy(target: string, rule?: FaultRule): Promise<FaultProxy> {
  const upstream = new URL(target);
  let current = rule;
  let seq = 0;
  const counts: Record<string, number> = {};
  const injected: Record<FaultAction, number> = {
    slowdown: 0,
    "500": 0,
    reset: 0,
    stall: 0,
    drop: 0,
    flip: 0,
    "flip-request": 0,
  };
  const log: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://x");
    const info: ProxiedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      kind: kindOf(req.method ?? "GET", url.pathname, url.searchParams),
      seq: ++seq,
    };
    log.push(info);
    counts[info.kind] = (counts[info.kind] ?? 0) + 1;
    const action = current?.(info);
    if (action) injected[action]++;
    if (action === "slowdown" || action === "500") {
      req.resume();
      req.on("end", () => {
        const status = action === "slowdown" ? 503 : 500;
        const body =
          action === "slowdown"
            ? XML("SlowDown", "Please reduce your request rate.")
            : XML("InternalError", "We encountered an internal error.");
        res.writeHead(status, {
          "content-type": "application/xml",
          "content-length": Buffer.byteLength(body),
        });
        res.end(body);
      });
      return;
    }
    if (action === "reset") {
      if (typeof req.socket.resetAndDestroy === "function") req.socket.resetAndDestroy();
      else req.socket.destroy();
      return;
    }
    if (action === "stall") {
      req.resume(); // hold the connection, never answer; the client's timeout fires
      return;
    }
    const up = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (upRes) => {
        if (action === "drop") {
          upRes.resume();
          upRes.on("end", () => req.socket.destroy());
          return;
        }
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        if (action === "flip") flipFirstByte(upRes, res);
        else upRes.pipe(res);
      },
    );
    up.on("error", () => req.socket.destroy());
    if (action === "flip-request") flipFirstByte(req, up);
    else req.pipe(up);
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    counts,
    injected,
    log,
    setRule: (r) => {
      current = r;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A rule that injects `action` into a random share of matching requests (deterministic by seed). */
export function randomFaults(
  rate: number,
  actions: FaultAction[],
  options: { seed?: number; kinds?: string[] } = {},
): FaultRule {
  let state = options.seed ?? 42;
  const rand = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  return (req) => {
    if (options.kinds && !options.kinds.includes(req.kind)) return undefined;
    if (rand() >= rate) return undefined;
    return actions[Math.floor(rand() * actions.length)];
  };
}
