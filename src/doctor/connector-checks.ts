/**
 * Doctor's check of each connector a logger config names (docs/connectors.md): one POST
 * of an empty OTLP logs request to the connector's URL with its headers, as the logger
 * would send them — the receiver is reachable, serves the logs path and accepts the
 * headers. No record is sent; header values never reach the report (http-post scrubs them
 * from every message, the receiver's answer included).
 */
import type { ResolvedConnector } from "../config/connector-config.js";
import { connectorHeaders } from "../connectors/connector-set.js";
import { probeOtlpHttp } from "../connectors/otlp-http.js";
import { classifyError } from "../store/classify-error.js";
import { failureDetail } from "./diagnose.js";
import type { CheckOutcome, ExtraCheck } from "./types.js";

/**
 * One check per connector, run after the destination's probes.
 * @example connectorChecks(config.connectors)[0].name // "Connector errors (OTLP/HTTP 127.0.0.1:4318)"
 */
export function connectorChecks(connectors: readonly ResolvedConnector[]): ExtraCheck[] {
  return connectors.map((r) => ({
    name: `Connector ${r.name} (OTLP/HTTP ${new URL(r.url).host})`,
    async run({ signal, env }): Promise<CheckOutcome> {
      try {
        await probeOtlpHttp(r, connectorHeaders(r, env), signal);
        return { ok: true };
      } catch (err) {
        return connectorFailure(r, err);
      }
    },
  }));
}

/** A failed probe as a doctor verdict, with the step that fixes it. */
function connectorFailure(r: ResolvedConnector, err: unknown): CheckOutcome {
  const c = classifyError(err);
  const detail = failureDetail(c);
  const where = `connectors.${r.name}`;
  const headers = Object.entries(r.headersEnv)
    .map(([h, v]) => `${h} from $${v}`)
    .join(", ");
  if (c.status === 401 || c.status === 403)
    return {
      ok: false,
      category: "auth error",
      detail,
      hint: headers
        ? `the receiver refused the connector's credentials (${headers}): check those variables' values`
        : `the receiver wants credentials: add them under ${where}.headersEnv (header name → environment variable)`,
    };
  if (c.status === 404 || c.status === 405)
    return {
      ok: false,
      category: "config error",
      detail,
      hint: `nothing takes OTLP logs at ${r.url}: ${where}.endpoint is the receiver's base URL (…:4318), Stowage adds /v1/logs`,
    };
  return {
    ok: false,
    category: "connectivity error",
    detail,
    hint:
      c.status === undefined
        ? `is the OTLP receiver running at ${new URL(r.url).host}? Check ${where}.endpoint; the logger itself keeps writing to the bucket while a connector is down`
        : `the receiver answered ${c.status}: see its own logs; the logger keeps writing to the bucket while a connector fails`,
  };
}
