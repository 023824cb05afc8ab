// Config files on disk (SPEC §1, §2.0): discovery, TypeScript through jiti, JSON, YAML with ${ENV}.
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  findConfigFile,
  loadConfigFile,
  loadConfigFileSync,
  loadProjectConfig,
} from "../src/config/index.js";
import { StowageError } from "../src/shared/errors.js";

const dirs: string[] = [];
function dir(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), "stowage-config-"));
  dirs.push(d);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
  return d;
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function failure(p: Promise<unknown>): Promise<StowageError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof StowageError)) throw new Error(`expected a StowageError, got ${String(e)}`);
  return e;
}

const SRC = join(import.meta.dirname, "../src/config/index.ts");

describe("§1 config files", () => {
  it("§1 discovery: first of ts, mts, js, mjs, json, yaml, yml wins; a warning names the others", () => {
    const d = dir({
      "stowage.config.yaml": "level: info\n",
      "stowage.config.json": "{}",
      "stowage.config.mts": "export default {}",
    });
    const found = findConfigFile(d);
    expect(found.path).toBe(join(d, "stowage.config.mts"));
    expect(found.ignored).toEqual([join(d, "stowage.config.json"), join(d, "stowage.config.yaml")]);
    expect(found.warning).toMatch(
      /using stowage.config.mts; ignoring stowage.config.json, stowage.config.yaml/,
    );
    expect(findConfigFile(dir({})).path).toBeUndefined();
  });

  it("§2.0 a TypeScript config is loaded through jiti, typed with defineConfig, credentials provider kept", async () => {
    const d = dir({
      "stowage.config.ts": [
        `import { defineConfig } from ${JSON.stringify(SRC)};`,
        `const level: "debug" = "debug";`,
        `export default defineConfig({`,
        `  service: "orders", level,`,
        `  destination: "s3",`,
        `  s3: { bucket: "production-logs", prefix: "/orders//production/", region: "eu-west-1",`,
        `        credentials: async () => ({ accessKeyId: "a", secretAccessKey: "b" }),`,
        `        endpoint: "https://minio.internal", trustEndpoint: true, delivery: { buffer: "memory" } },`,
        `});`,
      ].join("\n"),
    });
    const { config, file, warnings } = await loadProjectConfig({ cwd: d, env: {} });
    expect(file).toBe(join(d, "stowage.config.ts"));
    expect(warnings).toEqual([]);
    expect(config).toMatchObject({ service: "orders", level: "debug" });
    expect(config.destination).toMatchObject({
      type: "s3",
      bucket: "production-logs",
      prefix: "orders/production",
      trustEndpoint: true,
      credentials: { source: "explicit" },
    });
  });

  it("§2.1 YAML: snake_case keys, ${ENV} interpolation, $${...} escape, fallback", async () => {
    const d = dir({
      "stowage.config.yaml": [
        "service: ${SERVICE}",
        "destination: s3",
        "s3:",
        "  bucket: ${BUCKET}",
        "  prefix: literal-$${NOT_A_VAR}/${MISSING:-fallback}",
        "  endpoint: http://localhost:9000",
        "  force_path_style: true",
        "  access_key_env: MY_AK",
        "  secret_key_env: MY_SK",
      ].join("\n"),
    });
    const { config } = await loadProjectConfig({
      cwd: d,
      env: { SERVICE: "billing", BUCKET: "team-logs" },
    });
    expect(config.service).toBe("billing");
    expect(config.destination).toMatchObject({
      type: "s3",
      bucket: "team-logs",
      prefix: "literal-${NOT_A_VAR}/fallback",
      forcePathStyle: true,
      credentials: { source: "env", accessKeyEnv: "MY_AK", secretKeyEnv: "MY_SK" },
    });
  });

  it("§7.1 a missing ${VAR} is a config error naming the variable and the key, never a value", async () => {
    const d = dir({ "x.yaml": "s3:\n  bucket: logs\n  prefix: ${NOPE_NOT_SET}\n" });
    const e = await failure(loadConfigFile(join(d, "x.yaml"), { env: { OTHER: "s3cr3t" } }));
    expect(e.code).toBe("config");
    expect(e.message).toContain(
      "`s3.prefix` uses ${NOPE_NOT_SET}, but the environment variable NOPE_NOT_SET is not set",
    );
    expect(e.message).not.toContain("s3cr3t");
  });

  it("§8 bad YAML reports line and column without echoing the file's text", async () => {
    const d = dir({
      "bad.yaml": "service: a\ns3:\n  bucket: logs\n  secret: topsecret-value: nested\n",
    });
    const e = await failure(loadConfigFile(join(d, "bad.yaml"), { env: {} }));
    expect(e.code).toBe("config");
    expect(e.message).toMatch(/bad\.yaml:4:\d+: invalid YAML: .*\(line 4, column \d+\)/);
    expect(e.message).not.toContain("topsecret-value");
    const dup = dir({ "dup.yaml": "level: info\nlevel: debug\n" });
    expect((await failure(loadConfigFile(join(dup, "dup.yaml"), { env: {} }))).message).toMatch(
      /dup\.yaml:2:1: invalid YAML: Map keys must be unique/,
    );
  });

  it("§8 bad JSON reports the line without the source snippet", async () => {
    const d = dir({
      "stowage.config.json": '{\n  "level": "info",\n  "s3": { "bucket": "hunter2-secret" \n',
    });
    const e = await failure(loadConfigFile(join(d, "stowage.config.json"), { env: {} }));
    expect(e.message).toMatch(/stowage\.config\.json:\d+:\d+: invalid JSON/);
    expect(e.message).not.toContain("hunter2-secret");
  });

  it("§2.1 unknown keys in a YAML file name the file, the key, the path and the suggestion", async () => {
    const d = dir({ "stowage.config.yml": "destination: s3\ns3:\n  bukcet: logs\n" });
    const e = await failure(loadProjectConfig({ cwd: d, env: {} }));
    expect(e.message).toContain(`${join(d, "stowage.config.yml")}: `);
    expect(e.message).toContain("unknown key `bukcet` in s3; did you mean `bucket`?");
  });

  it("§2.3 YAML's trust_endpoint is not honoured; STOWAGE_TRUSTED_ENDPOINTS is", async () => {
    const d = dir({
      "stowage.config.yaml":
        "s3:\n  bucket: logs\n  endpoint: https://minio.internal\n  trust_endpoint: true\n",
    });
    expect((await failure(loadProjectConfig({ cwd: d, env: {} }))).code).toBe("policy");
    const ok = await loadProjectConfig({
      cwd: d,
      env: { STOWAGE_TRUSTED_ENDPOINTS: "minio.internal" },
    });
    expect(ok.config.destination).toMatchObject({
      endpoint: "https://minio.internal",
      trustEndpoint: false,
    });
  });

  it("§3.2 no config file: the embedded local default", async () => {
    const d = dir({});
    const { config, file } = await loadProjectConfig({ cwd: d, env: {} });
    expect(file).toBeUndefined();
    expect(config.destination).toEqual({ type: "local", path: join(d, ".stowage/store") });
  });

  it("§3.2 the synchronous loader (createLogger without arguments) reads TS and YAML alike", () => {
    const d = dir({
      "stowage.config.ts": `export default { service: "sync", level: "debug" as const };`,
      "b.yaml": "service: ${SVC}\n",
    });
    expect(loadConfigFileSync(join(d, "stowage.config.ts"), { env: {} })).toMatchObject({
      format: "ts",
      origin: "code",
      data: { service: "sync", level: "debug" },
    });
    expect(loadConfigFileSync(join(d, "b.yaml"), { env: { SVC: "y" } })).toMatchObject({
      origin: "data",
      data: { service: "y" },
    });
    expect(() => loadConfigFileSync(join(d, "b.yaml"), { env: {} })).toThrow(/SVC is not set/);
  });

  it("§1 a TypeScript config that fails to compile is a config error naming the file", async () => {
    const d = dir({ "stowage.config.ts": "export default {{ level: \n" });
    const e = await failure(loadConfigFile(join(d, "stowage.config.ts"), { env: {} }));
    expect(e.code).toBe("config");
    expect(e.message).toContain("stowage.config.ts: could not load the config module");
    expect(e.message).toContain(`syntax error at ${join(d, "stowage.config.ts")}:1:24: `);
  });
});

describe("§1 TypeScript configs: the transform (sucrase through jiti)", () => {
  const both = async (file: string) => {
    const a = (await loadConfigFile(file, { env: {} })).data;
    expect(loadConfigFileSync(file, { env: {} }).data).toEqual(a);
    return a;
  };

  it("type syntax, enums, relative TypeScript imports, .mts, module.exports and import.meta load alike in both loaders", async () => {
    const d = dir({
      "stowage.config.ts": [
        `import type { LoggerConfig } from ${JSON.stringify(SRC)};`,
        `import { service, Level } from "./shared";`,
        `const level: LoggerConfig["level"] = Level.Warn;`,
        `const note = "import.meta.url" + /import.meta/.source; // import.meta in a comment`,
        `export default { service, level, dir: import.meta.dirname, url: import.meta.url, note } satisfies LoggerConfig & object;`,
      ].join("\n"),
      "shared.ts": [
        `class Box { readonly prefix = "or"; constructor(private rest: string) {} get value(): string { return this.prefix + this.rest; } }`,
        `export const service: string = new Box("ders").value;`,
        `export enum Level { Warn = "warn" }`,
      ].join("\n"),
      "stowage.config.mts": `interface C { service: string }\nconst c: C = { service: "mts" };\nexport default c;\n`,
      "cjs.ts": `const c: { service: string } = { service: "cjs" };\nmodule.exports = c;\n`,
    });
    expect(await both(join(d, "stowage.config.ts"))).toEqual({
      service: "orders",
      level: "warn",
      dir: d,
      url: `file://${join(d, "stowage.config.ts")}`,
      note: "import.meta.urlimport.meta",
    });
    expect(await both(join(d, "stowage.config.mts"))).toEqual({ service: "mts" });
    expect(await both(join(d, "cjs.ts"))).toEqual({ service: "cjs" });
  });

  it("top-level await works in the async loader; the synchronous one says why it cannot", async () => {
    const d = dir({
      "stowage.config.ts": `const n: number = await Promise.resolve(3);\nexport default { service: "svc" + n };\n`,
    });
    const file = join(d, "stowage.config.ts");
    expect((await loadConfigFile(file, { env: {} })).data).toEqual({ service: "svc3" });
    let e: unknown;
    try {
      loadConfigFileSync(file, { env: {} });
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(StowageError);
    expect((e as StowageError).code).toBe("config");
    expect((e as StowageError).hint).toMatch(/synchronously.*top-level await/);
  });

  it("a syntax error names file:line:column (of an imported file too) and never echoes the source", async () => {
    const d = dir({
      "stowage.config.ts": `const a = 1;\nconst password: string = "hunter2-secret" +;\nexport default { a };\n`,
      "imports.ts": `import { x } from "./broken";\nexport default { x };\n`,
      "broken.ts": `export const x: number = 1;\n\n  const y = {{;\n`,
    });
    const own = join(d, "stowage.config.ts");
    for (const e of [
      await failure(loadConfigFile(own, { env: {} })),
      await failure(Promise.resolve().then(() => loadConfigFileSync(own, { env: {} }))),
    ]) {
      expect(e.code).toBe("config");
      expect(e.message).toMatch(
        new RegExp(
          `could not load the config module: syntax error at ${own}:2:44: Unexpected token`,
        ),
      );
      expect(e.message).not.toContain("hunter2-secret");
    }
    const imported = await failure(loadConfigFile(join(d, "imports.ts"), { env: {} }));
    expect(imported.message).toContain(
      `${join(d, "imports.ts")}: could not load the config module: syntax error at ${join(d, "broken.ts")}:3:15: `,
    );
  });

  it("the transform is sucrase: jiti's bundled Babel is never loaded", async () => {
    // Content unique to this run, so jiti's file cache cannot serve it without a transform.
    const d = dir({
      "stowage.config.ts": `const id: string = ${JSON.stringify(String(Math.random()))};\nexport default { service: "t", id };\n`,
    });
    await loadConfigFile(join(d, "stowage.config.ts"), { env: {} });
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    expect(loaded.some((k) => /[\\/]sucrase[\\/]/.test(k))).toBe(true);
    expect(loaded.filter((k) => k.endsWith(join("jiti", "dist", "babel.cjs")))).toEqual([]);
  });
});
