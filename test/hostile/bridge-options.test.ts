// Issue 34 §1: integrations refuse what they do not understand. pino's transport with the
// logger config's keys at the top of `options` (the shape users reach for first) delivers to
// that bucket instead of a local folder; an unknown option is refused naming the closest
// key; a bridge with no config at all says on stderr where its records go. Real pino 10 in a
// child process, records read back from MinIO.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/index.js";
import { createPinoDestination } from "../../src/pino.js";
import { StowageLogExporter } from "../../src/otel.js";
import { StowageError } from "../../src/shared/errors.js";
import { stowageExpress } from "../../src/express.js";
import Fastify from "fastify";
import { stowageFastify } from "../../src/fastify.js";
import { stowageHono } from "../../src/hono.js";
import { resolveClientOptions } from "../../src/bridges/client/options.js";
import { bucketIdCounts, s3Config } from "../support/loggers.js";
import { uniquePrefix } from "../support/minio.js";

const APP = join(import.meta.dirname, "fixtures", "pino-options-app.mjs");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function runApp(options: object, n: number) {
  const cwd = mkdtempSync(join(tmpdir(), "stowage-bridge-options-"));
  dirs.push(cwd);
  const child = spawn(process.execPath, [APP, String(n)], {
    cwd,
    timeout: 60_000,
    env: {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      STOWAGE_PINO_OPTIONS: JSON.stringify(options),
    },
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c));
  return new Promise<{ status: number | null; stderr: string; cwd: string }>((resolve) =>
    child.on("close", (status) => resolve({ status, stderr, cwd })),
  );
}

describe("issue 34 §1: stowage/pino takes the logger config's keys at the top of options", () => {
  it("2,000 records with options { destination: 's3', s3: {...} } land in the bucket, none on the app's disk", async () => {
    const prefix = uniquePrefix("pino-top");
    const res = await runApp(s3Config(prefix), 2_000);
    expect(res.status, res.stderr).toBe(0);
    expect((await bucketIdCounts(prefix)).size).toBe(2_000);
    expect(existsSync(join(res.cwd, ".stowage"))).toBe(false);
  }, 90_000);

  it("an unknown option is refused on stderr with the closest key, nothing written locally", async () => {
    const prefix = uniquePrefix("pino-typo");
    const res = await runApp({ config: s3Config(prefix), flushTimeoutMS: 5_000 }, 10);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain("unknown option `flushTimeoutMS`; did you mean `flushTimeoutMs`?");
    expect(existsSync(join(res.cwd, ".stowage"))).toBe(false);
  }, 90_000);

  it("no config at all: one line on stderr says where the records go", async () => {
    const res = await runApp({}, 10);
    expect(res.status, res.stderr).toBe(0);
    const lines = res.stderr.split("\n").filter((l) => l.includes("no config given"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `records go to the local directory ${join(res.cwd, ".stowage/store")}`,
    );
  }, 90_000);
});

describe("issue 34 §1: in-process bridges refuse unknown options", () => {
  it("createPinoDestination and StowageLogExporter name the key and the closest one", () => {
    const refusal = (make: () => unknown): StowageError => {
      try {
        make();
      } catch (err) {
        expect(err).toBeInstanceOf(StowageError);
        return err as StowageError;
      }
      throw new Error("accepted");
    };
    const dest = refusal(() => createPinoDestination({ nestedkey: "data" } as never));
    expect(dest.message).toContain("unknown option `nestedkey`; did you mean `nestedKey`?");
    const log = createLogger(s3Config(uniquePrefix("otel-typo")) as never);
    const otel = refusal(() => new StowageLogExporter(log, { timeoutMS: 1 } as never));
    expect(otel.message).toContain("unknown option `timeoutMS`; did you mean `timeoutMs`?");
    const both = refusal(() =>
      createPinoDestination({ config: { service: "a" }, service: "b" } as never),
    );
    expect(both.message).toMatch(/at the top of the options and `config` as well/);
    void log.close();
  });

  it("the framework adapters and the browser client name an unknown option and the closest one", async () => {
    const log = createLogger(s3Config(uniquePrefix("adapter-typo")) as never);
    const cases: [string, () => unknown][] = [
      ["stowage/express", () => stowageExpress(log, { trustproxy: true } as never)],
      ["stowage/hono", () => stowageHono(log, { trustproxy: true } as never)],
    ];
    for (const [bridge, make] of cases) {
      expect(make, bridge).toThrow(
        `${bridge}: unknown option \`trustproxy\`; did you mean \`trustProxy\`?`,
      );
    }
    const app = Fastify();
    await expect(
      app.register(stowageFastify, { logger: log, trustproxy: true } as never).ready(),
    ).rejects.toThrow("stowage/fastify: unknown option `trustproxy`; did you mean `trustProxy`?");
    await app.close();
    expect(() => resolveClientOptions({ url: "/ingest", maxbatch: 5 } as never)).toThrow(
      "stowage/client: unknown option `maxbatch`; did you mean `maxBatch`?",
    );
    void log.close();
  });
});
