/**
 * Config files (SPEC §1): discovery of `stowage.config.*` in a directory and
 * loading of TypeScript/JavaScript (through jiti), JSON and YAML (with `${ENV}`
 * interpolation). Parse errors carry line and column; source text is never
 * echoed (a config line may hold a secret).
 */
import { existsSync } from "node:fs";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, extname, join, resolve } from "node:path";
import { createRequire } from "node:module";
import { parseDocument } from "yaml";
import { StowageError } from "../shared/errors.js";
import { processEnv, type Env } from "./env.js";
import { interpolateEnv } from "./interpolate.js";

/** Discovery order: the first that exists wins. */
export const CONFIG_FILE_NAMES = [
  "stowage.config.ts",
  "stowage.config.mts",
  "stowage.config.js",
  "stowage.config.mjs",
  "stowage.config.json",
  "stowage.config.yaml",
  "stowage.config.yml",
] as const;

export interface FoundConfigFile {
  /** Absolute path of the file that wins, or undefined when there is none. */
  path: string | undefined;
  /** Other candidates present (ignored). */
  ignored: string[];
  /** A warning naming the ignored files, when any. */
  warning?: string;
}

/**
 * Finds `stowage.config.{ts,mts,js,mjs,json,yaml,yml}` in `cwd` (first found wins).
 * @example findConfigFile(process.cwd()).path // "/app/stowage.config.ts"
 */
export function findConfigFile(cwd: string): FoundConfigFile {
  const present = CONFIG_FILE_NAMES.map((n) => join(cwd, n)).filter((p) => existsSync(p));
  const [path, ...ignored] = present;
  if (!path) return { path: undefined, ignored: [] };
  const warning = ignored.length
    ? `using ${basename(path)}; ignoring ${ignored.map((p) => basename(p)).join(", ")} (only the first of ${CONFIG_FILE_NAMES.join(", ")} is read)`
    : undefined;
  return { path, ignored, ...(warning ? { warning } : {}) };
}

export interface LoadedConfigFile {
  path: string;
  format: "ts" | "js" | "json" | "yaml";
  /** "code" (TS/JS) may carry credentials objects and trustEndpoint; "data" (YAML/JSON) may not. */
  origin: "code" | "data";
  data: unknown;
}

function formatOf(path: string): LoadedConfigFile["format"] {
  const ext = extname(path).toLowerCase();
  if ([".ts", ".mts", ".cts"].includes(ext)) return "ts";
  if ([".js", ".mjs", ".cjs"].includes(ext)) return "js";
  if (ext === ".json") return "json";
  if (ext === ".yaml" || ext === ".yml") return "yaml";
  throw new StowageError(
    "config",
    `${path}: unsupported config file type ${ext || "(none)"}; use .ts, .mts, .js, .mjs, .json, .yaml or .yml`,
  );
}

/** YAML (and JSON, a subset) with line:column errors and duplicate keys refused. */
function parseData(text: string, file: string, kind: "YAML" | "JSON"): unknown {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const err = doc.errors[0];
  if (err) {
    const pos = err.linePos?.[0];
    const reason = err.message.split(/ at line \d+|:\n/)[0]!.trim();
    throw new StowageError(
      "config",
      `${file}${pos ? `:${pos.line}:${pos.col}` : ""}: invalid ${kind}: ${reason}${pos ? ` (line ${pos.line}, column ${pos.col})` : ""}`,
    );
  }
  return doc.toJS() as unknown;
}

async function importCode(path: string): Promise<unknown> {
  const { createJiti } = await import("jiti");
  const jiti = createJiti(import.meta.url, { fsCache: false, moduleCache: false });
  try {
    return await jiti.import(path, { default: true });
  } catch (err) {
    const first = String((err as Error)?.message ?? err).split("\n")[0];
    throw new StowageError("config", `${path}: could not load the config module: ${first}`, {
      cause: err,
    });
  }
}

/**
 * Loads one config file. YAML/JSON strings get `${ENV}` interpolation from `env`.
 * @example const { data, origin } = await loadConfigFile("stowage.config.yaml", { env: process.env });
 */
export async function loadConfigFile(
  path: string,
  options: { env?: Env; cwd?: string } = {},
): Promise<LoadedConfigFile> {
  const abs = resolve(options.cwd ?? process.cwd(), path);
  const format = formatOf(abs);
  if (!existsSync(abs)) throw new StowageError("config", `config file ${abs} does not exist`);
  if (format === "ts" || format === "js") {
    const data = await importCode(abs);
    if (data === undefined || data === null || typeof data !== "object") {
      throw new StowageError(
        "config",
        `${abs}: the module must \`export default defineConfig({...})\``,
      );
    }
    return { path: abs, format, origin: "code", data };
  }
  const text = await readFile(abs, "utf8");
  const parsed = parseData(text, abs, format === "json" ? "JSON" : "YAML");
  return {
    path: abs,
    format,
    origin: "data",
    data: interpolateEnv(parsed ?? {}, options.env ?? processEnv(), abs),
  };
}

/**
 * Synchronous twin of `loadConfigFile`, for `createLogger()` (which must return a
 * logger at once): TypeScript/JavaScript through jiti's synchronous loader
 * (no top-level await in such a config), YAML/JSON read and parsed in place.
 * @example const { data } = loadConfigFileSync("stowage.config.ts");
 */
export function loadConfigFileSync(
  path: string,
  options: { env?: Env; cwd?: string } = {},
): LoadedConfigFile {
  const abs = resolve(options.cwd ?? process.cwd(), path);
  const format = formatOf(abs);
  if (!existsSync(abs)) throw new StowageError("config", `config file ${abs} does not exist`);
  if (format === "ts" || format === "js") {
    let mod: unknown;
    try {
      const { createJiti } = createRequire(import.meta.url)("jiti") as typeof import("jiti");
      mod = createJiti(import.meta.url, { fsCache: false, moduleCache: false })(abs);
    } catch (err) {
      const first = String((err as Error)?.message ?? err).split("\n")[0];
      throw new StowageError("config", `${abs}: could not load the config module: ${first}`, {
        cause: err,
      });
    }
    const data =
      mod && typeof mod === "object" && "default" in mod
        ? (mod as { default: unknown }).default
        : mod;
    if (data === undefined || data === null || typeof data !== "object") {
      throw new StowageError(
        "config",
        `${abs}: the module must \`export default defineConfig({...})\``,
      );
    }
    return { path: abs, format, origin: "code", data };
  }
  const parsed = parseData(readFileSync(abs, "utf8"), abs, format === "json" ? "JSON" : "YAML");
  return {
    path: abs,
    format,
    origin: "data",
    data: interpolateEnv(parsed ?? {}, options.env ?? processEnv(), abs),
  };
}
