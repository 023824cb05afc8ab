/**
 * Long-running child processes for the `stowage logs --follow` tests: the follow-writer
 * (test/support/follow-writer.mjs, on dist/) and the built CLI, with their output collected
 * and a wait for what they print (no wall-clock assertions: a generous timeout only).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { BIN } from "./cli.js";
import { minio } from "./minio.js";

export interface Proc {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  /** Resolves with the exit code (a signal's death: null). */
  code: Promise<number | null>;
  /** Waits until `test()` holds, checking as output arrives; rejects after `ms` naming `what`. */
  waitFor(test: () => boolean, what: string, ms?: number): Promise<void>;
}

/** Collects a child's output. */
export function track(child: ChildProcess): Proc {
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((w) => w());
  let closed = false;
  const proc: Proc = {
    child,
    stdout: "",
    stderr: "",
    code: new Promise((resolve) =>
      child.on("close", (code) => {
        closed = true;
        wake();
        resolve(code);
      }),
    ),
    waitFor(test, what, ms = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (test()) done(resolve);
          else if (closed)
            done(() => reject(new Error(`${what}: the process ended first\n${tail()}`)));
        };
        const timer = setTimeout(
          () => done(() => reject(new Error(`timed out waiting for ${what}\n${tail()}`))),
          ms,
        );
        const done = (then: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          then();
        };
        waiters.add(check);
        check();
      });
    },
  };
  const tail = () => `stdout: …${proc.stdout.slice(-1500)}\nstderr: …${proc.stderr.slice(-3000)}`;
  child.stdout?.on("data", (d: Buffer) => ((proc.stdout += d.toString()), wake()));
  child.stderr?.on("data", (d: Buffer) => ((proc.stderr += d.toString()), wake()));
  return proc;
}

const baseEnv = (home: string) => ({
  PATH: process.env.PATH ?? "",
  HOME: home,
  AWS_EC2_METADATA_DISABLED: "true",
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
  NODE_NO_WARNINGS: "1",
});

/** A writer in another process logging `<tag>-<n>` every `intervalMs` to `prefix` on MinIO, flushing each. */
export function startWriter(prefix: string, tag: string, home: string, intervalMs = 150): Proc {
  const m = minio();
  const args = {
    bucket: m.bucket,
    prefix,
    endpoint: m.endpoint,
    region: m.region,
    tag,
    intervalMs,
  };
  const script = join(import.meta.dirname, "follow-writer.mjs");
  return track(
    spawn(process.execPath, [script, JSON.stringify(args)], {
      env: {
        ...baseEnv(home),
        STOWAGE_TEST_KEY: m.accessKeyId,
        STOWAGE_TEST_SECRET: m.secretAccessKey,
      },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
}

/** The ids the writer has delivered so far, in its order. */
export function delivered(writer: Proc): string[] {
  return [...writer.stdout.matchAll(/^DELIVERED (\S+)$/gm)].map((m) => m[1]!);
}

/** Stops the writer (it closes its logger first) and returns every id it delivered. */
export async function stopWriter(writer: Proc): Promise<string[]> {
  writer.child.kill("SIGTERM");
  await writer.waitFor(() => writer.stdout.includes("CLOSED\n"), "the writer to close");
  await writer.code;
  return delivered(writer);
}

/** `stowage logs --follow` on `s3://<bucket>/<prefix>` through `endpoint` (MinIO or a proxy), credentials from the environment. */
export function startFollower(
  prefix: string,
  endpoint: string,
  home: string,
  extra: string[] = [],
): Proc {
  const m = minio();
  return track(
    spawn(
      process.execPath,
      [
        BIN,
        "logs",
        "--follow",
        "--source",
        `s3://${m.bucket}/${prefix}`,
        "--endpoint",
        endpoint,
        "--force-path-style",
        "--region",
        m.region,
        ...extra,
      ],
      {
        env: {
          ...baseEnv(home),
          AWS_ACCESS_KEY_ID: m.accessKeyId,
          AWS_SECRET_ACCESS_KEY: m.secretAccessKey,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    ),
  );
}
