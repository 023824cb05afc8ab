/**
 * Key spelling for config objects: YAML's snake_case aliases → the camelCase
 * the schema uses (remembering what the user wrote, so messages quote it back),
 * and the closest-valid-key suggestion for unknown keys (Levenshtein).
 */
import { StowageError } from "../shared/errors.js";
import { isPlainObject } from "../shared/plain-object.js";

/** Aliases that are not a plain snake→camel spelling change. */
const ALIASES: Record<string, string> = { aws_profile: "profile" };
const REVERSE_ALIASES: Record<string, string> = { profile: "aws_profile" };
const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

/** A path into a config value: object keys and array indexes. */
export type ConfigPath = readonly (string | number)[];

/** What the user actually wrote at each normalised path (only where it differs). */
export type KeyOrigins = Map<string, string>;

export const pathId = (path: ConfigPath): string => JSON.stringify(path);

/** `force_path_style` → `forcePathStyle`; `aws_profile` → `profile`; others unchanged. */
export function toCamelKey(key: string): string {
  // Own lookups only: `__proto__` / `constructor` must not find Object.prototype's members.
  if (Object.hasOwn(ALIASES, key)) return ALIASES[key]!;
  return SNAKE.test(key) ? key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()) : key;
}

/** `forcePathStyle` → `force_path_style`; `profile` → `aws_profile`. */
export function toSnakeKey(key: string): string {
  if (Object.hasOwn(REVERSE_ALIASES, key)) return REVERSE_ALIASES[key]!;
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * Rewrites snake_case keys to camelCase in plain objects and arrays (functions,
 * RegExps and class instances are left alone). Giving both spellings of one key
 * is a config error.
 * @example normaliseKeys({ force_path_style: true }).value // { forcePathStyle: true }
 */
export function normaliseKeys(
  value: unknown,
  where = "",
  origins: KeyOrigins = new Map(),
  base: ConfigPath = [],
): { value: unknown; origins: KeyOrigins } {
  const walk = (v: unknown, path: ConfigPath): unknown => {
    if (Array.isArray(v)) return v.map((item, i) => walk(item, [...path, i]));
    if (!isPlainObject(v)) return v;
    const out: Record<string, unknown> = {};
    const seen = new Map<string, string>();
    for (const [key, child] of Object.entries(v)) {
      const camel = toCamelKey(key);
      const previous = seen.get(camel);
      if (previous !== undefined) {
        throw new StowageError(
          "config",
          `both \`${previous}\` and \`${key}\` are set in ${displayPath(path, origins, where)}; they are the same key, keep one`,
        );
      }
      seen.set(camel, key);
      if (camel !== key) origins.set(pathId([...path, camel]), key);
      // An own data property even for `__proto__`, so it is reported as an unknown key by name.
      Object.defineProperty(out, camel, {
        value: walk(child, [...path, camel]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };
  return { value: walk(value, base), origins };
}

/**
 * Human path as the user spelled it: `s3.delivery`, `exports[0].destination`;
 * `where` prefixes it (the block's location in its file).
 */
export function displayPath(path: ConfigPath, origins: KeyOrigins, where = ""): string {
  let out = where;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    if (typeof seg === "number") out += `[${seg}]`;
    else out += (out ? "." : "") + (origins.get(pathId(path.slice(0, i + 1))) ?? seg);
  }
  return out || "the top level";
}

/** Edit distance (insert, delete, substitute; a transposition costs 1 as in Damerau's variant). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [
    i,
    ...Array<number>(b.length).fill(0),
  ]);
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The valid key closest to `key` (case-insensitive), or undefined when nothing is
 * plausibly what was meant.
 * @example closestKey("bukcet", ["bucket", "prefix"]) // "bucket"
 */
export function closestKey(key: string, valid: readonly string[]): string | undefined {
  const k = toCamelKey(key).toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of valid) {
    const c = candidate.toLowerCase();
    const prefixed = k.length >= 3 && (c.startsWith(k) || k.startsWith(c));
    const dist = prefixed ? Math.min(2, editDistance(k, c)) : editDistance(k, c);
    if (dist < bestDistance) [best, bestDistance] = [candidate, dist];
  }
  return bestDistance <= Math.max(2, Math.floor(k.length / 3)) ? best : undefined;
}

/** Spells `camelKey` the way the user spells keys (snake_case if their key had an underscore). */
export function inUserStyle(camelKey: string, userKey: string): string {
  return userKey.includes("_") ? toSnakeKey(camelKey) : camelKey;
}
