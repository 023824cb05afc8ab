// ESLint rule `stowage/dependency-home`: each outside dependency is imported
// (statically, dynamically or as a type) only from its one home (DESIGN.md).
import { relative, sep } from "node:path";

/**
 * Packages with one home; `homes` are path prefixes relative to the repository. An entry
 * with `specs` matches import specifiers by prefix instead: another package's internals
 * (not its public exports) are reached through one pinned wrapper only.
 */
export const DEPENDENCY_HOMES = [
  { specs: ["hyparquet-writer/src/"], homes: ["src/encoders/hyparquet-internals.ts"] },
  { pkgs: ["@aws-sdk/*", "@smithy/*"], homes: ["src/store/"] },
  {
    pkgs: ["better-sqlite3"],
    homes: ["src/spool/sqlite-driver.ts", "src/export/sources/sqlite.ts"],
  },
  { pkgs: ["pg", "pg-cursor", "mysql2"], homes: ["src/export/sources/"] },
  { pkgs: ["pino", "pino-abstract-transport"], homes: ["src/bridges/pino/"] },
  {
    pkgs: ["winston", "winston-transport", "logform", "triple-beam"],
    homes: ["src/bridges/winston/"],
  },
  { pkgs: ["@opentelemetry/*"], homes: ["src/bridges/otel/"] },
  { pkgs: ["express"], homes: ["src/bridges/express/"] },
  { pkgs: ["fastify"], homes: ["src/bridges/fastify/"] },
  { pkgs: ["hono", "@hono/*"], homes: ["src/bridges/hono/"] },
];

function packageOf(spec) {
  if (spec.startsWith(".") || spec.startsWith("node:")) return undefined;
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

function matches(pkg, pattern) {
  return pattern.endsWith("/*") ? pkg.startsWith(pattern.slice(0, -1)) : pkg === pattern;
}

/** The entry of DEPENDENCY_HOMES that owns `spec`, if any. */
export function homeOf(spec) {
  const deep = DEPENDENCY_HOMES.find((h) => h.specs?.some((p) => spec.startsWith(p)));
  if (deep) return deep;
  const pkg = packageOf(spec);
  return pkg === undefined
    ? undefined
    : DEPENDENCY_HOMES.find((h) => h.pkgs?.some((p) => matches(pkg, p)));
}

const rule = {
  meta: {
    type: "problem",
    docs: { description: "an outside dependency is imported only from its one home module" },
    schema: [],
    messages: {
      away: "`{{spec}}` is imported only in {{homes}} (DESIGN.md: one home per outside dependency); go through that module instead.",
    },
  },
  create(context) {
    const file = relative(context.cwd, context.filename).split(sep).join("/");
    const check = (node, source) => {
      if (!source || typeof source.value !== "string") return;
      const home = homeOf(source.value);
      if (!home || home.homes.some((h) => file === h || (h.endsWith("/") && file.startsWith(h))))
        return;
      context.report({
        node,
        messageId: "away",
        data: { spec: source.value, homes: home.homes.join(" and ") },
      });
    };
    return {
      ImportDeclaration: (n) => check(n, n.source),
      ExportNamedDeclaration: (n) => check(n, n.source),
      ExportAllDeclaration: (n) => check(n, n.source),
      ImportExpression: (n) => check(n, n.source),
      TSImportType: (n) => check(n, n.argument?.literal ?? n.source ?? n.argument),
    };
  },
};

/** The local plugin: `plugins: { stowage }` then `"stowage/dependency-home": "error"`. */
export default { meta: { name: "stowage-lint" }, rules: { "dependency-home": rule } };
