/**
 * How a bridge gets its Logger: one passed in, an inline config, a config file
 * path (YAML/JSON/TS, read with the endpoint policy of its format), or the
 * `stowage.config.*` of the working directory — all read by createLogger's one
 * config path (createLoggerFrom). With none of these, the bridge says once on
 * stderr where its records go (issue 34 §1): never a silent fallback.
 */
import type { ResolvedLoggerConfig } from "../../config/logger-config.js";
import { createLogger, createLoggerFrom, type LoggerConfig } from "../../logger/create-logger.js";
import type { Logger } from "../../logger/logger.js";
import { StowageError } from "../../shared/errors.js";
import { reportToStderr } from "./stderr-report.js";

/** Where a bridge's logger comes from. */
export interface BridgeLoggerOptions {
  /** A logger built by the application (the bridge then does not own it and never closes it). */
  logger?: Logger;
  /** An inline logger config, or the path of a config file (`.yaml`, `.json`, `.ts`, …). */
  config?: LoggerConfig | string;
}

/** A logger plus whether the bridge owns it (and so must close it). */
export interface OpenedLogger {
  logger: Logger;
  owned: boolean;
}

/** Bridges that already said where their records go (once per process). */
const told = new Set<string>();

/** No config given and no stowage.config.* found: say once, on stderr, where the records go. */
function tellWhereRecordsGo(bridge: string, resolved: ResolvedLoggerConfig): void {
  if (told.has(bridge)) return;
  told.add(bridge);
  const d = resolved.destination;
  const where = d.type === "s3" ? `s3://${d.bucket}/${d.prefix}` : `the local directory ${d.path}`;
  reportToStderr(
    bridge,
    `no config given and no stowage.config.* in ${process.cwd()}: records go to ${where}. Pass \`config\` (an object or a file path), or add a stowage.config.* file`,
  );
}

/**
 * @example const { logger, owned } = openBridgeLogger({ config: "stowage.config.yaml" }, "stowage/pino");
 */
export function openBridgeLogger(
  options: BridgeLoggerOptions = {},
  bridge = "stowage",
): OpenedLogger {
  if (options.logger !== undefined) {
    if (options.config !== undefined)
      throw new StowageError("config", "give either `logger` or `config`, not both");
    return { logger: options.logger, owned: false };
  }
  const { config } = options;
  // The working directory's stowage.config.*, or the embedded default (said once on stderr).
  if (config === undefined)
    return {
      logger: createLoggerFrom({ onEmbeddedDefault: (r) => tellWhereRecordsGo(bridge, r) }),
      owned: true,
    };
  // A file given to a bridge keeps the console echo off by default (its host writes to stdout).
  if (typeof config === "string")
    return { logger: createLoggerFrom({ file: config, isTTY: false }), owned: true };
  if (typeof config !== "object" || config === null)
    throw new StowageError(
      "config",
      `\`config\` must be a logger config object or a config file path, got ${typeof config}`,
    );
  return { logger: createLogger(config), owned: true };
}
