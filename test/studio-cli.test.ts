/**
 * `stowage studio` as a process: the source and allowances from a project's
 * config, `--source` with S3 flags and credentials from the environment, the
 * printed URL and token, refusal of a busy port, a clean stop on SIGTERM.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/index.js";
import { s3Config } from "./support/loggers.js";
import { minio, uniquePrefix } from "./support/minio.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(REPO, "bin", "stowage.js");

interface Running {
  child: ChildProcess;
  url: string;
  out: () => string;
  err: () => string;
}

/** Starts `stowage studio …` and resolves once it printed its URL. */
function studio(args: string[], env: Record<string, string> = {}, cwd = REPO): Promise<Running> {
  const child = spawn(process.execPath, [BIN, "studio", ...args], {
    cwd,
    env: { ...process.env, CI: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no URL within 30 s:\n${out}\n${err}`)),
      30_000,
    );
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32}/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePromise({ child, url: m[0], out: () => out, err: () => err });
      }
    });
    child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`exited ${code}:\n${out}\n${err}`), { code, out, err }));
    });
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((r) =>
    child.exitCode !== null ? r(child.exitCode) : child.once("exit", (code) => r(code)),
  );
}

async function api(
  url: string,
  path: string,
  init: RequestInit = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; text: string; json: any }> {
  const u = new URL(url);
  const res = await fetch(new URL(path, u), {
    ...init,
    headers: {
      authorization: `Bearer ${u.searchParams.get("token")}`,
      "content-type": "application/json",
      ...init.headers,
    },
  });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) };
}

let root: string;
const running: ChildProcess[] = [];

beforeAll(() => {
  if (!existsSync(join(REPO, "dist", "cli", "main.js")))
    throw new Error(
      "dist/ is missing: run `npx tsc -p tsconfig.build.json` (npm test does it in pretest)",
    );
  root = mkdtempSync(join(tmpdir(), "studio-cli-"));
});

afterAll(() => {
  for (const c of running) if (c.exitCode === null) c.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

describe("stowage studio (§5.4 CLI)", () => {
  it("§5.4 takes the source and allowances from the project's config, prints the URL with a token, stops on SIGTERM", async () => {
    const project = join(root, "app");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(project, "src"), { recursive: true });
    writeFileSync(
      join(project, "stowage.config.json"),
      JSON.stringify({
        destination: "local",
        local: { path: ".stowage/store" },
        studio: { s3: { records: 123 } },
      }),
    );
    writeFileSync(join(project, "src/app.ts"), "export const a = 1;\nexport const b = 2;\n");
    const s = await studio([project, "--port", "0", "--no-open"]);
    running.push(s.child);
    expect(s.out()).toContain(`source   file://${project}/.stowage/store`);
    expect(s.out()).toContain(`project  ${project}`);
    await expect
      .poll(() => s.err())
      .toContain("Nothing is read from storage until you choose Load logs");
    const info = await api(s.url, "/api/info");
    expect(info.json).toMatchObject({
      source: `file://${project}/.stowage/store`,
      project: { attached: true },
      limits: { records: 123 },
    });
    expect(info.json.doctorCommand).toContain("stowage doctor --config");
    const ctx = await api(s.url, "/api/source-context?caller=src/app.ts:2");
    expect(ctx.json).toMatchObject({ ok: true, file: "src/app.ts", line: 2 });
    s.child.kill("SIGTERM");
    expect(await exited(s.child)).toBe(0);
    expect(s.err()).toContain("Studio stopped.");
  });

  it("§5.1 --source s3:// with --endpoint/--region/--force-path-style reads MinIO with credentials from the environment, never printing them", async () => {
    const m = minio();
    const prefix = uniquePrefix("studio-cli");
    const logger = createLogger({ ...s3Config(prefix), level: "trace" });
    const now = Date.now();
    for (let i = 0; i < 5; i++)
      await logger.write({
        timestamp: new Date(now - 60_000 + i).toISOString(),
        level: "info",
        message: `cli record ${i}`,
      });
    expect((await logger.close()).ok).toBe(true);
    const s = await studio(
      [
        "--source",
        `s3://${m.bucket}/${prefix}`,
        "--endpoint",
        m.endpoint,
        "--region",
        m.region,
        "--force-path-style",
        "--port",
        "0",
        "--no-open",
      ],
      { AWS_ACCESS_KEY_ID: m.accessKeyId, AWS_SECRET_ACCESS_KEY: m.secretAccessKey },
    );
    running.push(s.child);
    expect(s.out()).toContain("project  (none: source context off)");
    const load = await api(s.url, "/api/load", {
      method: "POST",
      body: JSON.stringify({ from: now - 3_600_000, to: now + 1000 }),
    });
    expect(load.status).toBe(200);
    expect(load.json.records.map((r: { message: string }) => r.message).sort()).toEqual(
      [0, 1, 2, 3, 4].map((i) => `cli record ${i}`),
    );
    for (const text of [load.text, s.out(), s.err()]) {
      expect(text).not.toContain(m.secretAccessKey);
      expect(text).not.toContain(m.accessKeyId);
    }
    s.child.kill("SIGTERM");
    expect(await exited(s.child)).toBe(0);
  });

  it("§5.4 refuses a port held by another program with a clear message and exit code 2", async () => {
    const holder: Server = createServer();
    await new Promise<void>((r) => holder.listen(0, "127.0.0.1", r));
    const port = (holder.address() as { port: number }).port;
    try {
      const err = (await studio([
        "--source",
        `file://${root}`,
        "--port",
        String(port),
        "--no-open",
      ]).catch((e: unknown) => e)) as { code: number; err: string };
      expect(err.code).toBe(2);
      expect(err.err).toContain(`port ${port} on 127.0.0.1 is already in use by another program`);
      expect(err.err).toContain("--port");
    } finally {
      holder.close();
    }
  });
});
