// ESLint rule `stowage/one-retry-loop`: every retry waits in the one retry loop,
// store/retry-policy.ts (DESIGN.md "Errors"). Elsewhere, importing `sleep` from
// shared/abort — or calling a `sleep` inside a loop — is a second retry loop in the making.
// A wait that is not a retry (a timeout raced against a promise, a probe waiting out its
// lock) is allowed per file, with the reason: `{ allow: { "src/x.ts": "why" } }`.
import { dirname, relative, resolve, sep } from "node:path";

const ABORT_MODULE = "src/shared/abort";
const LOOPS = new Set([
  "ForStatement",
  "ForInStatement",
  "ForOfStatement",
  "WhileStatement",
  "DoWhileStatement",
]);
const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

const posix = (p) => p.split(sep).join("/");

/** True when `spec`, imported from `file`, is shared/abort (with or without .js/.ts). */
function isAbortModule(spec, file, cwd) {
  if (!spec.startsWith(".")) return false;
  const target = posix(relative(cwd, resolve(cwd, dirname(file), spec)));
  return target.replace(/\.(js|ts)$/, "") === ABORT_MODULE;
}

/** True when `node` sits in a loop's body within its own function. */
function inLoop(context, node) {
  for (const a of context.sourceCode.getAncestors(node).reverse()) {
    if (FUNCTIONS.has(a.type)) return false;
    if (LOOPS.has(a.type)) return true;
  }
  return false;
}

export default {
  meta: {
    type: "problem",
    docs: { description: "retries wait only in store/retry-policy.ts" },
    schema: [
      {
        type: "object",
        properties: { allow: { type: "object", additionalProperties: { type: "string" } } },
        additionalProperties: false,
      },
    ],
    messages: {
      import:
        "`sleep` from shared/abort is for the one retry loop (src/store/retry-policy.ts): retry through attemptWithRetry/withRetry (a `beforeAttempt` hook charges a budget). A wait that is not a retry goes in the allow-list of eslint.config.js with its reason.",
      loop: "a loop that sleeps is a retry loop: use attemptWithRetry/withRetry from src/store/retry-policy.ts. A wait that is not a retry goes in the allow-list of eslint.config.js with its reason.",
    },
  },
  create(context) {
    const file = posix(relative(context.cwd, context.filename));
    const allow = context.options[0]?.allow ?? {};
    if (Object.hasOwn(allow, file)) return {};
    return {
      ImportDeclaration(node) {
        if (typeof node.source.value !== "string") return;
        if (!isAbortModule(node.source.value, file, context.cwd)) return;
        for (const s of node.specifiers)
          if (s.type === "ImportSpecifier" && (s.imported.name ?? s.imported.value) === "sleep")
            context.report({ node: s, messageId: "import" });
      },
      CallExpression(node) {
        const c = node.callee;
        const name =
          c.type === "Identifier"
            ? c.name
            : c.type === "MemberExpression" && !c.computed && c.property.type === "Identifier"
              ? c.property.name
              : undefined;
        if (name === "sleep" && inLoop(context, node)) context.report({ node, messageId: "loop" });
      },
    };
  },
};
