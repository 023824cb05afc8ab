/**
 * Spawns and watches spool child processes (test/support/spool-child.ts): the
 * acknowledged ids each reports, its final JSON line, SIGKILL, and a bounded
 * wait for it to exit on its own.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { minio } from "./minio.js";

const ROOT = join(import.meta.dirname, "../..");
const CHILD = join(import.meta.dirname, "spool-child.ts");

export interface ChildArgs {
  mode: "log" | "drain" | "flush-once";
  spoolPath: string;
  prefix: string;
  endpoint?: string;
  tag?: string;
  inFlight?: number;
  max?: number;
  deadlineMs?: number;
  delivery?: Record<string, unknown>;
}

export interface SpoolChild {
  proc: ChildProcess;
  /** Ids whose write() resolved, in report order. */
  acked: string[];
  /** The parsed `CLOSED`/`DRAINED` line, once printed. */
  final: Record<string, unknown> | null;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when `pred()` holds (checked on every output line and every 50 ms); rejects after `ms`. */
  until(pred: () => boolean, ms: number, what: string): Promise<void>;
  kill(): Promise<void>;
}

export function spawnSpoolChild(args: ChildArgs, env: Record<string, string> = {}): SpoolChild {
  const m = minio();
  const full = { endpoint: m.endpoint, bucket: m.bucket, region: m.region, ...args };
  const proc = spawn(process.execPath, ["--import", "jiti/register", CHILD, JSON.stringify(full)], {
    cwd: ROOT,
    env: {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      STOWAGE_TEST_KEY: m.accessKeyId,
      STOWAGE_TEST_SECRET: m.secretAccessKey,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let partial = "";
  let err = "";
  const child: SpoolChild = {
    proc,
    acked: [],
    final: null,
    stderr: () => err.slice(-4000),
    // "close", not "exit": every line the child wrote has been read by then.
    exited: new Promise((resolve) => proc.on("close", (code, signal) => resolve({ code, signal }))),
    async until(pred, ms, what) {
      const deadline = Date.now() + ms;
      while (!pred()) {
        if (proc.exitCode !== null || proc.signalCode !== null) {
          if (pred()) return;
          throw new Error(
            `child exited (${proc.exitCode ?? proc.signalCode}) before: ${what}\n${child.stderr()}`,
          );
        }
        if (Date.now() > deadline)
          throw new Error(`timed out after ${ms} ms waiting for: ${what}\n${child.stderr()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async kill() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await child.exited;
    },
  };
  proc.stdout!.setEncoding("utf8");
  proc.stdout!.on("data", (chunk: string) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? ""; // a line cut by SIGKILL is never counted
    for (const line of lines) {
      const m2 = /^(CLOSED|DRAINED) (.*)$/.exec(line);
      if (m2) child.final = JSON.parse(m2[2]!) as Record<string, unknown>;
      else if (line) child.acked.push(line);
    }
  });
  proc.stderr!.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-8000)));
  return child;
}

/** Waits for a child to exit by itself (a leaked handle would keep it alive); kills it and throws after `ms`. */
export async function exitsOnItsOwn(child: SpoolChild, ms: number): Promise<number | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), ms)));
  const res = await Promise.race([child.exited, timeout]);
  clearTimeout(timer);
  if (res === "timeout") {
    await child.kill();
    throw new Error(`the child did not exit on its own within ${ms} ms\n${child.stderr()}`);
  }
  return res.code;
}

/** A small deterministic PRNG (the seed is printed so a failing run can be replayed). */
export function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x100000000;
  };
}
