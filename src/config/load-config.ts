/**
 * Config files (SPEC §1): discovery of `stowage.config.*` in a directory and
 * loading of TypeScript/JavaScript (through jiti, with sucrase as its transform:
 * ts-transform.ts), JSON and YAML (with `${ENV}` interpolation). Parse errors carry
 * line and column; source text is never echoed (a config line may hold a secret).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { readFile } from "node:fs/promises";
import { basename, extname, join, resolve } from "node:path";
import type { createJiti as CreateJiti } from "jiti";
import type * as Yaml from "yaml";
import { StowageError } from "../shared/errors.js";
import { defineConfig } from "./define-config.js";
import { processEnv, type Env } from "./env.js";
import { interpolateEnv } from "./interpolate.js";
import { plainConfig } from "./plain-config.js";
import { ConfigSyntaxError, transformConfigSource } from "./ts-transform.js";

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

/** Loads a dependency synchronously when a config file first needs it (yaml, jiti), not on import. */
const requireLazily = createRequire(import.meta.url);

/** The yaml package, loaded with the first YAML or JSON file: importing stowage does not pay for it. */
let yaml: typeof Yaml | undefined;

/** YAML (and JSON, a subset) with line:column errors and duplicate keys refused. */
function parseData(text: string, file: string, kind: "YAML" | "JSON"): unknown {
  yaml ??= requireLazily("yaml") as typeof Yaml;
  const doc = yaml.parseDocument(text, { uniqueKeys: true, prettyErrors: true });
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

/**
 * JSON is parsed strictly (no trailing commas, comments or single quotes, as
 * YAML would allow) and must hold an object; errors carry line:column.
 */
function parseJson(raw: string, file: string): unknown {
  const text = raw.replace(/^\uFEFF/, "");
  const where = (pos: number) => {
    const before = text.slice(0, pos).split("\n");
    return { line: before.length, col: before[before.length - 1]!.length + 1 };
  };
  const fail = (pos: number, reason: string): never => {
    const { line, col } = where(pos);
    throw new StowageError(
      "config",
      `${file}:${line}:${col}: invalid JSON: ${reason} (line ${line}, column ${col})`,
    );
  };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const pos = /at position (\d+)/.exec(message);
    const reason = message
      .replace(/ in JSON at position \d+.*$/s, "")
      .replace(/^JSON\.parse: /, "");
    fail(pos ? Number(pos[1]) : text.length, reason);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    const kind = data === null ? "null" : Array.isArray(data) ? "a list" : `a ${typeof data}`;
    fail(
      text.length - text.trimStart().length,
      `the top level must be an object {...}, not ${kind}`,
    );
  }
  parseData(text, file, "JSON"); // duplicate keys are refused as in YAML
  return data;
}

const parseText = (text: string, file: string, format: LoadedConfigFile["format"]) =>
  format === "json" ? parseJson(text, file) : parseData(text, file, "YAML");

/**
 * A config that imports only `defineConfig` (and types) from "stowage", as the
 * README shows, gets it as a virtual module: otherwise jiti transpiles the whole
 * package and its dependencies on every load (8.8 s measured; bench/config-load.ts).
 */
const STOWAGE_IMPORT = /\bimport\s+(type\s+)?([^;]*?)\s+from\s*["']stowage["']/g;

function jitiOptions(path: string): Parameters<typeof CreateJiti>[1] {
  // transform: sucrase instead of jiti's bundled Babel (~0.1 s to load instead of ~0.9 s).
  // fsCache: the transpiled config is kept (keyed by its content hash) in jiti's cache
  // (node_modules/.cache/jiti beside the config, else the OS temp directory), so a load
  // after the first does not even load sucrase. moduleCache off: always re-read.
  const options = { fsCache: true, moduleCache: false, transform: transformConfigSource };
  let source: string;
  try {
    source = readFileSync(path, "utf8");
  } catch {
    return options;
  }
  let uses = false;
  for (const m of source.matchAll(STOWAGE_IMPORT)) {
    uses = true;
    if (m[1]) continue; // import type {...}
    const names = /^\{([^}]*)\}$/.exec(m[2]!.trim());
    const onlyDefine = names?.[1]!
      .split(",")
      .map((n) => n.trim())
      .every((n) => n === "" || n === "defineConfig" || n.startsWith("type "));
    if (!onlyDefine) return options;
  }
  if (!uses || /\brequire\(\s*["']stowage["']|import\(\s*["']stowage["']/.test(source))
    return options;
  return { ...options, virtualModules: { stowage: { defineConfig } } };
}

/**
 * A config module that failed: a syntax error names file:line:column (the config's own or
 * that of a file it imports); anything else gives the first line of its message.
 */
function codeError(path: string, err: unknown, hint?: string): StowageError {
  const reason =
    err instanceof ConfigSyntaxError
      ? `syntax error at ${err.file}:${err.line}:${err.column}: ${err.reason}`
      : String((err as Error)?.message ?? err).split("\n")[0];
  return new StowageError("config", `${path}: could not load the config module: ${reason}`, {
    cause: err,
    hint,
  });
}

async function importCode(path: string): Promise<unknown> {
  try {
    const plain = plainConfig(await readFile(path, "utf8"));
    if (plain) return plain.value;
    const { createJiti } = await import("jiti");
    const jiti = createJiti(import.meta.url, jitiOptions(path));
    return await jiti.import(path, { default: true });
  } catch (err) {
    throw codeError(path, err);
  }
}

/** Synchronous variant for `createLogger()`: jiti's require path (no top-level await in the config). */
function requireCode(path: string): unknown {
  try {
    const plain = plainConfig(readFileSync(path, "utf8"));
    if (plain) return plain.value;
    const { createJiti } = requireLazily("jiti") as {
      createJiti: typeof CreateJiti;
    };
    const jiti = createJiti(import.meta.url, jitiOptions(path));
    const mod = jiti(path) as { default?: unknown } | undefined;
    return mod && typeof mod === "object" && "default" in mod ? mod.default : mod;
  } catch (err) {
    const awaits = err instanceof SyntaxError && /\bawait\b/.test(err.message);
    throw codeError(
      path,
      err,
      awaits
        ? "createLogger() reads the config synchronously, so the config cannot use top-level await"
        : undefined,
    );
  }
}

function finish(
  abs: string,
  format: LoadedConfigFile["format"],
  data: unknown,
  env: Env,
): LoadedConfigFile {
  if (format === "ts" || format === "js") {
    if (data === undefined || data === null || typeof data !== "object") {
      throw new StowageError(
        "config",
        `${abs}: the module must \`export default defineConfig({...})\``,
      );
    }
    return { path: abs, format, origin: "code", data };
  }
  return { path: abs, format, origin: "data", data: interpolateEnv(data ?? {}, env, abs) };
}

function locate(
  path: string,
  cwd: string | undefined,
): { abs: string; format: LoadedConfigFile["format"] } {
  const abs = resolve(cwd ?? process.cwd(), path);
  const format = formatOf(abs);
  if (!existsSync(abs)) throw new StowageError("config", `config file ${abs} does not exist`);
  return { abs, format };
}

/**
 * Loads one config file. YAML/JSON strings get `${ENV}` interpolation from `env`.
 * @example const { data, origin } = await loadConfigFile("stowage.config.yaml", { env: process.env });
 */
export async function loadConfigFile(
  path: string,
  options: { env?: Env; cwd?: string } = {},
): Promise<LoadedConfigFile> {
  const { abs, format } = locate(path, options.cwd);
  const env = options.env ?? processEnv();
  if (format === "ts" || format === "js") return finish(abs, format, await importCode(abs), env);
  const text = await readFile(abs, "utf8");
  return finish(abs, format, parseText(text, abs, format), env);
}

/**
 * Synchronous loadConfigFile, for `createLogger()` which must not return a promise.
 * TypeScript/JavaScript configs go through jiti's require path, so they cannot use
 * top-level await.
 * @example const { data } = loadConfigFileSync("stowage.config.ts", { env: process.env });
 */
export function loadConfigFileSync(
  path: string,
  options: { env?: Env; cwd?: string } = {},
): LoadedConfigFile {
  const { abs, format } = locate(path, options.cwd);
  const env = options.env ?? processEnv();
  if (format === "ts" || format === "js") return finish(abs, format, requireCode(abs), env);
  const text = readFileSync(abs, "utf8");
  return finish(abs, format, parseText(text, abs, format), env);
}
