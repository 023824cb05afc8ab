/**
 * Custom redaction paths (§3.3): dot paths from the record root with `*` (one
 * segment) and `**` (any number of segments, zero included), compiled once and
 * matched incrementally while the serialiser walks the record (no second walk).
 */
import { RECORD_FIELDS as FIELDS } from "./fields.js";
import { StowageError } from "../shared/errors.js";

/** A compiled path: its segments; consecutive `**` collapsed into one. */
export type CompiledPath = readonly string[];

/** Live matcher states while walking: each is `pathIndex * 256 + segmentIndex`. */
export type PathStates = readonly number[];

/** Returned by `stepPaths` when a path ends at the key just consumed. */
export const PATH_MATCH = "match";

const RECORD_FIELDS: ReadonlySet<string> = new Set(FIELDS);
const MAX_SEGMENTS = 255;

/**
 * Compiles dot paths; throws StowageError("config") for empty segments or a
 * first segment that is no record field (paths start at the record root).
 * @example compilePaths(["data.user.email", "data.*.token", "**.ssn"])
 */
export function compilePaths(paths: readonly string[]): CompiledPath[] {
  return paths.map((raw, n) => {
    if (typeof raw !== "string" || raw.trim() === "") {
      throw new StowageError(
        "config",
        `redact.paths[${n}] is empty; write a dot path such as "data.user.email"`,
      );
    }
    const segs: string[] = [];
    for (const seg of raw.trim().split(".")) {
      if (seg === "") {
        throw new StowageError(
          "config",
          `redact.paths[${n}] "${raw}" has an empty segment; remove the extra "."`,
        );
      }
      if (seg === "**" && segs[segs.length - 1] === "**") continue;
      segs.push(seg);
    }
    const first = segs[0]!;
    if (first !== "*" && first !== "**" && !RECORD_FIELDS.has(first)) {
      throw new StowageError(
        "config",
        `redact.paths[${n}] "${raw}" starts with "${first}", which is not a record field; paths start at the ` +
          `record root: write "data.${raw}" (or "**.${raw}" for any depth)`,
      );
    }
    if (segs.length > MAX_SEGMENTS) {
      throw new StowageError(
        "config",
        `redact.paths[${n}] has more than ${MAX_SEGMENTS} segments; shorten it`,
      );
    }
    return segs;
  });
}

/** The states before the record root's first key: every path at its first segment. */
export function initialStates(paths: readonly CompiledPath[]): PathStates | null {
  if (paths.length === 0) return null;
  return paths.map((_, p) => p * 256);
}

/**
 * Consumes one key (object key, or an array index as decimal text). Returns
 * PATH_MATCH when a path ends here (redact the whole value), the next states,
 * or null when no path can match below this key.
 */
export function stepPaths(
  paths: readonly CompiledPath[],
  states: PathStates,
  key: string,
): PathStates | typeof PATH_MATCH | null {
  let out: number[] | null = null;
  for (const s of states) {
    const p = s >> 8;
    const i = s & 255;
    const segs = paths[p]!;
    let j = i;
    if (segs[i] === "**") {
      if (i + 1 === segs.length) return PATH_MATCH; // trailing ** redacts everything below
      out = addState(out, s); // ** swallows this key and stays
      j = i + 1; // ... or matches zero segments: the next one must take the key
    }
    const seg = segs[j];
    if (seg === "*" || seg === key) {
      if (j + 1 === segs.length) return PATH_MATCH;
      out = addState(out, p * 256 + j + 1);
    }
  }
  return out;
}

function addState(out: number[] | null, s: number): number[] {
  if (out === null) return [s];
  if (!out.includes(s)) out.push(s);
  return out;
}
