/**
 * A real OpenTelemetry Collector for the connector tests (otelcol-binary.ts builds it):
 * the OTLP/HTTP receiver on a free loopback port, the file exporter writing what it
 * received as OTLP/JSON lines into a temp folder, read back as flat log records. And an
 * HTTP proxy in front of it that records each request (headers included) and answers
 * some with a chosen status instead of forwarding them.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { Socket } from "node:net";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findOrBuildOtelcol } from "./otelcol-binary.js";
import { freePort } from "./minio-server.js";

/** One log record as the collector wrote it, with its resource's service.name. */
export interface CollectedRecord {
  service: string | undefined;
  scope: string | undefined;
  timeUnixNano: string;
  severityNumber: number;
  severityText: string;
  body: string | undefined;
  /** Attributes as plain values (intValue as a number, arrays and kvlists unwrapped). */
  attributes: Record<string, unknown>;
  traceId: string | undefined;
  spanId: string | undefined;
}

export interface RunningOtelcol {
  /** `http://127.0.0.1:<port>`: the base URL a connector is given. */
  endpoint: string;
  port: number;
  /** The file exporter's output (OTLP/JSON, one request per line). */
  output: string;
  /** Every record written so far. */
  records(): CollectedRecord[];
  /** Waits until at least `n` records were written (bounded), then returns them all. */
  waitFor(n: number, deadlineMs?: number): Promise<CollectedRecord[]>;
  /** Stops the collector (SIGTERM; the file exporter flushes). The output stays readable. */
  stop(): Promise<void>;
  /** Starts it again on the same port and file. */
  restart(): Promise<void>;
  /** Stops it and removes its folder. */
  dispose(): Promise<void>;
}

type AnyValue = Record<string, unknown>;

function plain(v: AnyValue | undefined): unknown {
  if (v === undefined) return undefined;
  if ("stringValue" in v) return v.stringValue;
  if ("boolValue" in v) return v.boolValue;
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return v.doubleValue;
  if ("arrayValue" in v)
    return ((v.arrayValue as { values?: AnyValue[] }).values ?? []).map((x) => plain(x));
  if ("kvlistValue" in v)
    return Object.fromEntries(
      ((v.kvlistValue as { values?: { key: string; value: AnyValue }[] }).values ?? []).map(
        (kv) => [kv.key, plain(kv.value)],
      ),
    );
  return null;
}

const kvs = (list: { key: string; value: AnyValue }[] | undefined) =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));

/** Parses the file exporter's JSON lines into flat records. */
export function readCollected(path: string): CollectedRecord[] {
  if (!existsSync(path)) return [];
  const out: CollectedRecord[] = [];
  // The last piece is a line still being written (or ""): only whole lines are read.
  for (const line of readFileSync(path, "utf8").split("\n").slice(0, -1)) {
    if (!line.trim()) continue;
    const req = JSON.parse(line) as { resourceLogs?: Record<string, unknown>[] };
    for (const rl of req.resourceLogs ?? []) {
      const resource = kvs(
        (rl.resource as { attributes?: { key: string; value: AnyValue }[] } | undefined)
          ?.attributes,
      );
      for (const sl of (rl.scopeLogs as Record<string, unknown>[] | undefined) ?? []) {
        const scope = (sl.scope as { name?: string } | undefined)?.name;
        for (const r of (sl.logRecords as Record<string, unknown>[] | undefined) ?? []) {
          out.push({
            service: resource["service.name"] as string | undefined,
            scope,
            timeUnixNano: String(r.timeUnixNano ?? "0"),
            severityNumber: Number(r.severityNumber ?? 0),
            severityText: String(r.severityText ?? ""),
            body: plain(r.body as AnyValue | undefined) as string | undefined,
            attributes: kvs(r.attributes as { key: string; value: AnyValue }[] | undefined),
            traceId: (r.traceId as string | undefined) || undefined,
            spanId: (r.spanId as string | undefined) || undefined,
          });
        }
      }
    }
  }
  return out;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, "127.0.0.1");
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts a collector: OTLP/HTTP on a free loopback port, the file exporter into a temp folder. */
export async function startOtelcol(): Promise<RunningOtelcol> {
  const bin = findOrBuildOtelcol((l) => console.log(l));
  const dir = mkdtempSync(join(tmpdir(), "stowage-otelcol-"));
  const port = await freePort();
  const output = join(dir, "logs.jsonl");
  const config = join(dir, "config.yaml");
  writeFileSync(
    config,
    [
      "receivers:",
      "  otlp:",
      "    protocols:",
      "      http:",
      `        endpoint: 127.0.0.1:${port}`,
      "exporters:",
      "  file:",
      `    path: ${output}`,
      "    flush_interval: 50ms",
      "    append: true", // a restart keeps what was written before
      "service:",
      "  telemetry:",
      "    metrics:",
      "      level: none", // no :8888 listener: several collectors run at once
      "    logs:",
      "      level: warn",
      "  pipelines:",
      "    logs:",
      "      receivers: [otlp]",
      "      exporters: [file]",
      "",
    ].join("\n"),
  );
  let child: ChildProcess | undefined;
  let out = "";
  const start = async () => {
    out = "";
    const c = spawn(bin, [`--config=file:${config}`], { stdio: ["ignore", "pipe", "pipe"] });
    c.stdout?.on("data", (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
    c.stderr?.on("data", (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
    child = c;
    for (let i = 0; i < 600; i++) {
      if (c.exitCode !== null) throw new Error(`otelcol exited with ${c.exitCode}:\n${out}`);
      if (await portOpen(port)) return;
      await pause(50);
    }
    c.kill("SIGKILL");
    throw new Error(`otelcol did not listen on ${port} within 30 s:\n${out}`);
  };
  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once("exit", r));
    c.kill("SIGTERM");
    const killer = setTimeout(() => c.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(killer);
  };
  await start();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    output,
    records: () => readCollected(output),
    async waitFor(n, deadlineMs = 20_000) {
      const until = Date.now() + deadlineMs;
      for (;;) {
        const got = readCollected(output);
        if (got.length >= n || Date.now() > until) return got;
        await pause(50);
      }
    },
    stop,
    restart: start,
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One request through the proxy. */
export interface ProxiedOtlpRequest {
  seq: number;
  headers: IncomingHttpHeaders;
  bytes: number;
  /** The status the proxy answered itself, "stall" (never answered), or "forwarded". */
  answer: number | "stall" | "forwarded";
}

/**
 * What the proxy answers instead of the collector (undefined: forward; "stall": never
 * answer; `forward: true`: forward, then answer this instead of the collector's answer).
 */
export type OtlpAnswer =
  { status: number; headers?: Record<string, string>; body?: string; forward?: boolean } | "stall";

export interface OtlpProxy {
  endpoint: string;
  requests: ProxiedOtlpRequest[];
  setRule(rule: (seq: number, req: IncomingMessage) => OtlpAnswer | undefined): void;
  close(): Promise<void>;
}

/** An HTTP proxy in front of the collector that records requests and answers some itself. */
export async function startOtlpProxy(target: string): Promise<OtlpProxy> {
  const upstream = new URL(target);
  let rule: (seq: number, req: IncomingMessage) => OtlpAnswer | undefined = () => undefined;
  const requests: ProxiedOtlpRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const seq = requests.length + 1;
      const answer = rule(seq, req);
      const shown =
        answer === "stall" ? "stall" : answer && !answer.forward ? answer.status : "forwarded";
      requests.push({ seq, headers: req.headers, bytes: body.length, answer: shown });
      if (answer === "stall") return; // the socket is destroyed by close()
      const reply = (a: Exclude<OtlpAnswer, "stall">) => {
        res.writeHead(a.status, { "content-type": "application/json", ...a.headers });
        res.end(a.body ?? "");
      };
      if (answer && !answer.forward) return reply(answer);
      const fwd = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (up) => {
          if (answer) {
            up.resume();
            up.on("end", () => reply(answer));
            return;
          }
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      fwd.on("error", () => res.destroy());
      fwd.end(body);
    });
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    setRule: (r) => void (rule = r),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
