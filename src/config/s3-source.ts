/**
 * An `s3://bucket/prefix` source (the reader's `openSource`, `stowage logs`/`studio`
 * and doctor's `--source`): the URL plus connection fields, resolved like any
 * destination — provider preset, credential source, endpoint policy.
 */
import { StowageError } from "../shared/errors.js";
import { parseDestination, type ResolvedS3Destination } from "./destination.js";
import type { CredentialIdentity, CredentialProvider } from "./destination-schema.js";
import type { Env } from "./env.js";

export interface S3SourceFields {
  region?: string | undefined;
  endpoint?: string | undefined;
  forcePathStyle?: boolean | undefined;
  profile?: string | undefined;
  credentials?: CredentialIdentity | CredentialProvider | undefined;
  accessKeyEnv?: string | undefined;
  secretKeyEnv?: string | undefined;
  sessionTokenEnv?: string | undefined;
  allowAnonymous?: boolean | undefined;
  trustEndpoint?: boolean | undefined;
  trustedHosts?: string[] | undefined;
}

/** The fields that go into the destination block (callers may pass wider objects). */
const CONNECTION_FIELDS = [
  "region",
  "endpoint",
  "forcePathStyle",
  "profile",
  "credentials",
  "accessKeyEnv",
  "secretKeyEnv",
  "sessionTokenEnv",
  "allowAnonymous",
  "trustEndpoint",
] as const satisfies readonly (keyof S3SourceFields)[];

/**
 * @param label how errors name the source ("source", "--source")
 * @example s3SourceDestination("s3://logs/app", { region: "eu-west-1" }, process.env, "source")
 */
export function s3SourceDestination(
  text: string,
  fields: S3SourceFields,
  env: Env,
  label: string,
): ResolvedS3Destination {
  const m = /^s3:\/\/([^/?#]*)(\/[^?#]*)?$/i.exec(text);
  if (!m || !m[1]) {
    throw new StowageError(
      "usage",
      `${label} "${text.slice(0, 80)}" is not an S3 URL; write s3://bucket/prefix`,
    );
  }
  if (m[1].includes("@")) {
    throw new StowageError(
      "usage",
      "an S3 source URL must not contain credentials; pass them with accessKeyEnv/secretKeyEnv, a profile, or the AWS environment",
    );
  }
  for (const name of [fields.accessKeyEnv, fields.secretKeyEnv, fields.sessionTokenEnv]) {
    if (name && !env[name]) {
      throw new StowageError(
        "config",
        `the environment variable ${name} is not set (it should hold an S3 credential)`,
        {
          hint: `export ${name}=… before running, or name the variable that holds it`,
        },
      );
    }
  }
  const raw: Record<string, unknown> = {
    type: "s3",
    bucket: m[1],
    prefix: decodeURIComponent(m[2] ?? ""),
  };
  for (const k of CONNECTION_FIELDS) if (fields[k] !== undefined) raw[k] = fields[k];
  const dest = parseDestination(raw, label, {
    env,
    origin: "code",
    trustedHosts: fields.trustedHosts,
  });
  if (dest.type !== "s3")
    throw new StowageError("internal", "an s3:// source resolved to a non-S3 destination");
  return dest;
}
