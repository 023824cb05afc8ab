/**
 * Where compaction writes (docs/compaction.md), as pure functions of keys: Hive partitions
 * `<dest>dt=YYYY-MM-DD/hour=HH/` holding only committed-or-pending Parquet parts, and the
 * hour state (claims, manifests, rejects) under `<dest>_stowage/`, a folder engines skip
 * (a leading `_` is hidden to Hive, Spark, Trino and Athena, and the recipes' globs over
 * `dt=…/hour=…/` never reach it).
 *
 * Names: generation `n` of an hour is `claim-<n:06>.json` → `manifest-<n:06>.json`; its parts
 * are `g<n:06>-<digest:12>-<k:04>.parquet`, where the digest is that of the claim (its sources
 * and settings), so whoever completes a claim writes the same keys.
 */
import { StowageError } from "../shared/errors.js";
import { FORMAT_DIR, HOUR_MS, normalizePrefix } from "../v1-format/object-key.js";

/** The folder of hour state under the destination. */
export const STATE_DIR = "_stowage";
/** The layout (names, sort order, file split) a claim was made under; a resume needs the same. */
export const LAYOUT_VERSION = 1;
/** The destination under the log prefix when none is given. */
export const DEFAULT_DEST_DIR = "parquet";

const pad = (n: number, w: number) => String(n).padStart(w, "0");

/** `dt` and `hour` partition values of an hour: `2026-11-03`, `14`. */
export function partitionValues(hourMs: number): { dt: string; hour: string } {
  const iso = new Date(hourMs).toISOString();
  return { dt: iso.slice(0, 10), hour: iso.slice(11, 13) };
}

/**
 * The destination prefix (with a trailing `/`, or "" for the bucket root): `dest` as given,
 * else `<prefix>/parquet/`. A destination inside `<prefix>/v1/` is refused: the reader, the
 * writer policy and lifecycle rules own that tree.
 * @example resolveDest("logs/api") // "logs/api/parquet/"
 */
export function resolveDest(prefix: string, dest?: string): string {
  const p = normalizePrefix(prefix);
  const d = normalizePrefix(dest ?? (p ? `${p}/${DEFAULT_DEST_DIR}` : DEFAULT_DEST_DIR));
  if (d.split("/").some((s) => s === "." || s === ".."))
    throw new StowageError("config", `the compaction destination "${d}" has a . or .. segment`);
  const v1 = p ? `${p}/${FORMAT_DIR}` : FORMAT_DIR;
  if (d === v1 || d.startsWith(`${v1}/`))
    throw new StowageError(
      "config",
      `the compaction destination "${d}/" is inside the v1 log tree "${v1}/"`,
      {
        hint: `choose a folder beside it, e.g. "${p ? `${p}/` : ""}${DEFAULT_DEST_DIR}/" (the default)`,
      },
    );
  return d ? `${d}/` : "";
}

/** `<dest>dt=YYYY-MM-DD/hour=HH/`: the Hive partition of an hour. */
export function partitionPrefix(dest: string, hourMs: number): string {
  const { dt, hour } = partitionValues(hourMs);
  return `${dest}dt=${dt}/hour=${hour}/`;
}

/** `<dest>_stowage/dt=YYYY-MM-DD/`: the state of every hour of a day (one LIST). */
export function stateDayPrefix(dest: string, hourMs: number): string {
  return `${dest}${STATE_DIR}/dt=${partitionValues(hourMs).dt}/`;
}

/** `<dest>_stowage/dt=YYYY-MM-DD/hour=HH/`. */
export function stateHourPrefix(dest: string, hourMs: number): string {
  return `${stateDayPrefix(dest, hourMs)}hour=${partitionValues(hourMs).hour}/`;
}

export const claimKey = (dest: string, hourMs: number, gen: number) =>
  `${stateHourPrefix(dest, hourMs)}claim-${pad(gen, 6)}.json`;
export const manifestKey = (dest: string, hourMs: number, gen: number) =>
  `${stateHourPrefix(dest, hourMs)}manifest-${pad(gen, 6)}.json`;
export const rejectsKey = (dest: string, hourMs: number, gen: number, digest: string) =>
  `${stateHourPrefix(dest, hourMs)}rejects-${pad(gen, 6)}-${digest.slice(0, 12)}.ndjson.gz`;

/** The start of every part name of a generation (what an abandoned generation's cleanup lists). */
export const outputStem = (dest: string, hourMs: number, gen: number, digest: string) =>
  `${partitionPrefix(dest, hourMs)}g${pad(gen, 6)}-${digest.slice(0, 12)}-`;

/** Part `k` (1-based) of a generation. */
export const outputKey = (dest: string, hourMs: number, gen: number, digest: string, k: number) =>
  `${outputStem(dest, hourMs, gen, digest)}${pad(k, 4)}.parquet`;

export interface StateKey {
  hourMs: number;
  kind: "claim" | "manifest" | "rejects";
  generation: number;
}

const STATE_RE =
  /^_stowage\/dt=(\d{4})-(\d{2})-(\d{2})\/hour=(\d{2})\/(claim|manifest|rejects)-(\d{6})(?:-[0-9a-f]{12})?\.(?:json|ndjson\.gz)$/;
const OUTPUT_RE =
  /^dt=(\d{4})-(\d{2})-(\d{2})\/hour=(\d{2})\/g(\d{6})-([0-9a-f]{12})-(\d{4})\.parquet$/;

function hourOf(y: string, m: string, d: string, h: string): number | null {
  const ms = Date.UTC(Number(y), Number(m) - 1, Number(d), Number(h));
  const back = partitionValues(ms);
  return back.dt === `${y}-${m}-${d}` && back.hour === h ? ms : null;
}

/** A state key under `dest`, or null. */
export function parseStateKey(key: string, dest: string): StateKey | null {
  if (!key.startsWith(dest)) return null;
  const m = STATE_RE.exec(key.slice(dest.length));
  if (!m) return null;
  const hourMs = hourOf(m[1]!, m[2]!, m[3]!, m[4]!);
  if (hourMs === null) return null;
  return { hourMs, kind: m[5] as StateKey["kind"], generation: Number(m[6]) };
}

export interface OutputKeyParts {
  hourMs: number;
  generation: number;
  digest: string;
  part: number;
}

/** A Parquet part under `dest`, or null (anything else in a partition folder is not ours). */
export function parseOutputKey(key: string, dest: string): OutputKeyParts | null {
  if (!key.startsWith(dest)) return null;
  const m = OUTPUT_RE.exec(key.slice(dest.length));
  if (!m) return null;
  const hourMs = hourOf(m[1]!, m[2]!, m[3]!, m[4]!);
  if (hourMs === null) return null;
  return { hourMs, generation: Number(m[5]), digest: m[6]!, part: Number(m[7]) };
}

/** Every UTC day start (ms) from the day of `fromMs` to the day of `toMs - 1`. */
export function daysOf(fromMs: number, toMs: number): number[] {
  const out: number[] = [];
  const first = fromMs - (((fromMs % 86_400_000) + 86_400_000) % 86_400_000);
  for (let d = first; d < toMs; d += 86_400_000) out.push(d);
  return out;
}

export { HOUR_MS };
