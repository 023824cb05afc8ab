/**
 * Provider presets (SPEC §2.1 `provider`): what `aws`, `r2`, `minio`, `b2` and
 * `wasabi` imply for region, endpoint and addressing style. Explicit settings
 * always win; a custom endpoint of no known provider is addressed path-style.
 */
import { StowageError } from "../shared/errors.js";
import { isLoopbackHost, isWellKnownProviderHost } from "./endpoint-policy.js";

export type ProviderName = "aws" | "r2" | "minio" | "b2" | "wasabi";

/** Every preset name, for the schema and messages. */
export const PROVIDER_NAMES = ["aws", "r2", "minio", "b2", "wasabi"] as const;

export interface AddressingInput {
  provider?: ProviderName | undefined;
  accountId?: string | undefined;
  region?: string | undefined;
  endpoint?: string | undefined;
  forcePathStyle?: boolean | undefined;
}

export interface Addressing {
  provider?: ProviderName;
  region?: string | undefined;
  endpoint?: string;
  forcePathStyle: boolean;
}

/**
 * The R2 S3 endpoint of a Cloudflare account.
 * @example r2Endpoint("abc123") // "https://abc123.r2.cloudflarestorage.com"
 */
export function r2Endpoint(accountId: string): string {
  return `https://${accountId.toLowerCase()}.r2.cloudflarestorage.com`;
}

/**
 * The Backblaze B2 S3 endpoint of a region (`us-west-004`, `eu-central-003`, ...).
 * @example b2Endpoint("us-west-004") // "https://s3.us-west-004.backblazeb2.com"
 */
export function b2Endpoint(region: string): string {
  return `https://s3.${region}.backblazeb2.com`;
}

/**
 * The Wasabi S3 endpoint of a region.
 * @example wasabiEndpoint("eu-central-1") // "https://s3.eu-central-1.wasabisys.com"
 */
export function wasabiEndpoint(region: string): string {
  return `https://s3.${region}.wasabisys.com`;
}

/**
 * Path style for a custom endpoint without a provider: only hosts known to serve
 * virtual-hosted buckets (`<bucket>.<host>`) get virtual hosting; anything else
 * (localhost, a self-hosted MinIO/Ceph/Garage) would need wildcard DNS, which it
 * rarely has, so `bucket.localhost` → ENOTFOUND is avoided.
 * @example defaultPathStyle("http://localhost:9000") // true
 */
export function defaultPathStyle(endpoint: string): boolean {
  let host: string;
  try {
    host = new URL(endpoint).hostname;
  } catch {
    return true; // the endpoint policy reports the bad URL
  }
  return isLoopbackHost(host) || !isWellKnownProviderHost(host);
}

/**
 * Applies a provider preset; throws StowageError("config") when one is incomplete.
 * - aws: nothing implied (the SDK's endpoint for the region);
 * - r2: needs `accountId`; region `auto`; endpoint https://<accountId>.r2.cloudflarestorage.com;
 * - minio: path-style addressing; needs `endpoint`;
 * - b2: needs `region`; endpoint https://s3.<region>.backblazeb2.com;
 * - wasabi: region default us-east-1; endpoint https://s3.<region>.wasabisys.com;
 * - no provider: a custom endpoint defaults to region us-east-1 (S3-compatible
 *   servers accept it and SigV4 needs one) and to path style unless its host is
 *   a known virtual-hosting provider.
 * @example applyProvider({ provider: "r2", accountId: "abc" }).region // "auto"
 */
export function applyProvider(input: AddressingInput): Addressing {
  const { provider, accountId } = input;
  if (accountId !== undefined && provider !== "r2") {
    throw new StowageError(
      "config",
      `\`accountId\` is only used with provider: r2; add \`provider: r2\` or remove it`,
    );
  }
  const out: Addressing = { forcePathStyle: input.forcePathStyle ?? false };
  if (provider) out.provider = provider;
  if (input.region) out.region = input.region;
  if (input.endpoint) out.endpoint = input.endpoint;
  switch (provider) {
    case "r2":
      if (!accountId) {
        throw new StowageError(
          "config",
          `provider r2 needs \`accountId\` (your Cloudflare account id) to build the endpoint`,
        );
      }
      out.region ??= "auto";
      out.endpoint ??= r2Endpoint(accountId);
      break;
    case "minio":
      if (!input.endpoint) {
        throw new StowageError(
          "config",
          `provider minio needs \`endpoint\`, e.g. http://localhost:9000`,
        );
      }
      out.forcePathStyle = input.forcePathStyle ?? true;
      out.region ??= "us-east-1";
      break;
    case "b2":
      if (!input.region) {
        throw new StowageError(
          "config",
          "provider b2 needs `region` (the part of your bucket's S3 endpoint after `s3.`, e.g. us-west-004)",
        );
      }
      out.endpoint ??= b2Endpoint(input.region);
      break;
    case "wasabi":
      out.region ??= "us-east-1";
      out.endpoint ??= wasabiEndpoint(out.region);
      break;
    case "aws":
      break;
    default:
      if (input.endpoint) {
        out.region ??= "us-east-1";
        out.forcePathStyle = input.forcePathStyle ?? defaultPathStyle(input.endpoint);
      } else out.provider = "aws";
  }
  return out;
}

/**
 * The endpoint a destination's requests go to, for doctor: the configured one
 * (pinned: AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_S3 and a profile's endpoint_url
 * never override it) or AWS's regional S3 endpoint, with the addressing style.
 * @example describeEndpoint({ endpoint: "http://localhost:9000", forcePathStyle: true }) // "http://localhost:9000 (path-style)"
 */
export function describeEndpoint(d: {
  endpoint?: string | undefined;
  region?: string | undefined;
  forcePathStyle: boolean;
}): string {
  const style = d.forcePathStyle ? "path-style" : "virtual-hosted";
  if (d.endpoint) {
    let origin = d.endpoint;
    try {
      origin = new URL(d.endpoint).origin;
    } catch {
      // shown as configured
    }
    return `${origin} (${style})`;
  }
  const host = d.region ? `s3.${d.region}.amazonaws.com` : "s3.<region>.amazonaws.com";
  return `https://${host} (AWS, ${style}; AWS_ENDPOINT_URL* and profile endpoint_url ignored)`;
}
