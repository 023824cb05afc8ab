/**
 * Loaded records as rows: a stable id, the parsed time, the level, a content
 * hash (for selection in the URL) and a lazily built search haystack.
 */
import type { LogRecordLike } from "../../api-types.js";
import { LEVELS } from "../../../record/levels.js";
import { RECORD_FIELDS } from "../../../record/fields.js";

export { LEVELS };
export const LEVEL_RANK: Record<string, number> = Object.fromEntries(LEVELS.map((l, i) => [l, i]));

export interface Row {
  /** Arrival order across the session (0, 1, 2, …). */
  id: number;
  ts: number;
  level: string;
  rec: LogRecordLike;
  /** FNV-1a of time, level and message plus an occurrence number: stable across reloads of the same data. */
  key: string;
  /** Lower-cased message and leaf values (built on first search). */
  hay?: string;
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A short hash for strings (fingerprints, keys). */
export function shortHash(text: string): string {
  return fnv1a(text).toString(36);
}

/**
 * Turns a grant's records into rows, continuing ids from `startId`. `seen`
 * counts equal hashes so identical records still get distinct keys.
 */
export function toRows(
  records: LogRecordLike[],
  startId: number,
  seen: Map<number, number>,
): Row[] {
  return records.map((rec, i) => {
    // Hashing the whole JSON costs ~10 µs a record (a second per 100k); these three fields identify it well enough.
    const h = fnv1a(`${rec.timestamp}\u0000${rec.level}\u0000${rec.message}`);
    const n = seen.get(h) ?? 0;
    seen.set(h, n + 1);
    const ts = Date.parse(rec.timestamp);
    const level = typeof rec.level === "string" ? rec.level.toLowerCase() : "info";
    const key = h.toString(36);
    return {
      id: startId + i,
      ts: Number.isFinite(ts) ? ts : 0,
      level,
      rec,
      key: n ? `${key}.${n}` : key,
    };
  });
}

/** The hash part of a row key (for re-counting occurrences). */
export function keyHash(key: string): number {
  return parseInt(key.split(".", 1)[0]!, 36);
}

function collect(value: unknown, out: string[], depth: number): void {
  if (value === null || value === undefined || depth > 6) return;
  if (typeof value === "string") out.push(value);
  else if (typeof value === "number" || typeof value === "boolean") out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) collect(v, out, depth + 1);
  else if (typeof value === "object")
    for (const v of Object.values(value)) collect(v, out, depth + 1);
}

/** What plain-text search matches: the message and every value (not the keys). */
export function haystack(row: Row): string {
  if (row.hay === undefined) {
    const out: string[] = [];
    collect(row.rec, out, 0);
    row.hay = out.join("\n").toLowerCase();
  }
  return row.hay;
}

/** The value at a dot path (`data.user.id`), or undefined. */
export function getPath(value: unknown, path: string): unknown {
  let cur: unknown = value;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

const ROOTS: ReadonlySet<string> = new Set(RECORD_FIELDS);

/** A field as the search language means it: the record path, else `data.<f>`, else `bindings.<f>`. */
export function fieldValue(rec: LogRecordLike, field: string): unknown {
  const direct = getPath(rec, field);
  if (direct !== undefined || ROOTS.has(field.split(".")[0]!)) return direct;
  const inData = getPath(rec.data, field);
  return inData !== undefined ? inData : getPath(rec.bindings, field);
}

/** First line of a string, trimmed and capped. */
export function firstLine(text: unknown, max = 200): string {
  const s = typeof text === "string" ? text : text === undefined ? "" : String(text);
  const line = s.split("\n", 1)[0]!.trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * A message line with its variable parts masked (`GET /orders/123 500 14ms` →
 * `GET /orders/<n> <n> <n>ms`), so one bug with changing ids is one group.
 */
export function messageTemplate(line: string): string {
  return line
    .replace(/\b[0-9a-f]{8,}(?:-[0-9a-f]{4,})*\b/gi, "<id>")
    .replace(/\d+(?:\.\d+)?/g, "<n>");
}

/** Error fingerprint (SPEC §5.4): error name + first message line (variable parts masked) + caller. */
export function fingerprint(rec: LogRecordLike): string | null {
  const isError = rec.error !== undefined || rec.level === "error" || rec.level === "critical";
  if (!isError) return null;
  const name = rec.error?.name ?? "";
  const msg = messageTemplate(firstLine(rec.error?.message ?? rec.message));
  return `${name}\u0000${msg}\u0000${rec.caller ?? ""}`;
}
