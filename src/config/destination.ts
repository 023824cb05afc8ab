/**
 * Destination resolution (SPEC §2.1–§2.3): a raw block (TypeScript camelCase or
 * YAML snake_case, logger `s3:` form or export `{type: ...}` form) becomes a
 * validated ResolvedDestination: provider preset applied, prefix normalised,
 * credential source chosen, endpoint policy enforced.
 */
import { isAbsolute, resolve } from "node:path";
import type { z } from "zod";
import { StowageError } from "../shared/errors.js";
import { checkEndpoint, isLoopbackHost } from "./endpoint-policy.js";
import { applyProvider, type ProviderName } from "./providers.js";
import {
  destinationObjectSchema,
  s3BlockSchema,
  type CredentialIdentity,
  type CredentialProvider,
} from "./destination-schema.js";
import { endpointTrust, processEnv, type Env } from "./env.js";
import { configErrorMap, configIssuesError } from "./issues.js";
import { normaliseKeys, type ConfigPath, type KeyOrigins } from "./keys.js";

/** Which credential source a destination uses (SPEC §2.2, in resolution order). */
export type CredentialsSpec =
  | { source: "explicit"; credentials: CredentialIdentity | CredentialProvider }
  | { source: "env"; accessKeyEnv: string; secretKeyEnv: string; sessionTokenEnv?: string }
  | { source: "profile"; profile: string }
  | { source: "default-chain" }
  | { source: "anonymous" };

export interface ResolvedS3Destination {
  type: "s3";
  bucket: string;
  /** Normalised: no leading or trailing `/`, single `/` between parts; "" for none. */
  prefix: string;
  /** Undefined only for AWS without a configured region (the SDK resolves one). */
  region: string | undefined;
  endpoint?: string;
  forcePathStyle: boolean;
  provider?: ProviderName;
  accountId?: string;
  credentials: CredentialsSpec;
  /** `trustEndpoint: true`, honoured only from code (TypeScript/JS config or an object). */
  trustEndpoint: boolean;
  /** Object Lock retention for every object written (docs/retention.md). */
  objectLock?: ObjectLockSpec;
  /** Lifecycle the bucket should apply to this prefix (docs/retention.md). */
  lifecycle?: LifecycleSpec;
}

/** `lifecycle: { expireDays, transitionDays?, transitionStorageClass? }` of a destination. */
export interface LifecycleSpec {
  expireDays: number;
  transitionDays?: number;
  transitionStorageClass?: string;
}

/** `objectLock: { mode, retainDays }` of a destination. */
export interface ObjectLockSpec {
  mode: "GOVERNANCE" | "COMPLIANCE";
  retainDays: number;
}

export interface ResolvedLocalDestination {
  type: "local";
  /** Absolute directory of the local-directory store. */
  path: string;
}

export type ResolvedDestination = ResolvedS3Destination | ResolvedLocalDestination;

export interface DestinationParseOptions {
  env?: Env;
  /** Base for relative local paths. Default `process.cwd()`. */
  cwd?: string;
  /** Hosts trusted on the command line (`--trust-endpoint`). */
  trustedHosts?: readonly string[] | undefined;
  /** "code" for TypeScript/JS configs and objects; "data" for YAML/JSON (no explicit secrets, no trustEndpoint). */
  origin?: "code" | "data";
  /** The file the block came from, for messages. */
  file?: string;
}

/**
 * The longest prefix: S3 keys are at most 1,024 bytes, and the keys Stowage writes under a
 * prefix add up to 128 (a v1 log key adds 86; export keys add the export name and a stamp).
 */
export const MAX_PREFIX_BYTES = 896;

/**
 * Joins and normalises a key prefix.
 * @example normalisePrefix("/logs//orders/") // "logs/orders"
 */
export function normalisePrefix(prefix: string | undefined, where = "prefix"): string {
  const parts = (prefix ?? "").split("/").filter((p) => p !== "");
  if (parts.some((p) => p === "." || p === "..")) {
    throw new StowageError("config", `\`${where}\` must not contain "." or ".." segments`);
  }
  const joined = parts.join("/");
  if (Buffer.byteLength(joined) > MAX_PREFIX_BYTES) {
    throw new StowageError(
      "config",
      `\`${where}\` is ${Buffer.byteLength(joined)} bytes; at most ${MAX_PREFIX_BYTES} bytes of UTF-8 leave room for the keys written under it (S3 keys are limited to 1,024 bytes). Use a shorter prefix`,
    );
  }
  return joined;
}

type S3Block = z.output<typeof s3BlockSchema>;

function credentialsSpec(
  block: S3Block,
  endpoint: string | undefined,
  origin: "code" | "data",
): CredentialsSpec {
  const fail = (m: string) => new StowageError("config", m, { hint: "see docs/credentials.md" });
  const others = [
    block.credentials !== undefined && "credentials",
    (block.accessKeyEnv ?? block.secretKeyEnv ?? block.sessionTokenEnv) !== undefined &&
      "access_key_env/secret_key_env",
    block.profile !== undefined && "profile",
  ].filter(Boolean);
  if (block.allowAnonymous) {
    if (others.length)
      throw fail(
        `allowAnonymous sends unsigned requests, so it cannot be combined with ${others.join(", ")}; remove one`,
      );
    if (!endpoint || !isLoopbackHost(new URL(endpoint).hostname)) {
      throw fail(
        "allowAnonymous is only allowed with a loopback endpoint (localhost, 127.0.0.0/8, ::1) such as a local emulator",
      );
    }
    return { source: "anonymous" };
  }
  if (block.credentials !== undefined) {
    if (origin === "data") {
      throw fail(
        "`credentials` (literal keys) are not accepted in a YAML/JSON file; name environment variables with access_key_env/secret_key_env instead",
      );
    }
    return { source: "explicit", credentials: block.credentials };
  }
  if (
    block.accessKeyEnv !== undefined ||
    block.secretKeyEnv !== undefined ||
    block.sessionTokenEnv !== undefined
  ) {
    if (!block.accessKeyEnv || !block.secretKeyEnv) {
      throw fail(
        "set both accessKeyEnv and secretKeyEnv (access_key_env / secret_key_env in YAML), or neither",
      );
    }
    return {
      source: "env",
      accessKeyEnv: block.accessKeyEnv,
      secretKeyEnv: block.secretKeyEnv,
      ...(block.sessionTokenEnv ? { sessionTokenEnv: block.sessionTokenEnv } : {}),
    };
  }
  if (block.profile !== undefined) return { source: "profile", profile: block.profile };
  return { source: "default-chain" };
}

/**
 * Finishes a schema-valid S3 block: provider preset, prefix, credential source,
 * endpoint policy. Errors are prefixed with the file and block location.
 */
export function finishS3Destination(
  block: S3Block,
  where: string,
  options: DestinationParseOptions = {},
): ResolvedS3Destination {
  const env = options.env ?? processEnv();
  const origin = options.origin ?? "code";
  try {
    const addressing = applyProvider(block);
    addressing.region ??= env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined;
    const trustEndpoint = origin === "code" && block.trustEndpoint === true;
    try {
      checkEndpoint(addressing.endpoint, {
        ...endpointTrust(env, options.trustedHosts),
        trustEndpoint,
      });
    } catch (err) {
      // trust_endpoint is accepted in YAML/JSON for symmetry but not honoured there (§2.3).
      if (!(err instanceof StowageError) || origin !== "data" || !block.trustEndpoint) throw err;
      const note =
        "\nNote: `trust_endpoint: true` is not honoured in a YAML/JSON file (a data file can change without code review); use 1 or 2.";
      throw new StowageError(err.code, err.message + note, { hint: err.hint });
    }
    return {
      type: "s3",
      bucket: block.bucket,
      prefix: normalisePrefix(block.prefix),
      region: addressing.region,
      ...(addressing.endpoint ? { endpoint: addressing.endpoint } : {}),
      forcePathStyle: addressing.forcePathStyle,
      ...(addressing.provider ? { provider: addressing.provider } : {}),
      ...(block.accountId ? { accountId: block.accountId } : {}),
      credentials: credentialsSpec(block, addressing.endpoint, origin),
      trustEndpoint,
      ...(block.objectLock ? { objectLock: { ...block.objectLock } } : {}),
      ...(block.lifecycle ? { lifecycle: lifecycleSpec(block.lifecycle) } : {}),
    };
  } catch (err) {
    if (!(err instanceof StowageError)) throw err;
    const head = `${options.file ? `${options.file}: ` : ""}${where}: `;
    throw new StowageError(err.code, head + err.message, {
      cause: err.cause,
      hint: err.hint,
    });
  }
}

/** Absolute path of a local-directory store. */
export function finishLocalDestination(
  path: string,
  cwd: string | undefined,
): ResolvedLocalDestination {
  return { type: "local", path: isAbsolute(path) ? path : resolve(cwd ?? process.cwd(), path) };
}

/**
 * Validates a destination block and resolves it (SPEC §2.1). Accepts the export
 * form (`{type: "s3"|"local", ...}`) and the logger's `s3:` block (no `type`).
 * Throws StowageError("config") naming the key path, or ("policy") for a refused endpoint.
 * @example
 * parseDestination({ type: "s3", bucket: "logs", prefix: "/app/", endpoint: "http://localhost:9000", force_path_style: true }, "destination")
 * // → { type: "s3", bucket: "logs", prefix: "app", region: "us-east-1", forcePathStyle: true, ... }
 */
export function parseDestination(
  raw: unknown,
  where = "destination",
  options: DestinationParseOptions = {},
): ResolvedDestination {
  const origins: KeyOrigins = new Map();
  const base: ConfigPath = [];
  const { value } = normaliseKeys(raw, where, origins, base);
  const typed = value !== null && typeof value === "object" && "type" in value;
  const schema = typed ? destinationObjectSchema : s3BlockSchema;
  const result = schema.safeParse(value, { error: configErrorMap, reportInput: true });
  if (!result.success)
    throw configIssuesError(result.error.issues, { origins, where, file: options.file });
  const data = result.data;
  if ("type" in data && data.type === "local")
    return finishLocalDestination(data.path, options.cwd);
  const { type: _type, ...block } = data as S3Block & { type?: "s3" };
  return finishS3Destination(block, where, options);
}

function lifecycleSpec(l: {
  expireDays: number;
  transitionDays?: number | undefined;
  transitionStorageClass?: string | undefined;
}): LifecycleSpec {
  if ((l.transitionDays === undefined) !== (l.transitionStorageClass === undefined))
    throw new StowageError(
      "config",
      "lifecycle: transition_days and transition_storage_class go together (e.g. 30 and STANDARD_IA)",
    );
  if (l.transitionDays !== undefined && l.transitionDays >= l.expireDays)
    throw new StowageError(
      "config",
      `lifecycle: transition_days (${l.transitionDays}) must be less than expire_days (${l.expireDays})`,
    );
  return { ...l } as LifecycleSpec;
}
