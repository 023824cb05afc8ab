// Hostile and newcomer configs (SPEC §2.0): every mistake gets a message that
// names it, doctor refuses what createLogger refuses, config errors exit 2, refused database
// connections get a connection hint, and the library keeps the SDK's Node warning to itself.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfigFile, loadConfigFileSync } from "../../src/config/load-config.js";
import { resolveLoggerConfig } from "../../src/config/logger-config.js";
import { openMysql } from "../../src/export/sources/mysql.js";
import { openPostgres } from "../../src/export/sources/postgres.js";
import { StowageError } from "../../src/shared/errors.js";
import { runStowage } from "../support/cli.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function configDir(name: string, text: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "stowage-hostile-config-"));
  dirs.push(dir);
  const file = join(dir, name);
  writeFileSync(file, text);
  return { dir, file };
}

async function loadError(name: string, text: string): Promise<string> {
  const { dir, file } = configDir(name, text);
  try {
    const loaded = await loadConfigFile(file, { env: {}, cwd: dir });
    resolveLoggerConfig(loaded.data, { env: {}, cwd: dir, origin: loaded.origin, file });
  } catch (err) {
    expect(err).toBeInstanceOf(StowageError);
    return (err as Error).message;
  }
  throw new Error(`${name} was accepted:\n${text}`);
}

describe("§4 config messages name the problem", () => {
  it.each([
    [
      "__proto__ at the top",
      "stowage.config.yaml",
      "__proto__:\n  polluted: 1\nservice: a\n",
      "unknown key `__proto__`",
    ],
    [
      "constructor at the top",
      "stowage.config.yaml",
      "constructor: 1\nservice: a\n",
      "unknown key `constructor`",
    ],
    [
      "__proto__ inside s3",
      "stowage.config.yaml",
      "destination: s3\ns3:\n  bucket: logs\n  __proto__: {x: 1}\n",
      "unknown key `__proto__` in s3",
    ],
    [
      "__proto__ in JSON",
      "stowage.config.json",
      '{"__proto__": {"level": "debug"}}',
      "unknown key `__proto__`",
    ],
    [
      ".nan",
      "stowage.config.yaml",
      "destination: local\nlocal:\n  path: ./s\n  delivery:\n    max_batch_bytes: .nan\n",
      "is .nan (YAML for not-a-number)",
    ],
    [
      ".inf",
      "stowage.config.yaml",
      "destination: local\nlocal:\n  path: ./s\n  delivery:\n    max_batch_bytes: .inf\n",
      "is .inf (YAML for infinity)",
    ],
    [
      "JSON trailing comma",
      "stowage.config.json",
      '{\n  "service": "a",\n}',
      "stowage.config.json:3:1: invalid JSON",
    ],
    [
      "JSON top-level null",
      "stowage.config.json",
      "null",
      "stowage.config.json:1:1: invalid JSON: the top level must be an object",
    ],
    [
      "JSON top-level list",
      "stowage.config.json",
      "\n  []",
      "stowage.config.json:2:3: invalid JSON",
    ],
    [
      "JSON single quotes",
      "stowage.config.json",
      "{'service': 'a'}",
      "stowage.config.json:1:2: invalid JSON",
    ],
  ])("%s", async (_name, file, text, expected) => {
    expect(await loadError(file, text)).toContain(expected);
  });

  it("a README-shape stowage.config.ts loads without a transform, and a throwing one is a config error", () => {
    const ok = configDir(
      "stowage.config.ts",
      'import { defineConfig } from "stowage";\nexport default defineConfig({ service: "api", level: "warn" });\n',
    );
    expect(loadConfigFileSync(ok.file, { env: {} }).data).toEqual({
      service: "api",
      level: "warn",
    });
    const typed = configDir(
      "stowage.config.ts",
      'import { defineConfig } from "stowage";\nconst level: string = "warn";\nexport default defineConfig({ level });\n',
    );
    expect(loadConfigFileSync(typed.file, { env: {} }).data).toEqual({ level: "warn" });
    const bad = configDir(
      "stowage.config.ts",
      'import { defineConfig } from "stowage";\nexport default defineConfig({ service: undefined.x });\n',
    );
    expect(() => loadConfigFileSync(bad.file, { env: {} })).toThrow(
      /could not load the config module/,
    );
  });
});

describe("§4 a TypeScript config costs no Babel (the load time itself: bench/config-load.ts)", () => {
  /** What `createLogger()` loaded in a fresh application process whose cwd holds `config`. */
  async function modulesLoadedFor(config: string): Promise<Record<string, boolean>> {
    const app = mkdtempSync(join(tmpdir(), "stowage-hostile-tsload-"));
    dirs.push(app);
    mkdirSync(join(app, "node_modules"));
    symlinkSync(resolve(import.meta.dirname, "../.."), join(app, "node_modules", "stowage"));
    writeFileSync(join(app, "stowage.config.ts"), config);
    const script = `
      import { createRequire } from "node:module";
      const { createLogger } = await import("stowage");
      const log = createLogger();
      log.info("x");
      await log.close();
      const keys = Object.keys(createRequire(import.meta.url).cache);
      const has = (re) => keys.some((k) => re.test(k));
      process.stdout.write(JSON.stringify({
        jiti: has(/[\\/]jiti[\\/]/),
        sucrase: has(/[\\/]sucrase[\\/]/),
        babel: has(/[\\/]jiti[\\/]dist[\\/]babel\.cjs$/),
      }));`;
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (done) => {
        const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
          cwd: app,
          env: { ...process.env, JITI_REBUILD_FS_CACHE: "true" },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
        child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        child.on("close", (code) => done({ code, stdout, stderr }));
      },
    );
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    return JSON.parse(out.stdout) as Record<string, boolean>;
  }
  const body = `{ service: "api", console: false, destination: "local", local: { path: "./store" } }`;

  it("README shape (plain JavaScript in a .ts file): neither jiti nor a transform is loaded", async () => {
    expect(
      await modulesLoadedFor(
        `import { defineConfig } from "stowage";\nexport default defineConfig(${body});\n`,
      ),
    ).toEqual({ jiti: false, sucrase: false, babel: false });
  });

  it("type syntax: jiti with sucrase as its transform, never jiti's bundled Babel", async () => {
    expect(
      await modulesLoadedFor(
        `import { defineConfig } from "stowage";\nconst level: "info" = "info";\n` +
          `export default defineConfig({ ...${body}, level }); // ${Math.random()}\n`,
      ),
    ).toEqual({ jiti: true, sucrase: true, babel: false });
  });
});

describe("§4 doctor validates what createLogger validates; config errors exit 2", () => {
  const cases: [string, string, string][] = [
    [
      "an invalid redact.patterns regex",
      'redact:\n  patterns:\n    - "(unclosed"\n',
      "redact.patterns[0] is not a valid regular expression",
    ],
    ["a bad redact.paths entry", 'redact:\n  paths:\n    - "data..x"\n', "redact.paths[0]"],
    [
      "spool_path /etc/passwd",
      "local:\n  path: ./store\n  delivery:\n    buffer: sqlite\n    spool_path: /etc/passwd\n",
      "/etc/passwd is not a Stowage spool",
    ],
    [
      "spool_path a directory",
      "local:\n  path: ./store\n  delivery:\n    buffer: sqlite\n    spool_path: /tmp\n",
      "is a directory",
    ],
    ["an unknown key", "servce: a\n", "unknown key `servce`"],
  ];
  it.each(cases)("%s", async (_name, yaml, expected) => {
    const { dir } = configDir(
      "stowage.config.yaml",
      `destination: local\n${yaml.startsWith("local:") ? "" : "local:\n  path: ./store\n"}${yaml}`,
    );
    const run = await runStowage(["doctor"], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stdout).toContain("[FAIL] Config (stowage.config.yaml) -- config error: ");
    expect(run.stdout).toContain(expected);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});

describe("issue 31 §4: values that would only fail at runtime are refused at load, by createLogger and doctor", () => {
  const s3 = (extra: string) =>
    `destination: s3\ns3:\n  bucket: logs-bucket\n  region: eu-west-1\n  endpoint: http://127.0.0.1:9\n  allow_anonymous: true\n${extra}`;
  const cases: [string, string, RegExp][] = [
    ["bucket a..b", s3("").replace("logs-bucket", "a..b"), /bucket.*no `\.\.`/],
    ["bucket 192.168.1.10", s3("").replace("logs-bucket", "192.168.1.10"), /IP address/],
    [
      "a 2,000-character prefix (keys over 1,024 bytes)",
      s3(`  prefix: ${"p".repeat(2000)}\n`),
      /prefix` is 2000 bytes; at most 896 bytes.*1,024 bytes/,
    ],
    [
      "maxSpoolBytes below maxRecordBytes",
      s3("  delivery:\n    max_spool_bytes: 1KiB\n    max_record_bytes: 4KiB\n"),
      /maxSpoolBytes.*must not be below.*maxRecordBytes.*fit in the spool/,
    ],
    [
      "a flush interval of 2^31 ms",
      s3(`  delivery:\n    flush_interval_ms: ${2 ** 31}\n`),
      /flushIntervalMs.*2147483647 ms.*1 ms/,
    ],
    [
      "a backoff of 2^31 ms",
      s3(`  delivery:\n    initial_backoff_ms: ${2 ** 31}\n    max_backoff_ms: ${2 ** 31}\n`),
      /(initial|max)BackoffMs.*2147483647 ms/,
    ],
  ];
  it.each(cases)("%s: resolveLoggerConfig", async (_name, yaml, expected) => {
    expect(await loadError("stowage.config.yaml", yaml)).toMatch(expected);
  });
  it.each(cases)("%s: doctor (exit 2, the rule named, no stack)", async (_name, yaml, expected) => {
    const { dir } = configDir("stowage.config.yaml", yaml);
    const run = await runStowage(["doctor"], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stdout).toMatch(expected);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("§4 a refused database connection gets a connection hint", () => {
  it.each([
    ["PostgreSQL", () => openPostgres("postgres://postgres@127.0.0.1:1/test", 3_000)],
    ["MySQL/MariaDB", () => openMysql("mysql://root@127.0.0.1:1/test", 3_000)],
  ])("%s", async (server, open) => {
    const err = await open().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StowageError);
    expect((err as StowageError).hint).toContain("127.0.0.1:1");
    expect((err as StowageError).hint).toContain(`is the ${server} server running`);
    expect((err as StowageError).hint).not.toContain("check the query");
  });
});

describe("§4 the library never prints the SDK's Node-version warning", () => {
  it("createLogger with an S3 destination, in an application process without the opt-out", async () => {
    const app = mkdtempSync(join(tmpdir(), "stowage-hostile-app-"));
    dirs.push(app);
    mkdirSync(join(app, "node_modules"));
    symlinkSync(resolve(import.meta.dirname, "../.."), join(app, "node_modules", "stowage"));
    const script = `
      import { createLogger } from "stowage";
      const log = createLogger({ console: false, destination: "s3", s3: { bucket: "logs", region: "us-east-1",
        endpoint: "http://127.0.0.1:1", credentials: { accessKeyId: "a", secretAccessKey: "b" } } });
      log.info("x");
      await log.close({ timeoutMs: 200 });
      process.emitWarning("app warning still shown");`;
    const env = { ...process.env };
    delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
    const out = await new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
        cwd: app,
        env,
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("close", (code) => done({ code, stderr }));
    });
    expect(out.stderr).toContain("app warning still shown");
    expect(out.stderr).not.toContain("NodeVersionSupportWarning");
  });
});
