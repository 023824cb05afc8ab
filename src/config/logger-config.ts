/**
 * Logger config resolution (SPEC §2.0, §3.2 env overrides, §3.5 defaults):
 * raw config (file or object) → ResolvedLoggerConfig with one validated
 * destination, every delivery/grant default filled in and byte sizes parsed.
 */
import { createHash } from "node:crypto";
import type { z } from "zod";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { formatBytes, parseBytes } from "../shared/bytes.js";
import { OBJECT_MAX_DECODED_BYTES } from "../shared/object-limits.js";
import { StowageError } from "../shared/errors.js";
import {
  finishLocalDestination,
  finishS3Destination,
  type ResolvedDestination,
} from "./destination.js";
import { processEnv, type Env } from "./env.js";
import { configErrorMap, configIssuesError } from "./issues.js";
import { normaliseKeys, type KeyOrigins } from "./keys.js";
import {
  LEVEL_ALIASES,
  LEVELS,
  loggerConfigSchema,
  type deliverySchema,
  type Level,
} from "./logger-schema.js";
import { applyEnvOverrides } from "./env-overrides.js";
import { DELIVERY_RETRY } from "./retry-defaults.js";
import { resolveConnectors, type ResolvedConnector } from "./connector-config.js";

/** The embedded default destination: a local-directory store under the working directory. */
export const DEFAULT_LOCAL_PATH = ".stowage/store";

/** The longest delay a Node timer takes (2^31 - 1 ms); longer ones fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** SPEC §3.5 delivery defaults. */
export const DELIVERY_DEFAULTS = {
  flushIntervalMs: 30_000,
  maxBatchBytes: 1024 * 1024,
  maxBatchRecords: 5_000,
  maxQueueBytes: 16 * 1024 * 1024,
  maxRecordBytes: 1024 * 1024,
  concurrency: 2,
  requestTimeoutMs: 10_000,
  ...DELIVERY_RETRY,
  buffer: "memory" as "memory" | "sqlite",
  maxSpoolBytes: 512 * 1024 * 1024,
};

/** SPEC §5.2 allowances per Studio grant. */
export const GRANT_DEFAULTS = {
  downloadBytes: 16 * 1024 * 1024,
  listAttempts: 20,
  getAttempts: 64,
  records: 20_000,
  decodedBytes: 25 * 1024 * 1024,
  maxGrants: 5,
};

export type ResolvedDelivery = typeof DELIVERY_DEFAULTS & { spoolPath: string };
export type ResolvedGrantLimits = typeof GRANT_DEFAULTS;

export interface ResolvedLoggerConfig {
  service?: string;
  level: Level;
  console: "pretty" | "json" | false;
  caller: boolean;
  redact: {
    keys: string[];
    paths: string[];
    patterns: (string | RegExp)[];
    disableDefaults: boolean;
  };
  destination: ResolvedDestination;
  delivery: ResolvedDelivery;
  studio: { s3: ResolvedGrantLimits };
  /** Outbound connectors beside the destination (docs/connectors.md); empty when none. */
  connectors: ResolvedConnector[];
}

export interface ResolveLoggerOptions {
  env?: Env;
  /** Base for relative paths (local store, spool). Default `process.cwd()`. */
  cwd?: string;
  /** Whether stdout is a terminal (decides the default console echo). Default false. */
  isTTY?: boolean;
  /** "data" for YAML/JSON files (see parseDestination). Default "code". */
  origin?: "code" | "data";
  file?: string;
  /** Hosts trusted on the command line. */
  trustedHosts?: readonly string[] | undefined;
}

/**
 * First 16 hex chars of SHA-256 over endpoint, bucket and prefix (SPEC §4 spool file name).
 * @example spoolTargetHash({ type: "s3", bucket: "logs", prefix: "app", ... }) // "3f1c…"
 */
export function spoolTargetHash(dest: ResolvedDestination): string {
  const parts =
    dest.type === "s3"
      ? [dest.endpoint ?? "", dest.bucket, dest.prefix]
      : [`file://${dest.path}`, "", ""];
  return createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 16);
}

function resolvePath(p: string, cwd: string): string {
  if (p === "~" || p.startsWith("~/")) return join(homedir(), p.slice(1));
  return isAbsolute(p) ? p : resolve(cwd, p);
}

type Parsed = z.output<typeof loggerConfigSchema>;
type DeliveryInput = z.output<typeof deliverySchema> | undefined;

function chooseDestination(
  cfg: Parsed,
  options: ResolveLoggerOptions,
  cwd: string,
): { destination: ResolvedDestination; delivery: DeliveryInput } {
  const opts = { ...options, cwd };
  const d = cfg.destination;
  if (d !== undefined && typeof d === "object") {
    if (cfg.s3 !== undefined) {
      throw new StowageError(
        "config",
        `${options.file ? `${options.file}: ` : ""}both \`destination: {type: ...}\` and an \`s3:\` block configure the destination; keep one`,
      );
    }
    if (d.type === "local")
      return { destination: finishLocalDestination(d.path, cwd), delivery: d.delivery };
    const { type: _t, delivery, ...block } = d;
    return { destination: finishS3Destination(block, "destination", opts), delivery };
  }
  const kind = d ?? (cfg.s3 !== undefined ? "s3" : "local");
  if (kind === "local")
    return {
      destination: finishLocalDestination(cfg.local?.path ?? DEFAULT_LOCAL_PATH, cwd),
      delivery: cfg.local?.delivery ?? cfg.s3?.delivery,
    };
  if (!cfg.s3) {
    throw new StowageError(
      "config",
      `${options.file ? `${options.file}: ` : ""}destination is "s3" but there is no \`s3:\` block; add s3: { bucket: ... } or set STOWAGE_S3_BUCKET`,
    );
  }
  const { delivery, ...block } = cfg.s3;
  return { destination: finishS3Destination(block, "s3", opts), delivery };
}

function resolveDelivery(
  d: DeliveryInput,
  dest: ResolvedDestination,
  cwd: string,
): ResolvedDelivery {
  const b = (v: number | string | undefined, fallback: number, key: string) =>
    v === undefined ? fallback : parseBytes(v, `s3.delivery.${key}`);
  const out: ResolvedDelivery = {
    ...DELIVERY_DEFAULTS,
    ...Object.fromEntries(Object.entries(d ?? {}).filter(([, v]) => v !== undefined)),
    maxBatchBytes: b(d?.maxBatchBytes, DELIVERY_DEFAULTS.maxBatchBytes, "maxBatchBytes"),
    maxQueueBytes: b(d?.maxQueueBytes, DELIVERY_DEFAULTS.maxQueueBytes, "maxQueueBytes"),
    maxRecordBytes: b(d?.maxRecordBytes, DELIVERY_DEFAULTS.maxRecordBytes, "maxRecordBytes"),
    maxSpoolBytes: b(d?.maxSpoolBytes, DELIVERY_DEFAULTS.maxSpoolBytes, "maxSpoolBytes"),
    spoolPath: d?.spoolPath
      ? resolvePath(d.spoolPath, cwd)
      : join(homedir(), ".stowage", "s3", `${spoolTargetHash(dest)}.db`),
  };
  if (out.initialBackoffMs > out.maxBackoffMs) {
    throw new StowageError(
      "config",
      "`s3.delivery.initialBackoffMs` must not exceed `maxBackoffMs`",
    );
  }
  // Node's timers hold 32-bit signed milliseconds: a longer delay fires after 1 ms instead
  // (a 30-day flush interval would seal every record at once, a backoff would not wait).
  for (const key of [
    "flushIntervalMs",
    "requestTimeoutMs",
    "initialBackoffMs",
    "maxBackoffMs",
  ] as const) {
    if (out[key] > MAX_TIMER_MS) {
      throw new StowageError(
        "config",
        `\`s3.delivery.${key}\` is ${out[key]} ms, over the ${MAX_TIMER_MS} ms (about 24.8 days) a timer can wait; Node would fire it after 1 ms. Use a smaller value`,
      );
    }
  }
  if (out.maxSpoolBytes < out.maxRecordBytes) {
    throw new StowageError(
      "config",
      `\`s3.delivery.maxSpoolBytes\` (${formatBytes(out.maxSpoolBytes)}) must not be below \`maxRecordBytes\` (${formatBytes(out.maxRecordBytes)}): a record must fit in the spool`,
    );
  }
  // A batch holds up to maxBatchBytes, or one record of up to maxRecordBytes: every reader
  // refuses an object decoded past its cap, so a larger batch would be written and never read.
  for (const key of ["maxBatchBytes", "maxRecordBytes"] as const) {
    if (out[key] > OBJECT_MAX_DECODED_BYTES) {
      throw new StowageError(
        "config",
        `\`s3.delivery.${key}\` is ${formatBytes(out[key])}, over the ${formatBytes(OBJECT_MAX_DECODED_BYTES)} of decoded NDJSON every reader (Studio, \`stowage logs\`, verify) reads per object; a larger object would be written and never read back. Set it to ${formatBytes(OBJECT_MAX_DECODED_BYTES)} or less`,
      );
    }
  }
  if (out.maxRecordBytes > out.maxQueueBytes) {
    throw new StowageError(
      "config",
      "`s3.delivery.maxRecordBytes` must not exceed `maxQueueBytes` (a record must fit in the queue)",
    );
  }
  return out;
}

/**
 * Validates a logger config and fills in every default. With no config at all
 * the destination is the local-directory store at `.stowage/store`.
 * Env overrides: STOWAGE_LEVEL, STOWAGE_CONSOLE, STOWAGE_DESTINATION,
 * STOWAGE_S3_BUCKET, STOWAGE_S3_PREFIX, STOWAGE_S3_REGION, STOWAGE_S3_ENDPOINT.
 * @example resolveLoggerConfig({ s3: { bucket: "logs", region: "eu-west-1" } }, { env: {} }).destination.type // "s3"
 */
export function resolveLoggerConfig(
  raw: unknown = {},
  options: ResolveLoggerOptions = {},
): ResolvedLoggerConfig {
  const env = options.env ?? processEnv();
  const cwd = options.cwd ?? process.cwd();
  const origins: KeyOrigins = new Map();
  const normalised = normaliseKeys(raw ?? {}, "", origins).value;
  const withEnv = applyEnvOverrides(normalised, env, origins);
  const result = loggerConfigSchema.safeParse(withEnv, {
    error: configErrorMap,
    reportInput: true,
  });
  if (!result.success)
    throw configIssuesError(result.error.issues, { origins, file: options.file });
  const cfg = result.data;
  try {
    const { destination, delivery } = chooseDestination(cfg, { ...options, env }, cwd);
    const level =
      cfg.level === undefined ? "info" : (LEVEL_ALIASES[cfg.level] ?? (cfg.level as Level));
    const grants = Object.fromEntries(
      Object.entries(cfg.studio?.s3 ?? {}).filter(([, v]) => v !== undefined),
    );
    return {
      ...(cfg.service ? { service: cfg.service } : {}),
      level: LEVELS.includes(level) ? level : "info",
      console: cfg.console ?? (options.isTTY && env.NODE_ENV !== "production" ? "pretty" : false),
      caller: cfg.caller ?? false,
      redact: {
        keys: cfg.redact?.keys ?? [],
        paths: cfg.redact?.paths ?? [],
        patterns: cfg.redact?.patterns ?? [],
        disableDefaults: cfg.redact?.disableDefaults ?? false,
      },
      destination,
      delivery: resolveDelivery(delivery, destination, cwd),
      studio: {
        s3: {
          ...GRANT_DEFAULTS,
          ...grants,
          downloadBytes: parseBytes(
            cfg.studio?.s3?.downloadBytes ?? GRANT_DEFAULTS.downloadBytes,
            "studio.s3.downloadBytes",
          ),
          decodedBytes: parseBytes(
            cfg.studio?.s3?.decodedBytes ?? GRANT_DEFAULTS.decodedBytes,
            "studio.s3.decodedBytes",
          ),
        },
      },
      connectors: resolveConnectors(cfg.connectors, {
        env,
        origins,
        origin: options.origin ?? "code",
        trustedHosts: options.trustedHosts,
      }),
    };
  } catch (err) {
    // Byte sizes and cross-field checks: name the file like schema errors do.
    const head = options.file ? `${options.file}: ` : "";
    if (!(err instanceof StowageError) || !head || err.message.startsWith(head)) throw err;
    throw new StowageError(err.code, head + err.message, { hint: err.hint });
  }
}
