/**
 * The transform jiti runs on a TypeScript (or ES module) config file and the files it
 * imports: sucrase strips the types and turns `import`/`export` into CommonJS, keeping
 * every line where it was (stack traces and error positions stay true). Sucrase loads and
 * transforms a config in ~0.1 s, a fraction of what jiti's bundled Babel costs
 * (bench/config-load.ts). It is required on the first transform only: a load served from
 * jiti's file cache never loads it. `import.meta` is found with sucrase's own tokenizer
 * (`sucrase/dist/parser`, pinned with the package version).
 */
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import type { TransformOptions, TransformResult } from "jiti";
import type { transform as SucraseTransform } from "sucrase";

/** A config source that does not parse: the file and the 1-based line and column. */
export class ConfigSyntaxError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`${file}:${line}:${column}: ${reason}`);
    this.name = "ConfigSyntaxError";
  }
}

let sucrase: typeof SucraseTransform | undefined;
function loadSucrase(): typeof SucraseTransform {
  sucrase ??= (createRequire(import.meta.url)("sucrase") as { transform: typeof SucraseTransform })
    .transform;
  return sucrase;
}

interface Token {
  start: number;
  end: number;
}
type SucraseParse = (
  input: string,
  jsx: boolean,
  ts: boolean,
  flow: boolean,
) => { tokens: Token[] };

/**
 * `import.meta` has no meaning in the CommonJS jiti evaluates: each use becomes an object
 * with the file's `url`, `filename`, `dirname`, `env` and `resolve` (jiti's ESM resolver,
 * in scope in every module jiti evaluates), as jiti's own transform does. Found with
 * sucrase's tokenizer, so the words inside strings, comments and regular expressions stay;
 * written on the same line, so line numbers do not move. A source that does not parse is
 * returned as it is (the transform then reports where).
 */
function importMeta(source: string, filename: string | undefined, ts: boolean): string {
  if (!filename || !source.includes("meta")) return source;
  const parse = (createRequire(import.meta.url)("sucrase/dist/parser") as { parse: SucraseParse })
    .parse;
  let tokens: Token[];
  try {
    tokens = parse(source, false, ts, false).tokens;
  } catch {
    return source;
  }
  const text = (t: Token | undefined) => (t ? source.slice(t.start, t.end) : "");
  const meta =
    `({ url: ${JSON.stringify(pathToFileURL(filename).href)}, ` +
    `filename: ${JSON.stringify(filename)}, dirname: ${JSON.stringify(dirname(filename))}, ` +
    `env: process.env, resolve: jitiESMResolve })`;
  let out = "";
  let from = 0;
  tokens.forEach((t, i) => {
    if (text(t) !== "import" || text(tokens[i + 1]) !== "." || text(tokens[i + 2]) !== "meta")
      return;
    out += source.slice(from, t.start) + meta;
    from = tokens[i + 2]!.end;
  });
  return from === 0 ? source : out + source.slice(from);
}

/**
 * jiti's `transform` option: TypeScript (when `ts`) and ES module syntax to CommonJS.
 * A syntax error throws a ConfigSyntaxError (nothing is cached for that source).
 * @example createJiti(import.meta.url, { transform: transformConfigSource })
 */
export function transformConfigSource(opts: TransformOptions): TransformResult {
  const transform = loadSucrase();
  const file = opts.filename ?? "(config)";
  let code: string;
  try {
    code = transform(importMeta(opts.source, opts.filename, opts.ts === true), {
      transforms: opts.ts ? ["typescript", "imports"] : ["imports"],
      filePath: file,
      // Node 20 runs class fields, numeric separators and the like natively: keep them as written.
      disableESTransforms: true,
    }).code;
  } catch (err) {
    const loc = (err as { loc?: { line?: number; column?: number } }).loc;
    const message = String((err as Error)?.message ?? err);
    const prefix = `Error transforming ${file}: `;
    const reason = (message.startsWith(prefix) ? message.slice(prefix.length) : message).replace(
      /\s*\(\d+:\d+\)\s*$/,
      "",
    );
    throw new ConfigSyntaxError(file, loc?.line ?? 1, loc?.column ?? 1, reason);
  }
  return { code };
}
