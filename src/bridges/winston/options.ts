/**
 * `new StowageTransport(options)`: the options, their defaults, and their
 * validation at construction — like `createLogger` validates a config: an unknown
 * key is refused with the closest valid one ("did you mean"), a logger config key
 * given at the top (`s3`, `destination`, …) is pointed into `config`, a value of
 * the wrong type is named. Values are never quoted back (they may hold secrets).
 */
import type TransportStream from "winston-transport";
import { closestKey } from "../../config/keys.js";
import { loggerConfigSchema } from "../../config/logger-schema.js";
import type { Level, LevelName } from "../../record/levels.js";
import { StowageError } from "../../shared/errors.js";
import type { BridgeLoggerOptions } from "../shared/open-logger.js";
import { resolveLevelMap } from "./levels.js";
import { reportToStderr, type BridgeErrorReporter } from "../shared/stderr-report.js";

type WinstonErrorReporter = BridgeErrorReporter;
/** `stowage/winston: <message>` on fd 2 (reported before a `process.exit()` in 'finish' ends the app). */
const stderrReporter: BridgeErrorReporter = (message) => reportToStderr("stowage/winston", message);

type StreamOptions = TransportStream.TransportStreamOptions;

export interface WinstonTransportOptions extends BridgeLoggerOptions {
  /** winston: the most verbose level this transport takes (default: the logger's level). */
  level?: string;
  /** winston: a format applied to this transport's records only. */
  format?: StreamOptions["format"];
  /** winston: take no records. */
  silent?: boolean;
  /** winston: also record uncaught exceptions (winston then exits once this transport has finished). */
  handleExceptions?: boolean;
  /** winston: also record unhandled promise rejections. */
  handleRejections?: boolean;
  /** How long a flush and the close at `logger.end()` wait for delivery (default 30,000 ms). */
  flushTimeoutMs?: number;
  /** Extra or different level mappings: winston level name → Stowage level name (`{ audit: "warning" }`). */
  levelMap?: Record<string, LevelName>;
  /** Where failures are reported (default: stderr, `stowage/winston: …`). */
  onError?: WinstonErrorReporter;
}

export interface ResolvedWinstonOptions {
  logger: BridgeLoggerOptions;
  stream: StreamOptions;
  flushTimeoutMs: number;
  levelMap: Record<string, Level>;
  report: WinstonErrorReporter;
}

const DEFAULT_FLUSH_TIMEOUT_MS = 30_000;
/** Node's timers hold at most 2^31 − 1 ms. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

const CHECKS = {
  config: (v) =>
    typeof v === "string" || (v !== null && typeof v === "object" && !Array.isArray(v)),
  logger: (v) =>
    v !== null && typeof v === "object" && typeof Reflect.get(v, "write") === "function",
  level: (v) => typeof v === "string" && v.length > 0,
  format: (v) =>
    v !== null && typeof v === "object" && typeof Reflect.get(v, "transform") === "function",
  silent: (v) => typeof v === "boolean",
  handleExceptions: (v) => typeof v === "boolean",
  handleRejections: (v) => typeof v === "boolean",
  flushTimeoutMs: (v) =>
    Number.isInteger(v) && (v as number) > 0 && (v as number) <= MAX_TIMEOUT_MS,
  levelMap: (v) => v !== null && typeof v === "object" && !Array.isArray(v),
  onError: (v) => typeof v === "function",
} satisfies Record<keyof WinstonTransportOptions, (v: unknown) => boolean>;

const EXPECTED: Record<keyof typeof CHECKS, string> = {
  config: "a logger config object or a config file path",
  logger: "a Stowage Logger (createLogger())",
  level: "a winston level name",
  format: "a winston format (winston.format.…())",
  silent: "true or false",
  handleExceptions: "true or false",
  handleRejections: "true or false",
  flushTimeoutMs: `a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`,
  levelMap: "an object of winston level name → Stowage level name",
  onError: "a function (message) => void",
};

const VALID = Object.keys(CHECKS);
const CONFIG_KEYS = new Set(Object.keys(loggerConfigSchema.shape));

function fail(message: string): StowageError {
  return new StowageError("config", `stowage/winston: ${message}`, {
    hint: "options: docs/integrations.md#winston-stowagewinston",
  });
}

function unknownKey(key: string): string {
  if (CONFIG_KEYS.has(key))
    return `unknown option \`${key}\`: it is a logger config key; put it inside \`config\` (new StowageTransport({ config: { ${key}: … } }))`;
  const near = closestKey(key, VALID);
  return near
    ? `unknown option \`${key}\`; did you mean \`${near}\`?`
    : `unknown option \`${key}\`; valid options: ${VALID.join(", ")}`;
}

/**
 * @example resolveWinstonOptions({ config: "stowage.config.yaml", level: "debug" }).flushTimeoutMs // 30000
 */
export function resolveWinstonOptions(options: unknown): ResolvedWinstonOptions {
  if (options === undefined) options = {};
  if (options === null || typeof options !== "object" || Array.isArray(options))
    throw fail(`options must be an object, not ${options === null ? "null" : typeof options}`);
  const o = options as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(o)) {
    if (!Object.hasOwn(CHECKS, key)) problems.push(unknownKey(key));
    else if (o[key] !== undefined && !CHECKS[key as keyof typeof CHECKS](o[key]))
      problems.push(`option \`${key}\` must be ${EXPECTED[key as keyof typeof CHECKS]}`);
  }
  if (problems.length === 1) throw fail(problems[0]!);
  if (problems.length > 1) throw fail(`invalid options:\n  - ${problems.join("\n  - ")}`);
  const v = o as WinstonTransportOptions;
  const stream: StreamOptions = {};
  if (v.level !== undefined) stream.level = v.level;
  if (v.format !== undefined) stream.format = v.format;
  if (v.silent !== undefined) stream.silent = v.silent;
  if (v.handleExceptions !== undefined) stream.handleExceptions = v.handleExceptions;
  if (v.handleRejections !== undefined) stream.handleRejections = v.handleRejections;
  const logger: BridgeLoggerOptions = {};
  if (v.logger !== undefined) logger.logger = v.logger;
  if (v.config !== undefined) logger.config = v.config;
  return {
    logger,
    stream,
    flushTimeoutMs: v.flushTimeoutMs ?? DEFAULT_FLUSH_TIMEOUT_MS,
    levelMap: resolveLevelMap(v.levelMap ?? {}),
    report: v.onError ?? stderrReporter,
  };
}
