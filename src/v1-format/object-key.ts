/**
 * Format-v1 object keys and metadata names (§3.4):
 * `<prefix>/v1/YYYY/MM/DD/HH/<reverse-max-ms>-<min-ms>-<max-ms>-<batch-id>.ndjson.gz`.
 * `reverse-max-ms` makes a plain (ascending) listing of an hour return the newest batches first.
 */
import { StowageError } from "../shared/errors.js";

export const FORMAT_DIR = "v1";
/** Largest epoch ms a 13-digit field holds (year 2286); reverse-max-ms = this − max-ms. */
export const MAX_EPOCH_MS = 9_999_999_999_999;
export const HOUR_MS = 3_600_000;
export const KEY_SUFFIX = ".ndjson.gz";
export const CONTENT_TYPE = "application/x-ndjson";
export const CONTENT_ENCODING = "gzip";

/** User-metadata names (sent as `x-amz-meta-<name>`), and the format value. */
export const META = Object.freeze({
  format: "stowage-format",
  minMs: "min-ms",
  maxMs: "max-ms",
  records: "records",
  decodedBytes: "decoded-bytes",
} as const);
export const FORMAT_VERSION_VALUE = "1";

/** A batch id: a 26-char ULID (Crockford base32) or 32 lowercase hex chars. */
const BATCH_ID = /^(?:[0-9A-HJKMNP-TV-Z]{26}|[0-9a-f]{32})$/;
const KEY_TAIL =
  /^v1\/(\d{4})\/(\d{2})\/(\d{2})\/(\d{2})\/(\d{13})-(\d{13})-(\d{13})-([0-9A-HJKMNP-TV-Z]{26}|[0-9a-f]{32})\.ndjson\.gz$/;

/** Parsed v1 key. */
export interface ObjectKeyParts {
  /** Start of the UTC hour folder, epoch ms. */
  hourMs: number;
  minMs: number;
  maxMs: number;
  batchId: string;
}

/**
 * `/logs//app/` → `logs/app`; `""` or `"/"` → `""` (keys then start with `v1/`).
 * @example normalizePrefix("/logs//app/") // "logs/app"
 */
export function normalizePrefix(prefix: string): string {
  return prefix
    .split("/")
    .filter((s) => s !== "")
    .join("/");
}

/** Epoch ms → start of its UTC hour. */
export function utcHourStart(ms: number): number {
  return ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS);
}

const pad = (n: number, w: number) => String(n).padStart(w, "0");

/**
 * The hour folder to list: `<prefix>/v1/YYYY/MM/DD/HH/` (any ms inside the hour works).
 * @example hourPrefix("logs", Date.UTC(2026, 2, 1, 10)) // "logs/v1/2026/03/01/10/"
 */
export function hourPrefix(prefix: string, hourMs: number): string {
  const d = new Date(utcHourStart(hourMs));
  const p = normalizePrefix(prefix);
  const folder = `${FORMAT_DIR}/${pad(d.getUTCFullYear(), 4)}/${pad(d.getUTCMonth() + 1, 2)}/${pad(d.getUTCDate(), 2)}/${pad(d.getUTCHours(), 2)}/`;
  return p === "" ? folder : `${p}/${folder}`;
}

function checkMs(ms: number, what: string): void {
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_EPOCH_MS) {
    throw new StowageError(
      "format",
      `${what} ${ms} is not an epoch millisecond between 0 and ${MAX_EPOCH_MS}`,
    );
  }
}

/**
 * Builds the v1 key of a batch. `minMs` and `maxMs` must lie in the same UTC
 * hour (batches are per hour); `batchId` is a ULID or 32 hex chars.
 * @example formatObjectKey({ prefix: "logs", minMs, maxMs, batchId: ulid() })
 * // "logs/v1/2026/03/01/10/8227637200000-1772359200000-1772362799999-01J….ndjson.gz"
 */
export function formatObjectKey(parts: {
  prefix: string;
  minMs: number;
  maxMs: number;
  batchId: string;
}): string {
  const { minMs, maxMs, batchId } = parts;
  checkMs(minMs, "min-ms");
  checkMs(maxMs, "max-ms");
  if (minMs > maxMs) throw new StowageError("format", `min-ms ${minMs} is after max-ms ${maxMs}`);
  if (utcHourStart(minMs) !== utcHourStart(maxMs)) {
    throw new StowageError(
      "format",
      `min-ms ${minMs} and max-ms ${maxMs} are in different UTC hours; split the batch per hour`,
    );
  }
  if (!BATCH_ID.test(batchId)) {
    throw new StowageError(
      "format",
      `batch id "${batchId.slice(0, 40)}" is not a 26-char ULID or 32 hex chars`,
    );
  }
  const rev = pad(MAX_EPOCH_MS - maxMs, 13);
  return `${hourPrefix(parts.prefix, minMs)}${rev}-${pad(minMs, 13)}-${pad(maxMs, 13)}-${batchId}${KEY_SUFFIX}`;
}

/**
 * Parses a v1 key under `prefix`; null for anything else (other prefixes,
 * other formats, inconsistent fields: a reverse that does not match max, min
 * after max, times outside the hour folder, impossible dates).
 * @example parseObjectKey(key, "logs") // { hourMs, minMs, maxMs, batchId } | null
 */
export function parseObjectKey(key: string, prefix: string): ObjectKeyParts | null {
  const p = normalizePrefix(prefix);
  if (p !== "" && !(key.startsWith(p) && key.charCodeAt(p.length) === 47 /* "/" */)) return null;
  const m = KEY_TAIL.exec(p === "" ? key : key.slice(p.length + 1));
  if (m === null) return null;
  const [, y, mo, d, h, rev, min, max, batchId] = m as unknown as string[];
  const hourMs = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h));
  if (hourPrefix("", hourMs) !== `v1/${y}/${mo}/${d}/${h}/`) return null; // e.g. month 13, hour 24
  const minMs = Number(min);
  const maxMs = Number(max);
  if (Number(rev) !== MAX_EPOCH_MS - maxMs || minMs > maxMs) return null;
  if (minMs < hourMs || maxMs >= hourMs + HOUR_MS) return null;
  return { hourMs, minMs, maxMs, batchId: batchId! };
}

/**
 * The `x-amz-meta-*` user metadata of a v1 object.
 * @example objectMetadata({ minMs, maxMs, records: 3, decodedBytes: 420 })
 */
export function objectMetadata(b: {
  minMs: number;
  maxMs: number;
  records: number;
  decodedBytes: number;
}): Record<string, string> {
  return {
    [META.format]: FORMAT_VERSION_VALUE,
    [META.minMs]: String(b.minMs),
    [META.maxMs]: String(b.maxMs),
    [META.records]: String(b.records),
    [META.decodedBytes]: String(b.decodedBytes),
  };
}
