/**
 * How a bridge gets its Logger: one passed in, an inline config, a config file
 * path (YAML/JSON/TS, read with the endpoint policy of its format), or the
 * `stowage.config.*` of the working directory. With none of these, the bridge says
 * once on stderr where its records go (issue 34 §1): never a silent fallback.
 */
import { findConfigFile, loadConfigFileSync } from "../../config/load-config.js";
import { resolveLoggerConfig } from "../../config/logger-config.js";
import { processEnv } from "../../config/env.js";
import { buildLogger, createLogger, type LoggerConfig } from "../../logger/create-logger.js";
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

/** No config anywhere: the logger is the environment's or the embedded default; say which, once. */
function openUnconfigured(bridge: string): OpenedLogger {
  const env = processEnv();
  const cwd = process.cwd();
  const found = findConfigFile(cwd);
  if (found.path) return { logger: createLogger(), owned: true };
  const resolved = resolveLoggerConfig({}, { env, cwd });
  if (!told.has(bridge)) {
    told.add(bridge);
    const d = resolved.destination;
    const where =
      d.type === "s3" ? `s3://${d.bucket}/${d.prefix}` : `the local directory ${d.path}`;
    reportToStderr(
      bridge,
      `no config given and no stowage.config.* in ${cwd}: records go to ${where}. Pass \`config\` (an object or a file path), or add a stowage.config.* file`,
    );
  }
  return { logger: buildLogger(resolved, env), owned: true };
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
  if (config === undefined) return openUnconfigured(bridge);
  if (typeof config === "string") {
    const env = processEnv();
    const cwd = process.cwd();
    const loaded = loadConfigFileSync(config, { env, cwd });
    const resolved = resolveLoggerConfig(loaded.data ?? {}, {
      env,
      cwd,
      origin: loaded.origin,
      file: loaded.path,
    });
    return { logger: buildLogger(resolved, env), owned: true };
  }
  if (typeof config !== "object" || config === null)
    throw new StowageError(
      "config",
      `\`config\` must be a logger config object or a config file path, got ${typeof config}`,
    );
  return { logger: createLogger(config), owned: true };
}
