/**
 * Resolution of the logger's `connectors` block (docs/connectors.md): names and header
 * names as the user wrote them, defaults filled in, byte sizes parsed, every env
 * reference present (its value is read when the connector is built, never kept here),
 * and the endpoint through the endpoint policy (SPEC §2.3) — stricter than for S3: a
 * connector has no provider default, so every non-loopback host must be trusted.
 */
import type { z } from "zod";
import { parseBytes } from "../shared/bytes.js";
import { StowageError } from "../shared/errors.js";
import { LEVEL_ALIASES, type Level } from "../shared/levels.js";
import { checkEndpoint } from "./endpoint-policy.js";
import { endpointTrust, type Env } from "./env.js";
import { pathId, type KeyOrigins } from "./keys.js";
import type { connectorSchema } from "./logger-schema.js";
import { CONNECTOR_RETRY } from "./retry-defaults.js";

/** Defaults of an OTLP/HTTP connector (docs/connectors.md). */
export const OTLP_HTTP_DEFAULTS = {
  level: "trace" as Level,
  flushIntervalMs: 1_000,
  maxBatchRecords: 512,
  maxBatchBytes: 1024 * 1024,
  maxQueueBytes: 4 * 1024 * 1024,
  requestTimeoutMs: 5_000,
  ...CONNECTOR_RETRY,
  flushTimeoutMs: 5_000,
};

export interface ResolvedOtlpHttpConnector {
  /** The key under `connectors`, as written; also its entry in `flush().destinations`. */
  name: string;
  type: "otlp-http";
  /** The full URL records are POSTed to (…/v1/logs). */
  url: string;
  level: Level;
  /** Header name (as written) → environment variable that holds its value. */
  headersEnv: Record<string, string>;
  flushIntervalMs: number;
  maxBatchRecords: number;
  maxBatchBytes: number;
  maxQueueBytes: number;
  requestTimeoutMs: number;
  maxAttempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  flushTimeoutMs: number;
}

export type ResolvedConnector = ResolvedOtlpHttpConnector;

type ConnectorInput = z.output<typeof connectorSchema>;

export interface ConnectorResolveOptions {
  env: Env;
  origins: KeyOrigins;
  origin: "code" | "data";
  trustedHosts?: readonly string[] | undefined;
}

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the connector sets itself (or the transport owns). */
const RESERVED_HEADERS = new Set([
  "content-type",
  "content-length",
  "content-encoding",
  "host",
  "connection",
  "transfer-encoding",
  "keep-alive",
  "te",
  "upgrade",
]);
/** The longest delay a Node timer takes (2^31 - 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Validates and fills in each connector; throws StowageError("config"|"policy") naming
 * `connectors.<name>.<key>`. Values of env variables never appear in a message.
 * @example resolveConnectors({ errors: { type: "otlp-http", endpoint: "http://127.0.0.1:4318" } }, opts)[0].url
 * // "http://127.0.0.1:4318/v1/logs"
 */
export function resolveConnectors(
  raw: Record<string, ConnectorInput> | undefined,
  options: ConnectorResolveOptions,
): ResolvedConnector[] {
  const out: ResolvedConnector[] = [];
  for (const [key, block] of Object.entries(raw ?? {})) {
    const name = options.origins.get(pathId(["connectors", key])) ?? key;
    const where = `connectors.${name}`;
    if (!NAME.test(name))
      throw new StowageError(
        "config",
        `\`${where}\`: a connector name is a letter then up to 63 letters, digits, "_" or "-" (it becomes the key of flush().destinations)`,
      );
    if (name === "sink")
      throw new StowageError(
        "config",
        '`connectors.sink`: "sink" is the destination\'s entry in flush().destinations; name the connector otherwise',
      );
    try {
      out.push(resolveOtlpHttp(name, key, block, options));
    } catch (err) {
      if (!(err instanceof StowageError)) throw err;
      throw new StowageError(err.code, `${where}: ${err.message}`, { hint: err.hint });
    }
  }
  return out;
}

function resolveOtlpHttp(
  name: string,
  key: string,
  block: ConnectorInput,
  options: ConnectorResolveOptions,
): ResolvedOtlpHttpConnector {
  const d = OTLP_HTTP_DEFAULTS;
  const b = (v: number | string | undefined, fallback: number, k: string) =>
    v === undefined ? fallback : parseBytes(v, k);
  const resolved: ResolvedOtlpHttpConnector = {
    name,
    type: "otlp-http",
    url: connectorUrl(block.endpoint, block.trustEndpoint === true, options),
    level:
      block.level === undefined ? d.level : (LEVEL_ALIASES[block.level] ?? (block.level as Level)),
    headersEnv: headersEnv(key, block.headersEnv, options),
    flushIntervalMs: block.flushIntervalMs ?? d.flushIntervalMs,
    maxBatchRecords: block.maxBatchRecords ?? d.maxBatchRecords,
    maxBatchBytes: b(block.maxBatchBytes, d.maxBatchBytes, "maxBatchBytes"),
    maxQueueBytes: b(block.maxQueueBytes, d.maxQueueBytes, "maxQueueBytes"),
    requestTimeoutMs: block.requestTimeoutMs ?? d.requestTimeoutMs,
    maxAttempts: block.maxAttempts ?? d.maxAttempts,
    initialBackoffMs: block.initialBackoffMs ?? d.initialBackoffMs,
    maxBackoffMs: block.maxBackoffMs ?? d.maxBackoffMs,
    flushTimeoutMs: block.flushTimeoutMs ?? d.flushTimeoutMs,
  };
  if (resolved.initialBackoffMs > resolved.maxBackoffMs)
    throw new StowageError("config", "`initialBackoffMs` must not exceed `maxBackoffMs`");
  if (resolved.maxBatchBytes > resolved.maxQueueBytes)
    throw new StowageError(
      "config",
      "`maxBatchBytes` must not exceed `maxQueueBytes` (a batch must fit in the queue)",
    );
  for (const k of [
    "flushIntervalMs",
    "requestTimeoutMs",
    "initialBackoffMs",
    "maxBackoffMs",
    "flushTimeoutMs",
  ] as const) {
    if (resolved[k] > MAX_TIMER_MS)
      throw new StowageError(
        "config",
        `\`${k}\` is ${resolved[k]} ms, over the ${MAX_TIMER_MS} ms a Node timer can wait; use a smaller value`,
      );
  }
  return resolved;
}

/**
 * The endpoint policy of SPEC §2.3, with no provider exemption: logs and the headers'
 * secrets go to a loopback host, or to a host trusted outside the committed file.
 */
function connectorUrl(
  endpoint: string,
  trustEndpoint: boolean,
  options: ConnectorResolveOptions,
): string {
  const trust = endpointTrust(options.env, options.trustedHosts);
  const fromCode = options.origin === "code" && trustEndpoint;
  let verdict;
  try {
    verdict = checkEndpoint(endpoint, { ...trust, trustEndpoint: fromCode });
  } catch (err) {
    if (!(err instanceof StowageError)) throw err;
    const note =
      options.origin === "data" && trustEndpoint
        ? "\nNote: `trust_endpoint: true` is not honoured in a YAML/JSON file (a data file can change without code review); use 1 or 2."
        : "";
    throw new StowageError(
      err.code,
      err.message.replace(
        "in the destination of a TypeScript",
        "in this connector of a TypeScript",
      ) + note,
      { hint: "see docs/connectors.md and docs/endpoint-policy.md" },
    );
  }
  if (verdict.kind === "default") throw new StowageError("config", "`endpoint` is required");
  if (verdict.kind === "provider" && !fromCode && !isTrusted(verdict.url, trust.trustedHosts)) {
    throw new StowageError(
      "policy",
      `endpoint ${verdict.url.protocol}//${verdict.url.host} refused by the endpoint policy: a connector sends logs and its headers to a receiver, and a storage provider's domain is no exemption there.\n` +
        `Trust the host outside the committed file: STOWAGE_TRUSTED_ENDPOINTS=${verdict.url.hostname}, --trust-endpoint ${verdict.url.hostname}, or trustEndpoint: true in a TypeScript config.`,
      { hint: "see docs/connectors.md" },
    );
  }
  const url = new URL(verdict.url.href);
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = path.endsWith("/v1/logs") ? path : `${path}/v1/logs`;
  return url.href;
}

function isTrusted(url: URL, trusted: readonly string[]): boolean {
  return trusted.some((t) => t === url.host || t === url.hostname);
}

/** Header names as written (YAML keys are not camel-cased here), each env variable present. */
function headersEnv(
  key: string,
  raw: Record<string, string> | undefined,
  options: ConnectorResolveOptions,
): Record<string, string> {
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [normalised, variable] of Object.entries(raw ?? {})) {
    const header =
      options.origins.get(pathId(["connectors", key, "headersEnv", normalised])) ?? normalised;
    const lower = header.toLowerCase();
    if (!HEADER_NAME.test(header))
      throw new StowageError("config", `\`headersEnv\`: "${header}" is not an HTTP header name`);
    if (RESERVED_HEADERS.has(lower))
      throw new StowageError(
        "config",
        `\`headersEnv.${header}\`: the connector sets this header itself; remove it`,
      );
    if (seen.has(lower))
      throw new StowageError("config", `\`headersEnv\`: header "${header}" is given twice`);
    seen.add(lower);
    const value = options.env[variable];
    if (value === undefined || value === "")
      throw new StowageError(
        "config",
        `\`headersEnv.${header}\` names the environment variable ${variable}, which is not set; set it (the value stays out of the config file)`,
      );
    if (/[\r\n\0]/.test(value))
      throw new StowageError(
        "config",
        `\`headersEnv.${header}\`: the environment variable ${variable} holds a line break or NUL, which no header value may contain`,
      );
    out[header] = variable;
  }
  return out;
}
