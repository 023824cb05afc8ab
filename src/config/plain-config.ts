/**
 * The fast path for a `stowage.config.ts` that is plain JavaScript apart from
 * its file name (the README's shape: `import { defineConfig } from "stowage"`
 * and `export default defineConfig({...})`). Such a file needs no TypeScript
 * transform, so it is evaluated directly, without loading jiti and its transform
 * (bench/config-load.ts). Anything else returns undefined and goes through jiti.
 */
import { defineConfig } from "./define-config.js";

const STOWAGE_IMPORT = /^\s*import\s+(type\s+)?\{([^}]*)\}\s*from\s*["']stowage["'];?[ \t]*$/gm;
const OTHER_MODULE_SYNTAX = /\bimport\b|\bexport\b(?!\s+default\b)|\brequire\s*\(/;

/**
 * Evaluates `source` when it is plain JavaScript of the README's shape and
 * returns its default export; undefined when the file needs jiti (TypeScript
 * syntax, other imports or exports, top-level await).
 * @example plainConfig('import { defineConfig } from "stowage";\nexport default defineConfig({ service: "a" });') // { service: "a" }
 */
export function plainConfig(source: string): { value: unknown } | undefined {
  let onlyDefine = true;
  const body = source.replace(STOWAGE_IMPORT, (_m, typeOnly: string | undefined, names: string) => {
    if (typeOnly) return "";
    for (const n of names.split(",").map((s) => s.trim())) {
      if (n !== "" && n !== "defineConfig" && !n.startsWith("type ")) onlyDefine = false;
    }
    return "";
  });
  if (!onlyDefine) return undefined;
  const parts = body.split(/\bexport\s+default\b/);
  if (parts.length !== 2 || OTHER_MODULE_SYNTAX.test(parts.join(" "))) return undefined;
  let run: (define: typeof defineConfig) => unknown;
  try {
    // The config is the user's own code, evaluated as jiti would; a syntax error here just
    // means TypeScript syntax, which jiti handles.
    run = new Function(
      "defineConfig",
      `"use strict";\n${parts[0]}\nreturn (${parts[1]!.trim().replace(/;\s*$/, "")}\n);`,
    ) as typeof run;
  } catch {
    return undefined;
  }
  return { value: run(defineConfig) };
}
