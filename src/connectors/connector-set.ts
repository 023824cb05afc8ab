/**
 * The logger's connectors as one fan-out (docs/connectors.md): builds them from the
 * resolved config (reading the header values from `env`), offers each accepted record
 * line to every connector whose level it reaches, and flushes or closes them all at once,
 * each within its own bound. A logger without connectors has none of this (`null`).
 */
import type { ResolvedConnector } from "../config/connector-config.js";
import type { Env } from "../config/env.js";
import { LEVEL_VALUES, type Level } from "../record/levels.js";
import type { Connector, ConnectorEventListener, ConnectorResult } from "./connector.js";
import { OtlpHttpConnector } from "./otlp-http.js";

/** Results by connector name: the entries beside `sink` in `flush().destinations`. */
export type ConnectorResults = Record<string, ConnectorResult>;

/**
 * @example
 * const connectors = createConnectors(resolved.connectors, env, resolved.service);
 * connectors?.offer(line, "error");
 * const results = await connectors?.close(5_000);
 */
export class ConnectorSet {
  constructor(private readonly connectors: readonly Connector[]) {}

  /** One accepted, redacted record line, to each connector its level reaches. Never throws. */
  offer(line: string, level: Level): void {
    const value = LEVEL_VALUES[level];
    for (const c of this.connectors) if (value >= c.minLevel) c.offer(line);
  }

  /** Flushes every connector at once; each waits at most its own bound. Never rejects. */
  async flush(timeoutMs: number | undefined): Promise<ConnectorResults> {
    return this.each((c) => c.flush(timeoutMs));
  }

  /** Closes every connector at once (flush within its bound, then release sockets). */
  async close(timeoutMs: number | undefined): Promise<ConnectorResults> {
    return this.each((c) => c.close(timeoutMs));
  }

  private async each(call: (c: Connector) => Promise<ConnectorResult>): Promise<ConnectorResults> {
    const results = await Promise.all(this.connectors.map(call));
    const out: ConnectorResults = {};
    this.connectors.forEach((c, i) => (out[c.name] = results[i]!));
    return out;
  }
}

/**
 * The connectors of a resolved config, or null when there are none (the logger's hot
 * path then pays one null check). Header values are read from `env` here, once.
 */
export function createConnectors(
  resolved: readonly ResolvedConnector[],
  env: Env,
  service: string | undefined,
  onEvent?: ConnectorEventListener,
): ConnectorSet | null {
  if (resolved.length === 0) return null;
  return new ConnectorSet(
    resolved.map(
      (r) => new OtlpHttpConnector({ ...r, service }, connectorHeaders(r, env), onEvent),
    ),
  );
}

/**
 * A connector's header values, read from the environment variables its `headersEnv`
 * names (resolution checked they are set): what the connector and doctor's probe send.
 */
export function connectorHeaders(r: ResolvedConnector, env: Env): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [header, variable] of Object.entries(r.headersEnv))
    headers[header] = env[variable] ?? "";
  return headers;
}
