/**
 * Source-code context for a record (SPEC §5.4): the lines around its `caller`
 * (`relative/path.ts:LINE`) or its stack's first frame inside the project.
 *
 * Invariants: only regular files whose real path (symlinks resolved) lies inside
 * the project's real path are read; only source extensions; at most `maxBytes`;
 * every refusal is a typed reason, never an exception; stowage config files are
 * refused and sensitive values scrubbed in every mode (source-scrub.ts).
 */
import { realpath, readFile, stat } from "node:fs/promises";
import { extname, isAbsolute, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { SourceContextResponse } from "./api-types.js";
import { isStowageConfigFile, scrubSourceLines } from "./source-scrub.js";

const LANGUAGES: Readonly<Record<string, string>> = {
  ".ts": "typescript",
  ".tsx": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".js": "javascript",
  ".jsx": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".py": "python",
  ".go": "go",
  ".rb": "ruby",
  ".java": "java",
  ".kt": "kotlin",
  ".rs": "rust",
  ".php": "php",
  ".cs": "csharp",
  ".c": "c",
  ".h": "c",
  ".cc": "cpp",
  ".cpp": "cpp",
  ".hpp": "cpp",
  ".swift": "swift",
  ".scala": "scala",
  ".ex": "elixir",
  ".exs": "elixir",
  ".vue": "vue",
  ".svelte": "svelte",
};

export interface SourceContextOptions {
  /** The project's real path (resolved once at launch), or undefined when none is attached. */
  projectDir: string | undefined;
  /** Lines shown on each side of the target line. Default 12. */
  radius?: number;
  /** Largest file read. Default 1 MiB. */
  maxBytes?: number;
}

interface Location {
  path: string;
  line: number;
}

/** `src/a.ts:42`, `src/a.ts:42:7`, `file:///x/a.ts:42` → path + line. */
export function parseCaller(caller: string): Location | null {
  const m = /^(.+?):(\d+)(?::\d+)?$/.exec(caller.trim());
  if (!m) return null;
  let path = m[1]!;
  if (path.startsWith("file://")) {
    try {
      path = fileURLToPath(path);
    } catch {
      return null;
    }
  }
  return { path, line: Number(m[2]) };
}

/** Frame locations of a V8-style stack, in order (`at fn (path:line:col)` / `at path:line:col`). */
export function stackLocations(stack: string): Location[] {
  const out: Location[] = [];
  for (const raw of stack.split("\n")) {
    const m = /^\s*at\s+(?:.*?\()?(.+?:\d+(?::\d+)?)\)?\s*$/.exec(raw);
    if (!m) continue;
    const loc = parseCaller(m[1]!);
    if (loc && !loc.path.startsWith("node:") && !loc.path.includes(`${sep}node_modules${sep}`))
      out.push(loc);
  }
  return out;
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * Resolves and reads the context for a caller or stack.
 * @example await readSourceContext({ projectDir: "/repo" }, { caller: "src/app.ts:42" })
 */
export async function readSourceContext(
  options: SourceContextOptions,
  query: { caller?: string | undefined; stack?: string | undefined },
): Promise<SourceContextResponse> {
  const project = options.projectDir;
  if (project === undefined) {
    return {
      ok: false,
      reason: "no-project",
      detail: "no project directory is attached; start Studio with `stowage studio <projectDir>`",
    };
  }
  let loc: Location | null = null;
  if (query.caller) {
    loc = parseCaller(query.caller);
    if (!loc)
      return {
        ok: false,
        reason: "no-caller",
        detail: `"${query.caller.slice(0, 120)}" is not a path:line caller`,
      };
  } else if (query.stack) {
    loc =
      stackLocations(query.stack).find((l) =>
        inside(project, isAbsolute(l.path) ? l.path : resolve(project, l.path)),
      ) ?? null;
    if (!loc)
      return {
        ok: false,
        reason: "no-caller",
        detail: "no frame of the stack points into the project",
      };
  } else {
    return {
      ok: false,
      reason: "no-caller",
      detail: "the record has no caller (enable `caller: true` in the logger config) and no stack",
    };
  }
  return readLocation(project, loc, options.radius ?? 12, options.maxBytes ?? 1024 * 1024);
}

async function readLocation(
  project: string,
  loc: Location,
  radius: number,
  maxBytes: number,
): Promise<SourceContextResponse> {
  const wanted = isAbsolute(loc.path) ? resolve(loc.path) : resolve(project, loc.path);
  if (!inside(project, wanted)) {
    return {
      ok: false,
      reason: "outside-project",
      detail: `${loc.path} is outside the project directory`,
    };
  }
  if (!LANGUAGES[extname(wanted).toLowerCase()]) {
    return {
      ok: false,
      reason: "not-source",
      detail: `${relative(project, wanted)} is not a source file (by its extension)`,
    };
  }
  let real: string;
  try {
    real = await realpath(wanted);
  } catch {
    return {
      ok: false,
      reason: "not-found",
      detail: `${relative(project, wanted)} does not exist in the project`,
    };
  }
  if (!inside(project, real)) {
    return {
      ok: false,
      reason: "outside-project",
      detail: `${relative(project, wanted)} is a symlink that leads outside the project`,
    };
  }
  if (isStowageConfigFile(wanted) || isStowageConfigFile(real))
    return {
      ok: false,
      reason: "sensitive",
      detail: `${relative(project, wanted)} is a stowage config file; it may hold credentials, so it is never shown`,
    };
  const language = LANGUAGES[extname(real).toLowerCase()];
  if (!language)
    return {
      ok: false,
      reason: "not-source",
      detail: `${relative(project, wanted)} resolves to a file that is not source code`,
    };
  const info = await stat(real);
  if (!info.isFile())
    return {
      ok: false,
      reason: "not-found",
      detail: `${relative(project, wanted)} is not a regular file`,
    };
  if (info.size > maxBytes) {
    return {
      ok: false,
      reason: "too-large",
      detail: `${relative(project, wanted)} is ${info.size} bytes; source context reads files up to ${maxBytes} bytes`,
    };
  }
  const all = (await readFile(real, "utf8")).split(/\r?\n/);
  if (loc.line < 1 || loc.line > all.length) {
    return {
      ok: false,
      reason: "not-found",
      detail: `line ${loc.line} is past the end of ${relative(project, wanted)} (${all.length} lines); the file changed since the record was written`,
    };
  }
  const start = Math.max(1, loc.line - radius);
  const end = Math.min(all.length, loc.line + radius);
  return {
    ok: true,
    file: relative(project, wanted).split(sep).join("/"),
    line: loc.line,
    startLine: start,
    // the whole file is scrubbed, then cut: a key just above the window still hides its
    // value below (issue 31 §3), and a string or comment open there is read as one
    lines: scrubSourceLines(all).slice(start - 1, end),
    language,
  };
}
