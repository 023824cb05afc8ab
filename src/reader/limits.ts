/**
 * The reader's budget numbers (SPEC §5.2): per-grant allowance defaults, the
 * per-object caps, the longest range, and validation of caller overrides.
 */
import { StowageError } from "../shared/errors.js";
import type { GrantLimits, LimitName } from "./types.js";

const MiB = 1024 * 1024;

/** Per-grant allowances when nothing overrides them (SPEC §5.2 table). */
export const DEFAULT_LIMITS: Readonly<GrantLimits> = Object.freeze({
  downloadBytes: 16 * MiB,
  listAttempts: 20,
  getAttempts: 64,
  records: 20_000,
  decodedBytes: 25 * MiB,
  maxGrants: 5,
});

/** The per-object caps live in a leaf the write path reads too (it refuses batches over them). */
export { OBJECT_MAX_COMPRESSED_BYTES, OBJECT_MAX_DECODED_BYTES } from "../shared/object-limits.js";
/** The longest range one query may cover (§5.2): 7 days. */
export const MAX_RANGE_MS = 7 * 24 * 3_600_000;

export const LIMIT_NAMES: readonly LimitName[] = Object.freeze([
  "downloadBytes",
  "listAttempts",
  "getAttempts",
  "records",
  "decodedBytes",
  "maxGrants",
]);

/**
 * Defaults overlaid with `overrides`; every value must be a positive integer.
 * Throws StowageError("usage") naming the bad key.
 * @example resolveLimits({ records: 500 }).records // 500
 */
export function resolveLimits(overrides: Partial<GrantLimits> | undefined): GrantLimits {
  const out: GrantLimits = { ...DEFAULT_LIMITS };
  for (const [name, value] of Object.entries(overrides ?? {})) {
    if (!(LIMIT_NAMES as readonly string[]).includes(name)) {
      throw new StowageError(
        "usage",
        `unknown reader limit "${name}"; use one of ${LIMIT_NAMES.join(", ")}`,
      );
    }
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
      throw new StowageError(
        "usage",
        `reader limit ${name} must be a positive integer, got ${JSON.stringify(value)}`,
      );
    }
    out[name as LimitName] = value;
  }
  return out;
}
