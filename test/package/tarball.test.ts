// the tarball users install. `npm pack`, installed into a scratch project
// outside the repository; imports, shipped types, publint/attw, and the CLI from it.
// Run with `npm run test:package` (builds first); .ci/run runs it.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratch, exportSpecifiers, REPO, run, type Scratch } from "./scratch.js";

let s: Scratch;

beforeAll(() => {
  s = createScratch();
  console.log(
    `tarball ${s.packed.tarball}: ${s.packed.size} bytes packed, ${s.packed.unpackedSize} unpacked, ${s.packed.files.length} files`,
  );
}, 300_000);

afterAll(() => {
  if (s) rmSync(s.root, { recursive: true, force: true });
});

const bin = (name: string) => join(REPO, "node_modules", ".bin", name);

describe("the packed tarball", () => {
  it("holds only bin/, dist/, docs/ and the package files: no tests, benchmarks or sources", () => {
    const stray = s.packed.files.filter(
      (f) => !/^(bin|dist|docs)\//.test(f) && !/^(package\.json|README\.md|LICENSE)$/.test(f),
    );
    expect(stray).toEqual([]);
    const testish = s.packed.files.filter(
      (f) =>
        /(^|\/)(tests?|bench|benchmarks?|__tests__)\//.test(f) ||
        /\.(test|spec|contract|test-d)\.[cm]?[jt]sx?$/.test(f) ||
        (/\.[cm]?tsx?$/.test(f) && !/\.d\.[cm]?ts$/.test(f)),
    );
    expect(testish).toEqual([]);
    expect(s.packed.files).toContain("dist/studio/web/index.html");
  });

  it("ships no source map or sourceMappingURL that points outside the package", () => {
    const outside: string[] = [];
    for (const f of s.packed.files.filter((p) => /\.[cm]?js$|\.map$/.test(p))) {
      const text = readFileSync(join(s.installed, f), "utf8");
      const refs = f.endsWith(".map")
        ? (JSON.parse(text) as { sources: string[]; sourcesContent?: unknown[] }).sourcesContent
          ? []
          : (JSON.parse(text) as { sources: string[] }).sources
        : [...text.matchAll(/^\/\/# sourceMappingURL=(?!data:)(.+)$/gm)].map((m) => m[1]!);
      for (const ref of refs) {
        const target = join(f, "..", ref);
        if (target.startsWith("..") || !s.packed.files.includes(target))
          outside.push(`${f} → ${ref}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it("resolves `stowage` and every subpath export under Node ESM", () => {
    const specs = exportSpecifiers(s.manifest);
    expect(specs).toContain("stowage");
    for (const spec of specs) {
      const r = run(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `const m = await import(${JSON.stringify(spec)}); console.log(Object.keys(m).length);`,
        ],
        s.dir,
      );
      expect(Number(r.stdout.trim()), spec).toBeGreaterThan(0);
    }
  });

  it("`stowage/spool` and its former name `stowage/s3` export the same spool tools", () => {
    const r = run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        [
          'const spool = await import("stowage/spool");',
          'const alias = await import("stowage/s3");',
          "const err = await spool.getS3SpoolStatus(`./no-spool-${process.pid}.db`).catch((e) => e);",
          "console.log(JSON.stringify({",
          "  spool: Object.keys(spool).sort(),",
          "  alias: Object.keys(alias).sort(),",
          "  same: Object.keys(spool).every((k) => spool[k] === alias[k]),",
          "  missing: err?.code,",
          "}));",
        ].join("\n"),
      ],
      s.dir,
    );
    expect(JSON.parse(r.stdout)).toEqual({
      spool: ["getS3SpoolStatus", "retryS3Spool"],
      alias: ["getS3SpoolStatus", "retryS3Spool"],
      same: true,
      missing: "not-found",
    });
  });

  /** Runs an ES module of `lines` with Node in the scratch project; its stdout is one JSON value. */
  function nodeScript<T>(name: string, lines: string[]): T {
    writeFileSync(join(s.dir, name), lines.join("\n"));
    return JSON.parse(run(process.execPath, [name], s.dir).stdout) as T;
  }

  it('logs through `import { createLogger } from "stowage"` into a local store', () => {
    const script = [
      'import { createLogger } from "stowage";',
      'import { readdirSync } from "node:fs";',
      'const log = createLogger({ service: "pkg", destination: "local", local: { path: "./store" }, console: false });',
      'log.info("from the tarball", { n: 1 });',
      "const r = await log.close();",
      'console.log(JSON.stringify({ ok: r.ok, files: readdirSync("./store", { recursive: true }).map(String) }));',
    ];
    const out = nodeScript<{ ok: boolean; files: string[] }>("use.mjs", script);
    expect(out.ok).toBe(true);
    expect(out.files.some((f) => f.endsWith(".ndjson.gz"))).toBe(true);
  });

  it("logs through `stowage/winston` with winston installed: child bindings kept, 'finish' after delivery", () => {
    const script = [
      'import winston from "winston";',
      'import { StowageTransport } from "stowage/winston";',
      'import { readdirSync, readFileSync } from "node:fs";',
      'import { gunzipSync } from "node:zlib";',
      'const transport = new StowageTransport({ config: { service: "pkg", destination: "local", local: { path: "./winston-store" }, console: false } });',
      "const logger = winston.createLogger({ transports: [transport] });",
      'logger.child({ requestId: "r-1" }).warn("from winston", { n: 1 });',
      'logger.on("finish", () => {',
      '  const gz = readdirSync("./winston-store", { recursive: true }).map(String).filter((f) => f.endsWith(".ndjson.gz"));',
      '  const lines = gz.flatMap((f) => gunzipSync(readFileSync(`./winston-store/${f}`)).toString().split("\\n").filter(Boolean).map((l) => JSON.parse(l)));',
      "  console.log(JSON.stringify({ ok: transport.lastResult?.ok, lines }));",
      "});",
      "logger.end();",
    ];
    const out = nodeScript<{ ok: boolean; lines: Record<string, unknown>[] }>(
      "winston.mjs",
      script,
    );
    expect(out.ok).toBe(true);
    expect(out.lines).toEqual([
      expect.objectContaining({
        level: "warning",
        message: "from winston",
        service: "pkg",
        bindings: { requestId: "r-1" },
        data: { n: 1 },
      }),
    ]);
  });

  it('`import "stowage"` loads no YAML parser and no AWS SDK; a YAML config loads the parser when read (§1)', () => {
    const script = [
      'import { createRequire } from "node:module";',
      'import { mkdirSync, readdirSync, writeFileSync } from "node:fs";',
      "const loaded = (part) => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes(part));",
      'const { createLogger } = await import("stowage");',
      'const before = { yaml: loaded("/node_modules/yaml/"), sdk: loaded("/@aws-sdk/") };',
      'mkdirSync("yaml-app", { recursive: true });',
      'process.chdir("yaml-app");',
      'writeFileSync("stowage.config.yaml", "service: from-yaml\\nconsole: false\\ndestination: local\\nlocal:\\n  path: ./store\\n");',
      "const log = createLogger();",
      'log.info("configured by YAML");',
      "const r = await log.close();",
      'const files = readdirSync("./store", { recursive: true }).map(String);',
      'console.log(JSON.stringify({ ok: r.ok, before, yamlAfter: loaded("/node_modules/yaml/"), gz: files.some((f) => f.endsWith(".ndjson.gz")) }));',
    ];
    const out = nodeScript<{
      ok: boolean;
      before: { yaml: boolean; sdk: boolean };
      yamlAfter: boolean;
      gz: boolean;
    }>("lazy.mjs", script);
    expect(out.before).toEqual({ yaml: false, sdk: false });
    expect(out).toMatchObject({ ok: true, yamlAfter: true, gz: true });
  });

  // The declarations are the same for both; checking every .d.ts (the AWS SDK's too) costs
  // ~45 s here, so only the nodenext project does it.
  it.each([
    ["nodenext", { module: "nodenext", moduleResolution: "nodenext", skipLibCheck: false }],
    ["bundler", { module: "preserve", moduleResolution: "bundler", skipLibCheck: true }],
  ])(
    "compiles a TypeScript project with moduleResolution %s against the shipped types",
    (name, resolution) => {
      const dir = join(s.dir, `ts-${name}`);
      mkdirSync(dir, { recursive: true });
      const specs = exportSpecifiers(s.manifest);
      const source = [
        'import { createLogger, defineConfig, isStowageError, type FlushResult, type LoggerConfig } from "stowage";',
        'import { getS3SpoolStatus, type SpoolStatus } from "stowage/spool";',
        'import { getS3SpoolStatus as formerName, type SpoolStatus as FormerStatus } from "stowage/s3";',
        "export const spoolTools: [typeof getS3SpoolStatus, SpoolStatus | FormerStatus | undefined] = [formerName, undefined];",
        ...specs.map((spec, i) => `import * as ns${i} from "${spec}";`),
        'const config: LoggerConfig = defineConfig({ service: "ts", level: "info" });',
        "const log = createLogger(config);",
        'log.info("typed", { orderId: "o-1" });',
        "const result: FlushResult = await log.flush({ timeoutMs: 1000 });",
        "const ok: boolean = result.ok && !isStowageError(new Error());",
        `export const all = [ok, ${specs.map((_, i) => `ns${i}`).join(", ")}];`,
        "// @ts-expect-error an unknown level name is a type error",
        'createLogger({ level: "verbose" });',
      ].join("\n");
      writeFileSync(join(dir, "index.ts"), source);
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "es2022",
            strict: true,
            noEmit: true,
            ...resolution,
            types: ["node"],
          },
          files: ["index.ts"],
        }),
      );
      run(
        process.execPath,
        [join(REPO, "node_modules", "typescript", "bin", "tsc"), "-p", dir],
        s.dir,
      );
    },
  );

  it("is clean for publint (strict) and for attw as an ESM-only package", () => {
    const lint = run(bin("publint"), ["--strict", "--pack", "false", s.installed], s.dir);
    expect(lint.stdout).toContain("All good");
    run(bin("attw"), [s.packed.tarball, "--profile", "esm-only"], s.dir);
  });
});

describe("the installed CLI", () => {
  const npx = (...args: string[]) => run("npx", ["--no", "--", "stowage", ...args], s.dir);
  let studio: ReturnType<typeof spawn> | undefined;

  afterAll(() => {
    // npx runs the bin in a child of its own: stop the whole process group.
    if (studio?.pid !== undefined && studio.exitCode === null) process.kill(-studio.pid, "SIGTERM");
  });

  it("`npx stowage --help` lists the commands", () => {
    const out = npx("--help").stdout;
    expect(out).toMatch(/Usage: stowage/);
    for (const c of ["demo", "studio", "doctor", "logs", "run"]) expect(out).toContain(c);
  });

  it("`npx stowage demo --no-studio` writes the sample workload", () => {
    const r = npx("demo", "--no-studio", "--hours", "2", "--per-hour", "200");
    expect(r.stdout + r.stderr).toMatch(/Wrote \d+ records in \d+ objects/);
  });

  it("`npx stowage studio` serves the UI built into the installed package", async () => {
    const store = join(s.dir, ".stowage", "demo", "store");
    const child = spawn(
      "npx",
      ["--no", "stowage", "studio", "--no-open", "--port", "0", "--source", `file://${store}`],
      {
        cwd: s.dir,
        env: { ...process.env, CI: "1" },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      },
    );
    studio = child;
    let out = "";
    const url = await new Promise<string>((resolveUrl, reject) => {
      child.stdout!.on("data", (c: Buffer) => {
        out += c.toString();
        const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+/.exec(out);
        if (m) resolveUrl(m[0]);
      });
      child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
      child.once("exit", (code) => reject(new Error(`studio exited ${code}:\n${out}`)));
    });
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script, html).toBeDefined();
    const asset = await fetch(new URL(script!, url));
    expect(asset.status).toBe(200);
    const served = Buffer.from(await asset.arrayBuffer());
    const shipped = readFileSync(join(s.installed, "dist", "studio", "web", script!.slice(1)));
    expect(served.equals(shipped)).toBe(true);
  });
});
