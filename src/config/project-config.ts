/**
 * A project's logger config in one call: discover `stowage.config.*` (or take
 * the given file), load it, resolve it. Used by `createLogger()` without an
 * argument, Studio on a project directory, and doctor.
 */
import { processEnv, type Env } from "./env.js";
import { findConfigFile, loadConfigFile } from "./load-config.js";
import { resolveLoggerConfig, type ResolvedLoggerConfig } from "./logger-config.js";

export interface ProjectConfig {
  config: ResolvedLoggerConfig;
  /** The file read, or undefined for the embedded default (local store at `.stowage/store`). */
  file: string | undefined;
  /** E.g. several config files present and which one won. */
  warnings: string[];
}

/**
 * @example const { config, file } = await loadProjectConfig({ cwd: process.cwd() });
 */
export async function loadProjectConfig(
  options: {
    cwd?: string;
    env?: Env;
    file?: string;
    isTTY?: boolean;
    trustedHosts?: readonly string[] | undefined;
  } = {},
): Promise<ProjectConfig> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? processEnv();
  const warnings: string[] = [];
  let file = options.file;
  if (file === undefined) {
    const found = findConfigFile(cwd);
    if (found.warning) warnings.push(found.warning);
    file = found.path;
  }
  if (file === undefined) {
    return {
      config: resolveLoggerConfig(
        {},
        { env, cwd, ...(options.isTTY !== undefined ? { isTTY: options.isTTY } : {}) },
      ),
      file: undefined,
      warnings,
    };
  }
  const loaded = await loadConfigFile(file, { env, cwd });
  const config = resolveLoggerConfig(loaded.data, {
    env,
    cwd,
    origin: loaded.origin,
    file: loaded.path,
    ...(options.isTTY !== undefined ? { isTTY: options.isTTY } : {}),
    trustedHosts: options.trustedHosts,
  });
  return { config, file: loaded.path, warnings };
}
