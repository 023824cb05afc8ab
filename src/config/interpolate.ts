/**
 * `${ENV}` interpolation in data config files (YAML/JSON, SPEC §7.1). It runs on
 * parsed string values — never on the raw text, so a variable cannot inject
 * structure. `$${X}` writes a literal `${X}`; `${X:-fallback}` uses a fallback
 * when X is unset or empty. A missing variable is a config error naming the
 * variable and the key, never a value.
 */
import { StowageError } from "../shared/errors.js";
import type { Env } from "./env.js";

const REF = /\$(\$?)\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function label(path: (string | number)[]): string {
  return (
    path.reduce<string>(
      (acc, seg) => (typeof seg === "number" ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg),
      "",
    ) || "the top level"
  );
}

function interpolateString(
  text: string,
  env: Env,
  path: (string | number)[],
  file: string,
): string {
  return text.replace(REF, (whole, escape: string, body: string) => {
    if (escape) return whole.slice(1);
    const sep = body.indexOf(":-");
    const name = sep >= 0 ? body.slice(0, sep) : body;
    if (!NAME.test(name)) {
      throw new StowageError(
        "config",
        `${file}: \`${label(path)}\` has an invalid reference \${${name.slice(0, 40)}}; write \${NAME} with letters, digits and _, or $\${...} for a literal`,
      );
    }
    const value = env[name];
    if (value !== undefined && value !== "") return value;
    if (sep >= 0) return body.slice(sep + 2);
    throw new StowageError(
      "config",
      `${file}: \`${label(path)}\` uses \${${name}}, but the environment variable ${name} is not set`,
      {
        hint: `set ${name}, or write \${${name}:-default} for a fallback`,
      },
    );
  });
}

/**
 * Replaces `${NAME}` references in every string of a parsed config (keys are left alone).
 * @example interpolateEnv({ bucket: "${B}" }, { B: "logs" }, "x.yaml") // { bucket: "logs" }
 */
export function interpolateEnv(
  value: unknown,
  env: Env,
  file: string,
  path: (string | number)[] = [],
): unknown {
  if (typeof value === "string")
    return value.includes("${") ? interpolateString(value, env, path, file) : value;
  if (Array.isArray(value)) return value.map((v, i) => interpolateEnv(v, env, file, [...path, i]));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, interpolateEnv(v, env, file, [...path, k])]),
    );
  }
  return value;
}
