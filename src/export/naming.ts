/**
 * Object keys of an export (SPEC §7.2): data objects
 * `{prefix}{export}_{YYYYMMDD}_{HHMMSS}_{mmm}.{ext}` (+ `_part{N}`), chunked runs
 * `{export}_{YYYYMMDD}_{HHMMSS}_chunk{N}_{nonce}.{ext}`, and the commit files
 * `manifest.json`, `manifest-<run_id>.json`, `_SUCCESS`, the incremental cursor;
 * keyset pages `{export}_{run_id}_{page}`, keyset state and in-progress markers.
 * Prefix placeholders `{export}` and `{date}` (UTC `YYYY-MM-DD` of the run).
 */
import { randomHex, ulid } from "../shared/ids.js";

const two = (n: number) => String(n).padStart(2, "0");

/** UTC `YYYYMMDD`, `HHMMSS`, `mmm` and `YYYY-MM-DD` of a time. */
export function stamp(at: Date): { ymd: string; hms: string; ms: string; date: string } {
  const y = String(at.getUTCFullYear()).padStart(4, "0");
  const m = two(at.getUTCMonth() + 1);
  const d = two(at.getUTCDate());
  return {
    ymd: `${y}${m}${d}`,
    hms: `${two(at.getUTCHours())}${two(at.getUTCMinutes())}${two(at.getUTCSeconds())}`,
    ms: String(at.getUTCMilliseconds()).padStart(3, "0"),
    date: `${y}-${m}-${d}`,
  };
}

/** A new run id (ULID: sortable by start time). */
export function newRunId(at: Date): string {
  return ulid(at.getTime());
}

/** A short random nonce for chunked object names. */
export function newNonce(): string {
  return randomHex(8);
}

/** Prefix placeholders resolved; "" or a path without trailing `/`. */
export function resolvePrefix(template: string, exportName: string, date: string): string {
  return template.replaceAll("{export}", exportName).replaceAll("{date}", date);
}

/** The part of a prefix template before `{date}` (resolved): where state that outlives a day lives. */
export function stablePrefix(template: string, exportName: string): string {
  const cut = template.indexOf("{date}");
  const head = cut < 0 ? template : template.slice(0, cut);
  return head.replaceAll("{export}", exportName).replace(/\/+$/, "");
}

/** `prefix/name` (or `name` for an empty prefix). */
export function join(prefix: string, name: string): string {
  return prefix ? `${prefix}/${name}` : name;
}

/** Keys of one export run under its resolved prefix. */
export interface RunKeys {
  /** Data object n (1-based); `split` forces `_part{N}` on every object. */
  data(n: number, split: boolean): string;
  /** Data object n of chunk c. */
  chunk(c: number, n: number, split: boolean): string;
  /** Keyset mode: object n of page p, `{export}_{run_id}_{p:06}` (Rivet's keyset naming, run id first). */
  page(p: number, n: number, split: boolean): string;
  manifest: string;
  runManifest: string;
  success: string;
}

/**
 * @example
 * runKeys("exports/daily", "orders", "01J…", new Date(), "parquet").data(1, false)
 * // "exports/daily/orders_20250101_120000_123.parquet"
 */
export function runKeys(
  prefix: string,
  exportName: string,
  runId: string,
  startedAt: Date,
  ext: string,
  nonce = newNonce(),
): RunKeys {
  const s = stamp(startedAt);
  const base = `${exportName}_${s.ymd}_${s.hms}`;
  const part = (n: number, split: boolean) => (split || n > 1 ? `_part${n}` : "");
  return {
    data: (n, split) => join(prefix, `${base}_${s.ms}${part(n, split)}.${ext}`),
    chunk: (c, n, split) => join(prefix, `${base}_chunk${c}_${nonce}${part(n, split)}.${ext}`),
    page: (p, n, split) =>
      join(prefix, `${exportName}_${runId}_${String(p).padStart(6, "0")}${part(n, split)}.${ext}`),
    manifest: join(prefix, "manifest.json"),
    runManifest: join(prefix, `manifest-${runId}.json`),
    success: join(prefix, "_SUCCESS"),
  };
}

/** Where an incremental export keeps its cursor: beside the manifest, or before `{date}` when the prefix has one. */
export function cursorKey(prefixTemplate: string, exportName: string): string {
  return join(stablePrefix(prefixTemplate, exportName), `_cursor-${exportName}.json`);
}

/** Keyset mode's resumable state (last committed page), beside the cursor. */
export function keysetStateKey(prefixTemplate: string, exportName: string): string {
  return join(stablePrefix(prefixTemplate, exportName), `_keyset-${exportName}.json`);
}

/** In-progress markers of this export's runs (`…-<run_id>.json`), beside the cursor. */
export function markerPrefix(prefixTemplate: string, exportName: string): string {
  return join(stablePrefix(prefixTemplate, exportName), `_inprogress-${exportName}-`);
}

/** The in-progress marker of one run. */
export function markerKey(prefixTemplate: string, exportName: string, runId: string): string {
  return `${markerPrefix(prefixTemplate, exportName)}${runId}.json`;
}

/** True for keys this export's data objects use (any run): used to find dangling uploads. */
export function isDataKey(key: string, prefixHead: string, exportName: string): boolean {
  const head = prefixHead ? `${prefixHead}/` : "";
  if (!key.startsWith(head)) return false;
  const file = key.slice(head.length).split("/").pop() ?? "";
  if (!file.startsWith(`${exportName}_`)) return false;
  const rest = file.slice(exportName.length);
  return /^_\d{8}_\d{6}_/.test(rest) || /^_[0-9A-HJKMNP-TV-Z]{26}_\d{6}/.test(rest);
}
