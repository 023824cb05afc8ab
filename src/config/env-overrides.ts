/**
 * Deployment overrides from the environment (SPEC §3.2): STOWAGE_LEVEL,
 * STOWAGE_CONSOLE, STOWAGE_DESTINATION and STOWAGE_S3_{BUCKET,PREFIX,REGION,ENDPOINT}
 * are laid over the (key-normalised) config before validation, so the same
 * checks — the endpoint policy included — apply to them.
 */
import { StowageError } from "../shared/errors.js";
import type { Env } from "./env.js";
import { pathId, type KeyOrigins } from "./keys.js";
import { LEVEL_ALIASES, LEVELS } from "./logger-schema.js";

const S3_OVERRIDES = [
  ["STOWAGE_S3_BUCKET", "bucket"],
  ["STOWAGE_S3_PREFIX", "prefix"],
  ["STOWAGE_S3_REGION", "region"],
  ["STOWAGE_S3_ENDPOINT", "endpoint"],
] as const;

const CONSOLE_VALUES: Record<string, "pretty" | "json" | false> = {
  pretty: "pretty",
  json: "json",
  false: false,
  off: false,
  none: false,
  "0": false,
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
const set = (v: string | undefined) => (v !== undefined && v.trim() !== "" ? v.trim() : undefined);

/**
 * Returns a copy of `config` with the environment's overrides applied; origins
 * learn that e.g. `s3.bucket` came from STOWAGE_S3_BUCKET (for messages).
 * @example applyEnvOverrides({}, { STOWAGE_LEVEL: "debug" }, new Map()) // { level: "debug" }
 */
export function applyEnvOverrides(config: unknown, env: Env, origins: KeyOrigins): unknown {
  if (!isObject(config)) return config;
  const out: Record<string, unknown> = { ...config };
  const level = set(env.STOWAGE_LEVEL)?.toLowerCase();
  if (level !== undefined) {
    if (!(LEVELS as readonly string[]).includes(level) && !(level in LEVEL_ALIASES)) {
      throw new StowageError(
        "config",
        `STOWAGE_LEVEL must be one of ${LEVELS.join(", ")} (or warn, fatal)`,
      );
    }
    out.level = level;
  }
  const consoleValue = set(env.STOWAGE_CONSOLE)?.toLowerCase();
  if (consoleValue !== undefined) {
    if (!(consoleValue in CONSOLE_VALUES))
      throw new StowageError("config", "STOWAGE_CONSOLE must be pretty, json or false");
    out.console = CONSOLE_VALUES[consoleValue];
  }
  const destination = set(env.STOWAGE_DESTINATION)?.toLowerCase();
  if (destination !== undefined) {
    if (destination !== "s3" && destination !== "local")
      throw new StowageError("config", "STOWAGE_DESTINATION must be s3 or local");
    const current = out.destination;
    if (!(isObject(current) && current.type === destination)) out.destination = destination;
  }
  const overrides = S3_OVERRIDES.filter(([name]) => set(env[name]) !== undefined);
  if (overrides.length) {
    const inObject = isObject(out.destination) && out.destination.type === "s3";
    const blockKey = inObject ? "destination" : "s3";
    const block: Record<string, unknown> = isObject(out[blockKey])
      ? { ...(out[blockKey] as Record<string, unknown>) }
      : {};
    for (const [name, key] of overrides) {
      block[key] = set(env[name]);
      origins.set(pathId([blockKey, key]), `${key} (from ${name})`);
    }
    out[blockKey] = block;
  }
  return out;
}
