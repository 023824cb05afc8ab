/**
 * stowage/winston against what apps and stores do to it: options it does not understand,
 * a store that is down when the app ends, values that throw or loop. winston 3 in a real
 * child process (test/hostile/fixtures/winston-hostile-app.mjs, importing the built
 * package) against the real MinIO; option checks in-process.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import winston from "winston";
import { StowageTransport } from "../../src/winston.js";
import { s3Config, s3Reader } from "../support/loggers.js";
import { uniquePrefix } from "../support/minio.js";
import { readBack } from "../support/read-back.js";

const APP = join(import.meta.dirname, "fixtures", "winston-hostile-app.mjs");

function runApp(mode: string, variant: string, config: object) {
  const child = spawn(process.execPath, [APP, mode, variant], {
    timeout: 60_000,
    env: {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      STOWAGE_WINSTON_CONFIG: JSON.stringify(config),
    },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c));
  child.stderr.on("data", (c: Buffer) => (stderr += c));
  return new Promise<{
    status: number | null;
    signal: string | null;
    stdout: string;
    stderr: string;
  }>((resolve) =>
    child.on("close", (status, signal) => resolve({ status, signal, stdout, stderr })),
  );
}

/** A loopback port nothing listens on: connections to it are refused. */
async function deadEndpoint(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe("options it does not understand are refused at construction", () => {
  it("an unknown key names itself and the closest valid key", () => {
    expect(() => new StowageTransport({ config: {}, flushTimeoutMS: 1_000 } as never)).toThrow(
      "stowage/winston: unknown option `flushTimeoutMS`; did you mean `flushTimeoutMs`?",
    );
    expect(() => new StowageTransport({ levle: "info" } as never)).toThrow(
      /did you mean `level`\?/,
    );
  });

  it("the logger config's keys at the top (the shape createLogger takes) are pointed into `config`, not silently ignored", () => {
    const build = () =>
      winston.createLogger({
        transports: [
          new StowageTransport({
            destination: "s3",
            s3: { bucket: "logs", credentials: { secretAccessKey: "s3cr3t-value" } },
          } as never),
        ],
      });
    let error: (Error & { code?: string }) | undefined;
    try {
      build();
    } catch (err) {
      error = err as Error;
    }
    expect(error?.code).toBe("config");
    expect(error?.message).toMatch(
      /unknown option `destination`: it is a logger config key; put it inside `config`/,
    );
    expect(error?.message).toMatch(/unknown option `s3`: it is a logger config key/);
    expect(error?.message).not.toContain("s3cr3t-value");
  });
});

describe("a store that is down when the app ends", () => {
  it.each(["quiet", "warn-listener"])(
    "(%s) the loss is reported on stderr (and as winston's 'warn'); 'finish' still comes, no crash, exit code 0",
    async (variant) => {
      const config = s3Config(
        uniquePrefix("winston-down"),
        { flushIntervalMs: 600_000, maxAttempts: 2, initialBackoffMs: 10, maxBackoffMs: 50 },
        { endpoint: await deadEndpoint(), secret: "never-print-this-secret" },
      );
      const res = await runApp("down-at-end", variant, config);
      expect(res.signal).toBeNull();
      expect(res.status, res.stderr).toBe(0);
      expect(res.stdout).toContain("finished not-ok");
      expect(res.stderr).toMatch(
        /stowage\/winston: close failed \(s3: \d+ record\(s\) pending, .*\); 50 of 50 record\(s\) not delivered/,
      );
      expect(res.stderr).not.toContain("never-print-this-secret");
      expect(res.stdout).not.toContain("threw");
      if (variant === "warn-listener") {
        expect(res.stdout).toMatch(
          /warn stowage\/winston: close failed .*50 of 50 record\(s\) not delivered \[\d+ pending, same transport: true\]/,
        );
        // The event comes before 'finish', so an app that exits on 'finish' still sees it.
        expect(res.stdout.indexOf("warn ")).toBeLessThan(res.stdout.indexOf("finished"));
      }
    },
  );
});

it("circular metadata, throwing getters, a throwing Proxy and a BigInt never throw into the app; the records arrive marked", async () => {
  const prefix = uniquePrefix("winston-values");
  const res = await runApp("values", "quiet", s3Config(prefix, { flushIntervalMs: 600_000 }));
  expect(res.status, res.stderr).toBe(0);
  expect(res.stdout).not.toContain("threw");
  expect(res.stdout).toContain("finished ok");
  const reader = s3Reader();
  const lines = (await readBack(reader, `${prefix}/`).finally(() => reader.close())).flatMap(
    (o) => o.lines,
  );
  const byId = new Map(lines.map((l) => [(l.data as { id: number }).id, l]));
  expect([...byId.keys()].sort()).toEqual([1, 2, 3, 4, 5]);
  expect(byId.get(1)).toMatchObject({
    message: "circular",
    data: { circular: { id: 1, name: "loop", self: "[Circular]" } },
  });
  expect(byId.get(2)).toMatchObject({ data: { nested: { boom: "[Unserializable]" } } });
  expect(byId.get(3)).toMatchObject({ message: "top getter", data: { boom: "[Unserializable]" } });
  expect(byId.get(4)!.message).toBe("proxy");
  expect(byId.get(5)).toMatchObject({ data: { big: String(2n ** 70n) } });
});
