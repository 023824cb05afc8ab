/**
 * Provider presets (SPEC §2.1 `provider`): what `aws`, `r2` and `minio` imply for
 * region, endpoint and addressing style. Explicit settings always win.
 */
import { StowageError } from "../shared/errors.js";

export type ProviderName = "aws" | "r2" | "minio";

export interface AddressingInput {
  provider?: ProviderName | undefined;
  accountId?: string | undefined;
  region?: string | undefined;
  endpoint?: string | undefined;
  forcePathStyle?: boolean | undefined;
}

export interface Addressing {
  provider?: ProviderName;
  region?: string;
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
 * Applies a provider preset; throws StowageError("config") when one is incomplete.
 * - aws: nothing implied (the SDK's endpoint for the region);
 * - r2: needs `accountId`; region `auto`; endpoint https://<accountId>.r2.cloudflarestorage.com;
 * - minio: path-style addressing; needs `endpoint`;
 * - no provider: a custom endpoint defaults to region us-east-1 (S3-compatible
 *   servers accept it and SigV4 needs one).
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
    case "aws":
      break;
    default:
      if (input.endpoint) out.region ??= "us-east-1";
      else out.provider = "aws";
  }
  return out;
}
