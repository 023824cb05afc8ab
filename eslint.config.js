// ESLint flat config: typescript-eslint + the dependency direction of DESIGN.md.
import tseslint from "typescript-eslint";
import importX from "eslint-plugin-import-x";

const zone = (target, from, message) => ({ target, from, message });

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "docs/**", ".stowage/**", "coverage/**"] },
  ...tseslint.configs.recommended,
  {
    plugins: { "import-x": importX },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "@typescript-eslint/no-explicit-any": "error",
      "import-x/no-restricted-paths": [
        "error",
        {
          zones: [
            zone(
              "./src/shared",
              "./src/!(shared)/**",
              "shared/ is a leaf: it imports nothing of Stowage.",
            ),
            zone("./src/record", "./src/!(shared|record)/**", "record/ depends on shared/ only."),
            zone(
              "./src/config",
              "./src/!(shared|record|config)/**",
              "config/ depends on shared/ and record/ only.",
            ),
            zone(
              "./src/store",
              "./src/!(shared|record|config|store)/**",
              "store/ sits below batch, delivery and everything else.",
            ),
            zone(
              "./src/batch",
              "./src/!(shared|record|config|store|batch)/**",
              "batch/ sits below delivery and the logger.",
            ),
            zone(
              "./src/studio",
              "./src/@(logger|delivery|spool|batch|export)/**",
              "studio/ reads through reader/ only; it never imports the write path.",
            ),
            zone(
              "./src/reader",
              "./src/@(logger|delivery|spool|export|studio|doctor|cli)/**",
              "reader/ never imports the write path or the UI.",
            ),
            zone("./src/!(cli)/**", "./src/cli/**", "only cli/ imports cli/."),
          ],
        },
      ],
    },
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
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.name='process'][property.name='argv']",
          message: "process.argv is read only in src/cli/.",
        },
      ],
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
