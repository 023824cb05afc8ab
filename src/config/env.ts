/**
 * The environment as config sees it. This folder is the only place that reads
 * `process.env`; every other module receives `env` explicitly.
 */
import { parseTrustedHosts } from "./endpoint-policy.js";

/** Environment variables, as `process.env` or a test's plain object. */
export type Env = Readonly<Record<string, string | undefined>>;

/** `process.env` (read here, nowhere else). */
export function processEnv(): Env {
  return process.env;
}

/** True for "1", "true", "yes", "on" (any case). */
export function envFlag(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}

/** Endpoint-policy inputs that live outside committed files (SPEC §2.3). */
export interface EndpointTrust {
  trustedHosts: string[];
  allowHttp: boolean;
}

/**
 * STOWAGE_TRUSTED_ENDPOINTS + hosts given on the CLI (`--trust-endpoint`), and STOWAGE_ALLOW_HTTP.
 * @example endpointTrust({ STOWAGE_TRUSTED_ENDPOINTS: "minio.internal" }).trustedHosts // ["minio.internal"]
 */
export function endpointTrust(env: Env, cliHosts: readonly string[] = []): EndpointTrust {
  return {
    trustedHosts: [
      ...parseTrustedHosts(env.STOWAGE_TRUSTED_ENDPOINTS),
      ...parseTrustedHosts(cliHosts.join(",")),
    ],
    allowHttp: envFlag(env.STOWAGE_ALLOW_HTTP),
  };
}
