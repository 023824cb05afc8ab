/**
 * The export file (SPEC §7.1): YAML loaded with `${ENV}` interpolation by
 * config/, keys in snake_case or camelCase, validated with closest-key
 * suggestions, then resolved: source URL (from `url_env`, never echoed),
 * per-export mode/format/compression/size rules, destinations (§2.1–§2.3)
 * and the one-dataset-per-prefix rule.
 */
import type { z } from "zod";
import { parseDestination, type ResolvedDestination } from "../config/destination.js";
import type { Env } from "../config/env.js";
import { configErrorMap, configIssuesError } from "../config/issues.js";
import { normaliseKeys } from "../config/keys.js";
import { loadConfigFile } from "../config/load-config.js";
import { EXPORT_RETRY } from "../config/retry-defaults.js";
import { parseBytes } from "../shared/bytes.js";
import { StowageError } from "../shared/errors.js";
import {
  COMPRESSIONS,
  defaultCompression,
  type Compression,
  type FormatName,
} from "../encoders/format.js";
import { exportFileSchema as fileSchema, type exportSchema } from "./config-schema.js";
import { resolvePrefix } from "./naming.js";
import type { SourceType } from "./sources/source.js";

export interface ResolvedTuning {
  batchSize: number;
  partSize: number;
  queueSize: number;
  rowGroupRows: number;
  rowGroupBytes: number;
  /**
   * Encode in a worker thread beside the reading (default false: on the shared
   * 2-core machine it measured no faster; see docs/exports.md, Performance).
   */
  encoderThread?: boolean;
  maxAttempts: number;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
}

export interface ResolvedExport {
  name: string;
  query?: string;
  table?: string;
  mode: "full" | "incremental" | "chunked" | "keyset";
  cursorColumn?: string;
  /** Keyset mode: the unique, ordered column pages are cut on, and rows per page. */
  keysetColumn?: string;
  pageSize?: number;
  chunkColumn?: string;
  chunkSize?: number;
  parallel: number;
  format: FormatName;
  compression: Compression;
  maxFileBytes?: number;
  /** For `type: local` the `path` up to `{date}` (resolved); the rest becomes the prefix template. */
  destination: ResolvedDestination;
  /** Key prefix with `{date}` still unresolved (`{export}` resolved); "" for none. */
  prefixTemplate: string;
}

export interface ResolvedExportConfig {
  file: string;
  /** `url` is "" when the file was loaded with `needSource: false` (validate reads only the bucket). */
  source: { type: SourceType; url: string; urlEnv?: string };
  exports: ResolvedExport[];
  tuning: ResolvedTuning;
}

export interface LoadExportOptions {
  env: Env;
  cwd?: string;
  trustedHosts?: readonly string[] | undefined;
  /** False for commands that never connect to the database (`validate`): url_env may be unset. */
  needSource?: boolean;
}

const fail = (file: string, msg: string, hint?: string) =>
  new StowageError("config", `${file}: ${msg}`, { hint });

/**
 * Loads and validates an export YAML file.
 * @example const cfg = await loadExportConfig("export.yaml", { env: process.env });
 */
export async function loadExportConfig(
  path: string,
  options: LoadExportOptions,
): Promise<ResolvedExportConfig> {
  const loaded = await loadConfigFile(path, {
    env: options.env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  return resolveExportConfig(loaded.data, { ...options, file: loaded.path });
}

/** Validates an already-parsed (and interpolated) export file. */
export function resolveExportConfig(
  raw: unknown,
  options: LoadExportOptions & { file: string },
): ResolvedExportConfig {
  const file = options.file;
  const { value, origins } = normaliseKeys(raw, "");
  const parsed = fileSchema.safeParse(value, { error: configErrorMap, reportInput: true });
  if (!parsed.success) throw configIssuesError(parsed.error.issues, { origins, file });
  const data = parsed.data;
  const rawExports = (raw as { exports: Record<string, unknown>[] }).exports;
  const source = resolveSource(data.source, options.env, file, options.needSource ?? true);
  const t = data.tuning ?? {};
  const tuning: ResolvedTuning = {
    batchSize: t.batchSize ?? 2_000,
    partSize: parseBytes(t.partSize ?? "8MiB", `${file}: tuning.part_size`),
    queueSize: t.queueSize ?? 4,
    rowGroupRows: t.rowGroupSize ?? 10_000, // 1.14–1.52× faster than 50k, less heap
    rowGroupBytes: parseBytes(t.rowGroupBytes ?? "32MiB", `${file}: tuning.row_group_bytes`),
    encoderThread: t.encoderThread ?? false,
    maxAttempts: t.maxAttempts ?? EXPORT_RETRY.maxAttempts,
    connectTimeoutMs: t.connectTimeoutMs ?? 10_000,
    requestTimeoutMs: t.requestTimeoutMs ?? 120_000,
  };
  const names = new Set<string>();
  const exports = data.exports.map((e, i) => {
    if (names.has(e.name))
      throw fail(file, `exports[${i}].name "${e.name}" is used twice; export names must be unique`);
    names.add(e.name);
    const rawDest = rawExports[i]?.destination ?? (raw as Record<string, unknown>).destination;
    return resolveExport(e, rawDest, i, file, options);
  });
  if (exports.some((e) => e.destination.type === "s3") && tuning.partSize < 5 * 1024 * 1024) {
    throw fail(
      file,
      "tuning.part_size must be at least 5MiB for S3 destinations (S3's minimum part size)",
    );
  }
  checkPrefixCollisions(exports, file);
  return { file, source, exports, tuning };
}

function resolveSource(
  s: z.output<typeof fileSchema>["source"],
  env: Env,
  file: string,
  needed: boolean,
): ResolvedExportConfig["source"] {
  const given = [
    s.url !== undefined && "url",
    s.urlEnv !== undefined && "url_env",
    s.path !== undefined && "path",
  ].filter(Boolean);
  if (given.length !== 1) {
    throw fail(
      file,
      `source: set exactly one of url_env, url${s.type === "sqlite" ? ", path" : ""} (found ${given.length ? given.join(" and ") : "none"})`,
      "url_env names an environment variable holding the connection URL, e.g. url_env: DATABASE_URL",
    );
  }
  if (s.path !== undefined && s.type !== "sqlite")
    throw fail(file, "source.path is only for sqlite; use url_env (or url) for a network database");
  if (s.urlEnv !== undefined) {
    const url = env[s.urlEnv];
    if (!needed) return { type: s.type, url: url ?? "", urlEnv: s.urlEnv };
    if (url === undefined || url === "") {
      throw fail(
        file,
        `source.url_env names ${s.urlEnv}, but the environment variable ${s.urlEnv} is not set`,
        `export ${s.urlEnv}=<connection URL> before running`,
      );
    }
    return { type: s.type, url, urlEnv: s.urlEnv };
  }
  return { type: s.type, url: (s.url ?? s.path)! };
}

function resolveExport(
  e: z.output<typeof exportSchema>,
  rawDest: unknown,
  i: number,
  file: string,
  options: LoadExportOptions & { file: string },
): ResolvedExport {
  const at = `exports[${i}] (${e.name})`;
  if ((e.query === undefined) === (e.table === undefined))
    throw fail(file, `${at}: set exactly one of query or table`);
  const stray = (keys: [string, unknown][]) =>
    keys.filter(([, v]) => v !== undefined).map(([k]) => k);
  if (e.mode === "incremental" && !e.cursorColumn)
    throw fail(
      file,
      `${at}: mode incremental needs cursor_column (a column that only grows, e.g. an id or updated_at)`,
    );
  if (e.mode === "chunked" && (!e.chunkColumn || !e.chunkSize))
    throw fail(file, `${at}: mode chunked needs chunk_column (numeric) and chunk_size`);
  if (e.mode === "keyset" && !e.keysetColumn)
    throw fail(
      file,
      `${at}: mode keyset needs keyset_column (a unique, ordered column such as the primary key)`,
    );
  const misplaced = [
    ...(e.mode !== "incremental" ? stray([["cursor_column", e.cursorColumn]]) : []),
    ...(e.mode !== "keyset"
      ? stray([
          ["keyset_column", e.keysetColumn],
          ["page_size", e.pageSize],
        ])
      : []),
    ...(e.mode !== "chunked"
      ? stray([
          ["chunk_column", e.chunkColumn],
          ["chunk_size", e.chunkSize],
          ["parallel", e.parallel],
        ])
      : []),
  ];
  if (misplaced.length)
    throw fail(
      file,
      `${at}: ${misplaced.join(", ")} do${misplaced.length === 1 ? "es" : ""} not apply to mode ${e.mode}`,
    );
  const compression = e.compression ?? defaultCompression(e.format);
  if (!COMPRESSIONS[e.format].includes(compression)) {
    throw fail(
      file,
      `${at}: compression ${compression} is not available for ${e.format}; use ${COMPRESSIONS[e.format].join(" or ")}`,
    );
  }
  const maxFileBytes =
    e.maxFileSize === undefined
      ? undefined
      : parseBytes(e.maxFileSize, `${file}: ${at}.max_file_size`);
  if (maxFileBytes !== undefined && maxFileBytes < 1024)
    throw fail(file, `${at}: max_file_size must be at least 1KB`);
  if (rawDest === undefined)
    throw fail(file, `${at}: missing destination (type: s3 with bucket, or type: local with path)`);
  const dest = parseDestination(rawDest, `exports[${i}].destination`, {
    env: options.env,
    origin: "data",
    file,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    trustedHosts: options.trustedHosts,
  });
  const template = dest.type === "s3" ? dest.prefix : dest.path;
  const bad = /\{(?!export\}|date\})[^}]*\}/.exec(template);
  if (bad)
    throw fail(
      file,
      `${at}: unknown placeholder ${bad[0]} in the destination; only {export} and {date} are replaced`,
    );
  const withName = template.replaceAll("{export}", e.name);
  let destination: ResolvedDestination = dest;
  let prefixTemplate = withName;
  if (dest.type === "local") {
    const cut = withName.indexOf("{date}");
    const root = cut < 0 ? withName : withName.slice(0, cut).replace(/\/+$/, "");
    destination = { ...dest, path: root };
    prefixTemplate = cut < 0 ? "" : withName.slice(cut).replace(/^\/+|\/+$/g, "");
  }
  return {
    name: e.name,
    ...(e.query !== undefined ? { query: e.query.trim().replace(/;\s*$/, "") } : {}),
    ...(e.table !== undefined ? { table: e.table } : {}),
    mode: e.mode,
    ...(e.cursorColumn ? { cursorColumn: e.cursorColumn } : {}),
    ...(e.chunkColumn ? { chunkColumn: e.chunkColumn, chunkSize: e.chunkSize! } : {}),
    ...(e.keysetColumn ? { keysetColumn: e.keysetColumn, pageSize: e.pageSize ?? 100_000 } : {}),
    parallel: e.mode === "chunked" ? (e.parallel ?? 1) : 1,
    format: e.format,
    compression,
    ...(maxFileBytes !== undefined ? { maxFileBytes } : {}),
    destination,
    prefixTemplate,
  };
}

/** Where an export's manifest and `_SUCCESS` live, for the same-prefix check. */
export function datasetLocation(e: ResolvedExport, date = "{date}"): string {
  const prefix = resolvePrefix(e.prefixTemplate, e.name, date);
  const d = e.destination;
  return d.type === "s3"
    ? `s3://${d.endpoint ?? "aws"}/${d.bucket}/${prefix}`
    : `local://${d.path}/${prefix}`;
}

function checkPrefixCollisions(exports: ResolvedExport[], file: string): void {
  const seen = new Map<string, string>();
  for (const e of exports) {
    const where = datasetLocation(e).replace(/\/+$/, "");
    const other = seen.get(where);
    if (other) {
      throw fail(
        file,
        `exports "${other}" and "${e.name}" write to the same bucket and prefix; their manifest.json and _SUCCESS would collide`,
        "give each export its own prefix, e.g. prefix: exports/{export}/",
      );
    }
    seen.set(where, e.name);
  }
}

/**
 * Picks the exports to run (`--export NAME`), with a suggestion when the name is wrong.
 * @example selectExports(cfg, "orders").map((e) => e.name) // ["orders"]
 */
export function selectExports(cfg: ResolvedExportConfig, name?: string): ResolvedExport[] {
  if (name === undefined) return cfg.exports;
  const hit = cfg.exports.filter((e) => e.name === name);
  if (hit.length === 0) {
    throw new StowageError(
      "usage",
      `no export named "${name}" in ${cfg.file}; exports: ${cfg.exports.map((e) => e.name).join(", ")}`,
    );
  }
  return hit;
}
