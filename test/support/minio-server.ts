/**
 * Starts and stops a real MinIO server for tests: free loopback port, temporary
 * data directory, random root credentials, buckets created through the S3 API.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { findOrBuildMinio } from "./minio-binary.js";
import { S3Store, type S3StoreOptions } from "../../src/store/s3-store.js";

export interface MinioInfo {
  endpoint: string;
  port: number;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** A bucket created for general use; tests should still use unique prefixes. */
  bucket: string;
}

/**
 * An S3Store on a MinIO server (path style, root credentials); `overrides` change the
 * bucket, the endpoint (e.g. a proxy in front of MinIO), timeouts, or credentials.
 */
export function minioStoreOf(m: MinioInfo, overrides: Partial<S3StoreOptions> = {}): S3Store {
  return new S3Store({
    bucket: m.bucket,
    region: m.region,
    endpoint: m.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: m.accessKeyId, secretAccessKey: m.secretAccessKey },
    ...overrides,
  });
}

/**
 * The logger's `s3` destination block for a MinIO server (path style, root credentials)
 * under `prefix`, the same connection `minioStoreOf` makes.
 * @example createLogger({ console: false, destination: "s3", s3: minioS3Destination(m, prefix) })
 */
export function minioS3Destination(m: MinioInfo, prefix: string) {
  return {
    bucket: m.bucket,
    prefix,
    region: m.region,
    endpoint: m.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: m.accessKeyId, secretAccessKey: m.secretAccessKey },
  };
}

export interface RunningMinio extends MinioInfo {
  /** The server's process id (benchmarks read its CPU time). */
  pid: number | undefined;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === "object" && addr ? addr.port : 0));
    });
  });
}

async function waitLive(
  endpoint: string,
  child: ChildProcess,
  output: () => string,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`minio exited with ${child.exitCode}:\n${output()}`);
    try {
      const res = await fetch(`${endpoint}/minio/health/live`);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`minio did not become live within 60 s:\n${output()}`);
}

/** Creates buckets through the S3 API (never by touching the data dir). */
export async function createBuckets(
  info: MinioInfo,
  buckets: string[],
  options: { objectLock?: boolean } = {},
): Promise<void> {
  // The suite's one MinIO client builder; the SDK's own 3 attempts, as a bare client had.
  const store = minioStoreOf(info, { maxAttempts: 3 });
  try {
    for (const Bucket of buckets)
      await store.client.send(
        new CreateBucketCommand({
          Bucket,
          ...(options.objectLock ? { ObjectLockEnabledForBucket: true } : {}),
        }),
      );
  } finally {
    store.close();
  }
}

/** Servers started by this process and not yet stopped: killed if the process exits first. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * A process that ends without calling `stop()` (a benchmark whose output pipe closed, an
 * uncaught error) would leave its MinIO running: the first start installs one `exit` hook
 * that kills what is still running.
 */
function killOnExit(child: ChildProcess): void {
  running.add(child);
  child.once("exit", () => running.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const c of running) c.kill("SIGKILL");
  });
}

export async function startMinio(
  options: { buckets?: string[]; log?: (l: string) => void } = {},
): Promise<RunningMinio> {
  const bin = findOrBuildMinio(options.log);
  const dataDir = mkdtempSync(join(tmpdir(), "stowage-minio-"));
  const port = await freePort();
  const consolePort = await freePort();
  const accessKeyId = "test" + randomBytes(6).toString("hex");
  const secretAccessKey = randomBytes(20).toString("hex");
  let out = "";
  const child = spawn(
    bin,
    [
      "server",
      dataDir,
      "--address",
      `127.0.0.1:${port}`,
      "--console-address",
      `127.0.0.1:${consolePort}`,
      "--quiet",
    ],
    {
      env: {
        ...process.env,
        MINIO_ROOT_USER: accessKeyId,
        MINIO_ROOT_PASSWORD: secretAccessKey,
        MINIO_BROWSER: "off",
        MINIO_UPDATE: "off",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  killOnExit(child);
  child.stdout?.on("data", (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
  child.stderr?.on("data", (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
  const endpoint = `http://127.0.0.1:${port}`;
  const info: MinioInfo = {
    endpoint,
    port,
    accessKeyId,
    secretAccessKey,
    region: "us-east-1",
    bucket: "stowage-test",
  };
  try {
    await waitLive(endpoint, child, () => out);
    await createBuckets(info, [info.bucket, ...(options.buckets ?? [])]);
  } catch (err) {
    child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    ...info,
    pid: child.pid,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        const t = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(t);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
