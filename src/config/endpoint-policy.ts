/**
 * The endpoint policy (SPEC §2.3), the exfiltration guard: a committed config
 * must not be able to point uploads (and signed requests) at a foreign host.
 * Hosts are compared on the WHATWG-parsed URL, never on the raw string, so
 * `127.0.0.1.evil.com` and `localhost.attacker.com` are not loopback.
 */
import { isIPv4 } from "node:net";
import { StowageError } from "../shared/errors.js";

/**
 * Provider domains allowed over https without being trusted explicitly. AWS is
 * not a domain here: most of `*.amazonaws.com` (API Gateway, EC2 public names,
 * load balancers) is attacker-controllable with valid TLS, so only S3's own
 * host forms pass (`isAwsS3Host`).
 */
export const WELL_KNOWN_PROVIDER_DOMAINS = [
  "r2.cloudflarestorage.com",
  "backblazeb2.com",
  "wasabisys.com",
  "digitaloceanspaces.com",
] as const;
/** Exact hosts (and their subdomains) that are also well known. */
const WELL_KNOWN_EXACT = ["storage.googleapis.com"] as const;

export interface EndpointPolicyOptions {
  /** Hosts trusted outside the committed file: STOWAGE_TRUSTED_ENDPOINTS and --trust-endpoint. */
  trustedHosts: readonly string[];
  /** STOWAGE_ALLOW_HTTP=1: plain http to a trusted non-loopback host. */
  allowHttp: boolean;
  /** `trustEndpoint: true` from a TypeScript config. */
  trustEndpoint: boolean;
}

/** Why an endpoint was allowed. */
export type EndpointVerdict =
  { kind: "default" } | { kind: "loopback" | "provider" | "trusted"; url: URL; host: string };

const stripDot = (h: string) => (h.endsWith(".") ? h.slice(0, -1) : h);

/**
 * True for `localhost`, 127.0.0.0/8, `::1` and IPv4-mapped 127.x, judged on a
 * parsed hostname (`URL.hostname`, IPv6 in brackets or not).
 * @example isLoopbackHost(new URL("http://127.0.0.1.evil.com").hostname) // false
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = stripDot(hostname.toLowerCase()).replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost") return true;
  if (isIPv4(h)) return h.startsWith("127.");
  if (h === "::1") return true;
  const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(h);
  return mapped !== null && parseInt(mapped[1]!, 16) >> 8 === 127;
}

const REGION = "[a-z]{2}(?:-[a-z]+)+-\\d{1,2}";
/**
 * S3's endpoint host forms (docs/endpoint-policy.md lists them): global and
 * regional, legacy dash-region, dualstack, FIPS, access points (incl. FIPS and
 * dualstack), Object Lambda, multi-region access points and S3 Express, each
 * optionally behind a virtual-hosted bucket (or access point) name; `.com.cn` too.
 */
const AWS_S3_HOST = new RegExp(
  "^(?:[a-z0-9][a-z0-9.-]{0,126}\\.)?(?:" +
    [
      "s3",
      "s3-external-1",
      `s3-${REGION}`,
      `s3(?:-fips)?(?:\\.dualstack)?\\.${REGION}`,
      `s3-accesspoint(?:-fips)?(?:\\.dualstack)?\\.${REGION}`,
      `s3-object-lambda(?:-fips)?\\.${REGION}`,
      `s3express-control\\.${REGION}`,
      `s3express-[a-z0-9-]+\\.${REGION}`,
      "accesspoint\\.s3-global",
    ].join("|") +
    ")\\.amazonaws\\.com(?:\\.cn)?$",
);

/**
 * True for an Amazon S3 endpoint host (path- or virtual-hosted); false for the
 * rest of `*.amazonaws.com` (API Gateway, EC2, ELB, ...).
 * @example isAwsS3Host("bucket.s3.eu-west-1.amazonaws.com") // true
 * @example isAwsS3Host("abc.execute-api.us-east-1.amazonaws.com") // false
 */
export function isAwsS3Host(hostname: string): boolean {
  return AWS_S3_HOST.test(stripDot(hostname.toLowerCase()));
}

/** True when `hostname` is an S3 host of AWS or (a subdomain of) a well-known provider domain. */
export function isWellKnownProviderHost(hostname: string): boolean {
  const h = stripDot(hostname.toLowerCase());
  return (
    isAwsS3Host(h) ||
    WELL_KNOWN_PROVIDER_DOMAINS.some((d) => h.endsWith(`.${d}`)) ||
    WELL_KNOWN_EXACT.some((d) => h === d || h.endsWith(`.${d}`))
  );
}

/**
 * Parses a comma-separated host list (`STOWAGE_TRUSTED_ENDPOINTS`): entries may be
 * `host`, `host:port` or a URL; returned lower-case as `host` or `host:port`.
 */
export function parseTrustedHosts(value: string | undefined): string[] {
  const out: string[] = [];
  for (const raw of (value ?? "").split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    try {
      out.push(new URL(entry.includes("://") ? entry : `http://${entry}`).host);
    } catch {
      out.push(entry.toLowerCase());
    }
  }
  return out;
}

function refuse(what: string, why: string, host: string): never {
  throw new StowageError(
    "policy",
    `endpoint ${what} refused by the endpoint policy: ${why}\n` +
      `A committed config that points uploads at another host could send your data and signed requests there, so such hosts must be trusted outside the file.\n` +
      `To allow it, do one of:\n` +
      `  1. set STOWAGE_TRUSTED_ENDPOINTS=${host} in the environment (comma-separated hosts);\n` +
      `  2. pass --trust-endpoint ${host} to the stowage CLI;\n` +
      `  3. set trustEndpoint: true in the destination of a TypeScript config (stowage.config.ts).`,
    { hint: "see docs/endpoint-policy.md" },
  );
}

/**
 * Applies SPEC §2.3 to a configured endpoint. Returns why it is allowed, or throws
 * StowageError("policy") saying what was refused, why, and the ways forward.
 * @example checkEndpoint("http://localhost:9000", { trustedHosts: [], allowHttp: false, trustEndpoint: false }).kind // "loopback"
 */
export function checkEndpoint(
  endpoint: string | undefined,
  options: EndpointPolicyOptions,
): EndpointVerdict {
  if (endpoint === undefined) return { kind: "default" };
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new StowageError(
      "config",
      "`endpoint` is not a URL; write it as https://host[:port] (or http://localhost:9000 for a local MinIO)",
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new StowageError(
      "config",
      `\`endpoint\` must start with https:// or http://, not ${url.protocol}//`,
    );
  }
  if (url.username || url.password) {
    throw new StowageError(
      "policy",
      "`endpoint` must not contain user:password@ — credentials belong in access_key_env/secret_key_env (docs/credentials.md)",
    );
  }
  const shown = `${url.protocol}//${url.host}`;
  if (isLoopbackHost(url.hostname)) return { kind: "loopback", url, host: url.host };
  if (isWellKnownProviderHost(url.hostname)) {
    if (url.protocol !== "https:") {
      throw new StowageError(
        "policy",
        `endpoint ${shown} refused by the endpoint policy: provider endpoints are allowed over https only; write https://${url.host}`,
        { hint: "see docs/endpoint-policy.md" },
      );
    }
    return { kind: "provider", url, host: url.host };
  }
  const trusted =
    options.trustEndpoint ||
    options.trustedHosts.some(
      (t) => t === url.host || t === url.hostname || t === stripDot(url.hostname),
    );
  if (!trusted)
    refuse(
      shown,
      `${url.hostname} is neither a loopback address nor a well-known provider domain.`,
      url.hostname,
    );
  if (url.protocol === "http:" && !options.allowHttp) {
    throw new StowageError(
      "policy",
      `endpoint ${shown} refused by the endpoint policy: ${url.hostname} is trusted but the endpoint uses plain http, so data and signed requests would cross the network unencrypted.\n` +
        `Use https://${url.host}, or set STOWAGE_ALLOW_HTTP=1 to allow http to trusted hosts.`,
      { hint: "see docs/endpoint-policy.md" },
    );
  }
  return { kind: "trusted", url, host: url.host };
}
