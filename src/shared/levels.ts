/**
 * Log levels (§3.1): the seven ordered level names, their numeric values, the
 * two aliases, and `parseLevel` for config and runtime input.
 */
import { StowageError } from "./errors.js";

/** The canonical levels, least to most severe. */
export const LEVELS = [
  "trace",
  "debug",
  "info",
  "success",
  "warning",
  "error",
  "critical",
] as const;

/** A canonical level name as written into records. */
export type Level = (typeof LEVELS)[number];

/** Accepted input names: the canonical levels plus the aliases `warn` and `fatal`. */
export type LevelName = Level | "warn" | "fatal";

/**
 * Numeric value of each level; higher is more severe. Spaced like pino's so a
 * custom level could slot in later (`success` sits between `info` and `warning`).
 */
export const LEVEL_VALUES: Readonly<Record<Level, number>> = Object.freeze({
  trace: 10,
  debug: 20,
  info: 30,
  success: 35,
  warning: 40,
  error: 50,
  critical: 60,
});

/** Aliases accepted everywhere a level name is: `warn` → `warning`, `fatal` → `critical`. */
export const LEVEL_ALIASES: Readonly<Record<string, Level>> = Object.freeze({
  warn: "warning",
  fatal: "critical",
});

/** True when `name` is a canonical level name (aliases excluded). */
export function isLevel(name: unknown): name is Level {
  return typeof name === "string" && Object.hasOwn(LEVEL_VALUES, name);
}

/**
 * Resolves a level name or alias (case-insensitive, surrounding spaces ignored)
 * to its canonical level. Throws StowageError("config") listing the valid names.
 * @example parseLevel("WARN") // "warning"
 */
export function parseLevel(name: unknown, what = "level"): Level {
  if (typeof name === "string") {
    const n = name.trim().toLowerCase();
    if (isLevel(n)) return n;
    const alias = Object.hasOwn(LEVEL_ALIASES, n) ? LEVEL_ALIASES[n] : undefined;
    if (alias !== undefined) return alias;
  }
  const shown = typeof name === "string" ? `"${name.slice(0, 40)}"` : typeof name;
  throw new StowageError(
    "config",
    `${what}: ${shown} is not a log level; use one of ${LEVELS.join(", ")} (aliases: warn, fatal)`,
  );
}

/**
 * Numeric value of a level or alias.
 * @example levelValue("fatal") // 60
 */
export function levelValue(name: LevelName): number {
  return LEVEL_VALUES[parseLevel(name)];
}

/**
 * True when a record at `level` passes a `threshold` (both canonical).
 * @example isLevelEnabled("error", "warning") // true
 */
export function isLevelEnabled(level: Level, threshold: Level): boolean {
  return LEVEL_VALUES[level] >= LEVEL_VALUES[threshold];
}
