// ESLint rule `stowage/sdk-error-shape`: storage errors are classified once, where the store
// throws them (DESIGN.md "Errors"). Only src/store/classify-error.ts reads the shape of an AWS
// SDK error — `$metadata` (the HTTP status), `$response` (headers: Retry-After, the bucket's
// region), `$fault` — so a second parser cannot grow elsewhere; every other module reads the
// class the error carries: classifyError(err).code / .status / .retryAfterMs / .region.

const SDK_FIELDS = new Set(["$metadata", "$response", "$fault"]);

/** The name of a member or destructured key, when it is written as a name or a string. */
function nameOf(key, computed) {
  if (!computed && key.type === "Identifier") return key.name;
  if (key.type === "Literal" && typeof key.value === "string") return key.value;
  return undefined;
}

export default {
  meta: {
    type: "problem",
    docs: { description: "only store/classify-error.ts reads the shape of an SDK error" },
    schema: [],
    messages: {
      shape:
        "`{{name}}` is the shape of an SDK error, read only in src/store/classify-error.ts (storage errors are classified once): read the class instead — classifyError(err).status, .code, .retryAfterMs, .region.",
    },
  },
  create(context) {
    const check = (node, name) => {
      if (name !== undefined && SDK_FIELDS.has(name))
        context.report({ node, messageId: "shape", data: { name } });
    };
    return {
      MemberExpression: (n) => check(n.property, nameOf(n.property, n.computed)),
      // `const { $metadata } = err`
      "ObjectPattern > Property": (n) => check(n.key, nameOf(n.key, n.computed)),
    };
  },
};
