/**
 * The bridges' own options are checked like a logger config (issue 34 §1): an unknown key
 * is an error that names it and the closest valid one, never ignored — a mistyped key
 * would otherwise send every record somewhere the app did not mean. A bridge that takes a
 * logger config (`config`) also accepts that config's own keys at the top of its options
 * (the shape users reach for first), as long as `config` is not given as well.
 */
import { closestKey } from "../../config/keys.js";
import type { LoggerConfig } from "../../logger/create-logger.js";
import { StowageError } from "../../shared/errors.js";

/** The top-level keys of a logger config (SPEC §2.0). */
export const LOGGER_CONFIG_KEYS: readonly string[] = Object.freeze([
  "service",
  "level",
  "console",
  "caller",
  "redact",
  "destination",
  "s3",
  "local",
  "studio",
]);

/**
 * Throws StowageError("config") for the first key of `options` not in `known`, naming
 * the closest valid key. `undefined` options are fine.
 * @example checkBridgeOptions("stowage/otel", { timeoutMS: 5 }, ["timeoutMs", "closeLogger"]) // throws: did you mean `timeoutMs`?
 */
export function checkBridgeOptions(
  bridge: string,
  options: unknown,
  known: readonly string[],
  /** Keys a host library adds on its own (never suggested, never refused). */
  added: readonly string[] = [],
): void {
  if (options === undefined) return;
  if (options === null || typeof options !== "object" || Array.isArray(options))
    throw new StowageError("config", `${bridge}: options must be an object`);
  for (const key of Object.keys(options)) {
    if (known.includes(key) || added.includes(key)) continue;
    const near = closestKey(key, known);
    throw new StowageError(
      "config",
      `${bridge}: unknown option \`${key}\`${near ? `; did you mean \`${near}\`?` : ""} (valid: ${known.join(", ")})`,
    );
  }
}

/**
 * The logger config a bridge's options carry: `options.config`, or the logger config keys
 * found at the top of `options` (both at once is an error). Other keys are left to the bridge.
 * @example inlineLoggerConfig("stowage/pino", { destination: "s3", s3: { bucket: "b" } }) // { destination: "s3", s3: { bucket: "b" } }
 */
export function inlineLoggerConfig(
  bridge: string,
  options: Record<string, unknown>,
): LoggerConfig | string | undefined {
  const top = Object.keys(options).filter((k) => LOGGER_CONFIG_KEYS.includes(k));
  if (top.length === 0) return options["config"] as LoggerConfig | string | undefined;
  if (options["config"] !== undefined)
    throw new StowageError(
      "config",
      `${bridge}: logger config keys (${top.join(", ")}) at the top of the options and \`config\` as well; put them all in \`config\`, or give them at the top without \`config\``,
    );
  return Object.fromEntries(top.map((k) => [k, options[k]])) as LoggerConfig;
}
