// ESLint flat config: typescript-eslint (type-aware where it pays), the
// dependency direction of DESIGN.md and one home per outside dependency.
import tseslint from "typescript-eslint";
import importX, { createNodeResolver } from "eslint-plugin-import-x";
import dependencyHomes from "./lint/dependency-homes.js";
import oneRetryLoop from "./lint/one-retry-loop.js";
import sdkErrorShape from "./lint/sdk-error-shape.js";

// The local plugin: one home per outside dependency, one SDK-error parser, one retry loop.
const stowage = {
  meta: dependencyHomes.meta,
  rules: {
    ...dependencyHomes.rules,
    "sdk-error-shape": sdkErrorShape,
    "one-retry-loop": oneRetryLoop,
  },
};

// Waits in src/ that are not a retry of a failed call, each with its reason (rule
// stowage/one-retry-loop: every retry waits in store/retry-policy.ts, the one loop).
const NOT_RETRY_WAITS = {
  "src/store/retry-policy.ts": "the one retry loop itself",
  "src/delivery/wait.ts": "a timeout raced against a promise (flush and close deadlines)",
  "src/delivery/delivery-sink.ts":
    "the drain's pause between rounds of handing batches out; each upload retries through retry-policy",
  "src/connectors/otlp-http.ts":
    "waitIdle's timeout raced against the queue going idle; each POST retries through retry-policy",
  "src/doctor/retention-checks.ts":
    "the lock probe waits out its 2 s retention before its version can be deleted",
  "src/bridges/client/batcher.ts":
    "the browser client's send loop: no Node module (its own timer); its wait is store/backoff's retryDelayMs",
  "src/reader/follow.ts":
    "`logs --follow` polls intervalMs apart (the waiting is the work); each poll's requests retry through retry-policy under its grant",
};

// DESIGN.md: shared ← v1-format (the v1 object format as data, both sides use it) ← record, config ← store, batch ← delivery, spool ← logger, reader,
// export, doctor, verify ← studio ← cli. A module imports only from lower layers; siblings in a
// layer do not import each other, except spool → delivery (spool implements the buffer
// interface delivery defines). demo/ (the sample workload of `stowage demo`) and bridges/
// (one folder per framework subpath: stowage/pino, stowage/express, …) sit beside studio.
// connectors/ (outbound channels beside the destination, docs/connectors.md) sits beside
// delivery: of store/ it takes only the retry policy and the error classification.
// encoders/ (the Parquet/CSV/NDJSON file encoders and the multipart writer they stream into)
// sits below export and compact, which share it. compact/ reads v1 hours through reader/ and
// writes through encoders/, so it sits above reader/ (and never imports export/, below);
// doctor/ and verify/ sit above it, because they read compaction's layout and manifests.
const LAYERS = [
  ["shared"],
  ["v1-format"],
  ["record", "config"],
  ["store", "batch"],
  ["delivery", "spool", "connectors", "encoders"],
  ["logger", "reader", "export"],
  ["compact"],
  ["doctor", "verify"],
  ["studio", "demo", "bridges"],
  ["cli"],
];
const SIBLING_EXCEPTIONS = { spool: ["delivery"] };
const WRITE_PATH = ["logger", "delivery", "spool", "batch", "export", "connectors"];

function layerZones() {
  const zones = [];
  LAYERS.forEach((layer, i) => {
    const below = LAYERS.slice(0, i).flat();
    for (const mod of layer) {
      const allowed = [...below, ...(SIBLING_EXCEPTIONS[mod] ?? [])];
      const forbidden = LAYERS.flat().filter((m) => m !== mod && !allowed.includes(m));
      if (forbidden.length === 0) continue;
      zones.push({
        target: `./src/${mod}`,
        from: forbidden.map((m) => `./src/${m}`),
        message:
          allowed.length === 0
            ? `${mod}/ is a leaf: it imports nothing of Stowage (DESIGN.md dependency direction).`
            : `${mod}/ imports only ${allowed.map((m) => `${m}/`).join(", ")} (DESIGN.md dependency direction).`,
      });
    }
  });
  zones.push(
    {
      target: "./src/studio",
      from: WRITE_PATH.map((m) => `./src/${m}`),
      message: "studio/ reads through reader/; it never imports the write path.",
    },
    {
      target: ["./src/reader", "./src/verify", "./src/compact", "./src/studio"],
      from: ["./src/batch", "./src/delivery", "./src/spool", "./src/connectors"],
      message:
        "the read side (reader/, verify/, compact/, studio/) never imports the write path: the v1 format it shares with the writer is v1-format/.",
    },
    {
      target: "./src/verify",
      from: ["./src/connectors", "./src/export", "./src/logger"],
      message: "verify/ is the read side: it never imports connectors/, export/ or the logger.",
    },
    {
      target: "./src/doctor",
      from: ["./src/reader", "./src/export", "./src/logger"],
      message:
        "doctor/ takes compaction's layout from compact/; it never imports reader/, export/ or the logger.",
    },
    {
      target: "./src/compact",
      from: ["./src/export", "./src/logger", "./src/delivery", "./src/spool", "./src/connectors"],
      message:
        "compact/ reads through reader/ and writes through encoders/: it never imports export/ or the write path.",
    },
    {
      target: "./src/encoders",
      from: ["./src/batch", "./src/record", "./src/config"],
      message: "encoders/ takes shared/ and the store interface only.",
    },
    {
      target: "./src/connectors",
      from: ["./src/store", "./src/batch"],
      except: ["./retry-policy.ts", "./classify-error.ts"],
      message:
        "connectors/ takes only store/retry-policy and store/classify-error of the layer below delivery (the one retry policy, the one classification).",
    },
  );
  return zones;
}

const TYPED_FILES = ["src/**/*.ts", "src/**/*.tsx", "test/**/*.ts", "bench/**/*.ts"];
// Buffer.concat is fine where the bytes are already bounded: the gunzip line splitter
// (a line cap), the multipart writer (one part), Studio's POST reader (MAX_BODY_BYTES), and
// the capped reader itself.
const BOUNDED_CONCAT = [
  "src/shared/read-capped.ts",
  "src/reader/bounded-gunzip.ts",
  "src/encoders/multipart-writer.ts",
  "src/studio/server.ts",
];
const ARGV_BAN = {
  selector: "MemberExpression[object.name='process'][property.name='argv']",
  message: "process.argv is read only in src/cli/.",
};
const CONCAT_BAN = {
  selector: "CallExpression[callee.object.name='Buffer'][callee.property.name='concat']",
  message:
    "Unbounded read: collect a body with readCapped(body, maxBytes, what) from shared/read-capped, which stops at a byte cap.",
};

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      "docs/**",
      ".stowage/**",
      "coverage/**",
      "test/package/fixtures/**",
    ],
  },
  ...tseslint.configs.recommended,
  {
    plugins: { "import-x": importX, stowage },
    settings: {
      // Resolve `./x.js` to `./x.ts` as TypeScript does, so the zones below see every import.
      "import-x/resolver-next": [
        createNodeResolver({
          extensions: [".ts", ".tsx", ".js", ".mjs", ".json"],
          extensionAlias: { ".js": [".ts", ".tsx", ".js"] },
        }),
      ],
    },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "@typescript-eslint/no-explicit-any": "error",
      "import-x/no-restricted-paths": ["error", { zones: layerZones() }],
    },
  },
  {
    files: TYPED_FILES,
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      // A `default` branch counts as handling the rest; a switch without one must name every member.
      "@typescript-eslint/switch-exhaustiveness-check": [
        "error",
        { considerDefaultExhaustiveForUnions: true },
      ],
      "@typescript-eslint/consistent-type-imports": [
        "error",
        // `import("x").T` types stay allowed: modules loaded lazily name their types that way.
        { fixStyle: "inline-type-imports", disallowTypeAnnotations: false },
      ],
    },
  },
  {
    files: ["src/**/*.ts", "src/**/*.tsx"],
    rules: {
      "stowage/dependency-home": "error",
      "stowage/one-retry-loop": ["error", { allow: NOT_RETRY_WAITS }],
    },
  },
  {
    files: ["src/**/*.ts", "src/**/*.tsx"],
    // Tests build SDK-shaped errors to check how they are classified and serialised.
    ignores: ["src/store/classify-error.ts", "src/**/*.test.ts", "src/**/*.contract.ts"],
    rules: { "stowage/sdk-error-shape": "error" },
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/cli/**", "src/config/**", "src/**/*.test.ts", "src/**/*.contract.ts"],
    rules: {
      "no-restricted-properties": [
        "error",
        {
          object: "process",
          property: "env",
          message: "process.env is read only in src/config/ (pass `env` down).",
        },
        {
          object: "process",
          property: "exit",
          message: "process.exit is called only in src/cli/.",
        },
      ],
      "no-console": "error",
      "no-restricted-syntax": ["error", ARGV_BAN, CONCAT_BAN],
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "node:zlib",
              importNames: ["gunzipSync", "inflateSync"],
              message:
                "Unbounded decode: stream with createGunzip and a byte cap (see reader/bounded-gunzip).",
            },
          ],
        },
      ],
    },
  },
  { files: BOUNDED_CONCAT, rules: { "no-restricted-syntax": ["error", ARGV_BAN] } },
  {
    files: [
      "test/**/*.ts",
      "bench/**/*.ts",
      "src/**/*.test.ts",
      "src/**/*.contract.ts",
      "src/cli/**",
    ],
    rules: { "no-console": "off" },
  },
);
