/**
 * A real HTTP reverse proxy on 127.0.0.1 in front of MinIO for the reader tests:
 * it records every request (method, path, query; LIST = GET with list-type=2)
 * and injects faults by rule (503 SlowDown, 500 InternalError, connection reset,
 * a body cut off mid-way). The Host header is forwarded untouched so SigV4 signatures stay valid.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

export interface SeenRequest {
  method: string;
  /** Path without the query, URL-decoded (`/bucket/key`). */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  kind: "list" | "get" | "head" | "put" | "other";
}

export type Fault = "slowdown" | "internal" | "reset" | "cut-body";

export interface FaultRule {
  kind?: SeenRequest["kind"];
  /** Extra match on the request. */
  match?: (r: SeenRequest) => boolean;
  fault: Fault;
  /** How many matching requests get the fault (default 1). */
  times?: number;
}

export interface CountingProxy {
  url: string;
  requests: SeenRequest[];
  /** `prefix=` values of LIST requests, in order. */
  listPrefixes(): string[];
  /** Object keys (path after the bucket) of GET object requests, in order. */
  getKeys(bucket: string): string[];
  count(kind: SeenRequest["kind"]): number;
  addFault(rule: FaultRule): void;
  /** Adds this many ms before forwarding each request (a far region's round trip). */
  setDelay(ms: number): void;
  reset(): void;
  close(): Promise<void>;
}

function kindOf(method: string, query: URLSearchParams): SeenRequest["kind"] {
  if (method === "GET" && query.get("list-type") === "2") return "list";
  if (method === "GET") return "get";
  if (method === "HEAD") return "head";
  if (method === "PUT") return "put";
  return "other";
}

function xmlError(res: ServerResponse, status: number, code: string, message: string): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>proxy</RequestId></Error>`;
  res.writeHead(status, {
    "content-type": "application/xml",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

/** Starts a proxy forwarding to `target` (e.g. the MinIO endpoint). */
export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  const requests: SeenRequest[] = [];
  let rules: (FaultRule & { left: number })[] = [];
  let delayMs = 0;

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://proxy");
    const seen: SeenRequest = {
      method: req.method ?? "GET",
      path: decodeURIComponent(url.pathname),
      query: url.searchParams,
      headers: req.headers,
      kind: kindOf(req.method ?? "GET", url.searchParams),
    };
    requests.push(seen);
    const rule = rules.find(
      (r) => r.left > 0 && (!r.kind || r.kind === seen.kind) && (!r.match || r.match(seen)),
    );
    if (rule) rule.left--;
    if (rule?.fault === "reset") {
      req.socket.destroy();
      return;
    }
    if (rule?.fault === "slowdown")
      return void req
        .resume()
        .once("end", () => xmlError(res, 503, "SlowDown", "Please reduce your request rate."));
    if (rule?.fault === "internal")
      return void req
        .resume()
        .once("end", () =>
          xmlError(res, 500, "InternalError", "We encountered an internal error."),
        );
    if (delayMs > 0) req.pause();
    const forward = () => {
      const up = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (ur) => {
          res.writeHead(ur.statusCode ?? 502, ur.headers);
          if (rule?.fault === "cut-body") {
            // Forward a little of the body, then drop the connection.
            ur.once("data", (chunk: Buffer) => {
              res.write(chunk.subarray(0, Math.max(1, Math.floor(chunk.length / 2))), () =>
                res.socket?.destroy(),
              );
              ur.destroy();
            });
            return;
          }
          ur.pipe(res);
        },
      );
      up.on("error", () => res.socket?.destroy());
      req.pipe(up);
    };
    if (delayMs > 0) setTimeout(forward, delayMs);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    listPrefixes: () =>
      requests.filter((r) => r.kind === "list").map((r) => r.query.get("prefix") ?? ""),
    getKeys: (bucket) =>
      requests.filter((r) => r.kind === "get").map((r) => r.path.replace(`/${bucket}/`, "")),
    count: (kind) => requests.filter((r) => r.kind === kind).length,
    addFault: (rule) => void rules.push({ ...rule, left: rule.times ?? 1 }),
    setDelay: (ms) => void (delayMs = ms),
    reset: () => {
      requests.length = 0;
      rules = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
