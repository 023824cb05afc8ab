/**
 * Credential resolution (SPEC §2.2): turns a destination's CredentialsSpec into
 * an AWS SDK identity provider and names the source for doctor. Secret values
 * never appear in a message; a missing variable is named, never echoed.
 *
 * Sources, in the order config resolution picked them:
 * explicit object/function → *_env variables → `profile` (shared config/credentials
 * files via `fromIni`, which covers SSO and credential_process profiles) → the
 * SDK default chain (`fromNodeProviderChain`: env, AWS_PROFILE, SSO, web identity,
 * ECS, instance metadata, refreshed by the SDK) → anonymous (really unsigned).
 */
import { credentialProvidersSdk } from "./aws-sdk.js";
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from "@smithy/types";
import type { CredentialsSpec } from "../config/destination.js";
import { isLoopbackHost } from "../config/endpoint-policy.js";
import type { Env } from "../config/env.js";
import { StowageError } from "../shared/errors.js";

export type CredentialSource = CredentialsSpec["source"];

export interface ResolvedCredentials {
  source: CredentialSource;
  /** Undefined for anonymous (unsigned) access. */
  provider?: AwsCredentialIdentityProvider;
  /** Where the credentials come from, for doctor; names only (variables, profile), never values. */
  description: string;
}

function checked(value: unknown, what: string): AwsCredentialIdentity {
  const v = value as Partial<AwsCredentialIdentity> | null | undefined;
  if (
    !v ||
    typeof v.accessKeyId !== "string" ||
    !v.accessKeyId ||
    typeof v.secretAccessKey !== "string" ||
    !v.secretAccessKey
  ) {
    throw new StowageError("credentials", `${what} did not return {accessKeyId, secretAccessKey}`);
  }
  return v as AwsCredentialIdentity;
}

function fromEnvNames(
  spec: Extract<CredentialsSpec, { source: "env" }>,
  env: Env,
): AwsCredentialIdentity {
  const read = (name: string, key: string) => {
    const value = env[name];
    if (value === undefined || value === "") {
      throw new StowageError(
        "config",
        `the environment variable ${name} (named by ${key}) is not set`,
        {
          hint: `export ${name}=… before running, or point ${key} at the variable that holds it`,
        },
      );
    }
    return value;
  };
  const accessKeyId = read(spec.accessKeyEnv, "access_key_env");
  const secretAccessKey = read(spec.secretKeyEnv, "secret_key_env");
  const sessionToken = spec.sessionTokenEnv
    ? read(spec.sessionTokenEnv, "session_token_env")
    : undefined;
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

/**
 * Names a credential source safely (variable and profile names, never values).
 * @example describeCredentials({ source: "profile", profile: "prod" }) // 'AWS profile "prod"'
 */
export function describeCredentials(spec: CredentialsSpec): string {
  switch (spec.source) {
    case "explicit":
      return typeof spec.credentials === "function"
        ? "explicit credentials function"
        : "explicit credentials object";
    case "env":
      return `environment variables ${[spec.accessKeyEnv, spec.secretKeyEnv, ...(spec.sessionTokenEnv ? [spec.sessionTokenEnv] : [])].join(", ")}`;
    case "profile":
      return `AWS profile "${spec.profile}"`;
    case "default-chain":
      return "AWS SDK default chain";
    case "anonymous":
      return "anonymous, unsigned requests";
  }
}

/**
 * Resolves the credential source of a destination. Throws StowageError("config")
 * for a missing *_env variable or anonymous access to a non-loopback endpoint.
 * Profile and default-chain providers resolve lazily, on the first request.
 * @example resolveCredentials({ source: "env", accessKeyEnv: "AK", secretKeyEnv: "SK" }, { env: process.env }).description
 * // "environment variables AK, SK"
 */
export function resolveCredentials(
  spec: CredentialsSpec,
  options: { env: Env; endpoint?: string | undefined },
): ResolvedCredentials {
  switch (spec.source) {
    case "explicit": {
      const c = spec.credentials;
      if (typeof c === "function") {
        return {
          source: "explicit",
          provider: async () => checked(await c(), "the credentials function"),
          description: describeCredentials(spec),
        };
      }
      const identity = checked(c, "the credentials object");
      return {
        source: "explicit",
        provider: async () => identity,
        description: describeCredentials(spec),
      };
    }
    case "env": {
      const identity = fromEnvNames(spec, options.env);
      return {
        source: "env",
        provider: async () => identity,
        description: describeCredentials(spec),
      };
    }
    case "profile":
      return {
        source: "profile",
        provider: credentialProvidersSdk().fromIni({ profile: spec.profile }),
        description: describeCredentials(spec),
      };
    case "default-chain":
      return {
        source: "default-chain",
        provider: credentialProvidersSdk().fromNodeProviderChain(),
        description: describeCredentials(spec),
      };
    case "anonymous": {
      const host = options.endpoint ? new URL(options.endpoint).hostname : undefined;
      if (!host || !isLoopbackHost(host)) {
        throw new StowageError(
          "config",
          "allowAnonymous (unsigned requests) is only allowed with a loopback endpoint such as http://localhost:9000",
        );
      }
      return { source: "anonymous", description: describeCredentials(spec) };
    }
  }
}
