/**
 * winston level names → Stowage levels: the npm, syslog and cli level sets by
 * name, the transport's `levelMap` over them, and custom levels by their rank
 * among the logger's levels (the nearest more severe level that has a mapping).
 */
import { parseLevel, type Level } from "../../record/levels.js";

/**
 * Known winston level names. `http` → info: Stowage's own HTTP adapters write their
 * request records at info, and under the default config level (info) a debug mapping
 * would silently keep none of them.
 */
export const WINSTON_LEVELS: Readonly<Record<string, Level>> = Object.freeze({
  // npm (winston's default): error 0 … silly 6
  error: "error",
  warn: "warning",
  info: "info",
  http: "info",
  verbose: "debug",
  debug: "debug",
  silly: "trace",
  // syslog (winston.config.syslog.levels): emerg 0 … debug 7
  emerg: "critical",
  alert: "critical",
  crit: "critical",
  warning: "warning",
  notice: "info",
  // cli (winston.config.cli.levels): help, data, prompt, input between the npm ones
  help: "info",
  data: "info",
  prompt: "debug",
  input: "trace",
  // names custom level sets often use
  fatal: "critical",
  critical: "critical",
  success: "success",
  trace: "trace",
});

/** winston's `levels` object: name → rank, 0 the most severe. */
export type WinstonLevels = Readonly<Record<string, number>>;

/** Maps level names, caching each answer (a logger has a handful of names). */
export class LevelMapper {
  private readonly cache = new Map<string, Level>();

  /** @param overrides the transport's `levelMap`, already validated. */
  constructor(private readonly overrides: Readonly<Record<string, Level>> = {}) {}

  /**
   * @param levels the logger's levels (they rank a custom name); undefined before the transport is added.
   * @example new LevelMapper().map("verbose", undefined) // "debug"
   */
  map(name: unknown, levels: WinstonLevels | undefined): Level {
    const key = typeof name === "string" ? name : String(name);
    let level = this.cache.get(key);
    if (level === undefined) {
      level = this.resolve(key, levels);
      if (this.cache.size < 256) this.cache.set(key, level);
    }
    return level;
  }

  private known(name: string): Level | undefined {
    if (Object.hasOwn(this.overrides, name)) return this.overrides[name];
    return Object.hasOwn(WINSTON_LEVELS, name) ? WINSTON_LEVELS[name] : undefined;
  }

  private resolve(name: string, levels: WinstonLevels | undefined): Level {
    const direct = this.known(name);
    if (direct !== undefined) return direct;
    const rank = levels && Object.hasOwn(levels, name) ? levels[name] : undefined;
    if (rank === undefined || levels === undefined) return "info";
    // A custom name takes the mapping of the nearest more severe (lower ranked) named level.
    let best: { rank: number; level: Level } | undefined;
    for (const [other, r] of Object.entries(levels)) {
      const level = this.known(other);
      if (level === undefined || r > rank || (best && r <= best.rank)) continue;
      best = { rank: r, level };
    }
    return best?.level ?? "info";
  }
}

/**
 * Parses a `levelMap` option's values: winston level name → Stowage level name (aliases allowed).
 * @example resolveLevelMap({ audit: "warn" }) // { audit: "warning" }
 */
export function resolveLevelMap(map: Readonly<Record<string, unknown>>): Record<string, Level> {
  const out: Record<string, Level> = {};
  for (const [name, value] of Object.entries(map))
    out[name] = parseLevel(value, `stowage/winston option \`levelMap.${name}\``);
  return out;
}
