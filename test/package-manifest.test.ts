// package.json promises what the README and .ci/run rely on — the verbs,
// a `files` list that ships only what users run, and an entry file behind every export.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  files: string[];
  scripts: Record<string, string>;
  exports: Record<string, string | { types: string; import: string }>;
  bin: Record<string, string>;
};

describe("package.json", () => {
  it("has the verbs of the README and CI", () => {
    expect(pkg.scripts.test).toBe("vitest run");
    for (const verb of ["build", "lint", "typecheck", "bench", "test:package", "coverage"])
      expect(pkg.scripts[verb], verb).toBeTruthy();
  });

  it("ships bin/, dist/, the docs pages and the README, nothing else", () => {
    expect([...pkg.files].sort()).toEqual(["README.md", "bin", "dist", "docs/*.md"]);
    expect(pkg.bin.stowage).toBe("./bin/stowage.js");
  });

  it("every subpath export has types and an ESM file from dist/, built from src/<name>.ts", () => {
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (subpath === "./package.json") continue;
      expect(typeof target, subpath).toBe("object");
      const { types, import: js } = target as { types: string; import: string };
      const name = subpath === "." ? "index" : subpath.slice(2);
      expect(js, subpath).toBe(`./dist/${name}.js`);
      expect(types, subpath).toBe(`./dist/${name}.d.ts`);
      expect(existsSync(join(REPO, "src", `${name}.ts`)), `src/${name}.ts`).toBe(true);
      expect(Object.keys(target as object)[0], `${subpath}: "types" comes first`).toBe("types");
    }
  });
});
