/** Helpers for the bridge benchmarks (skipped by bench/run.ts: `_` files): the load generator and statistics. */
import { spawn, spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { ObjectStore } from "../src/store/object-store.js";
import { minioStoreOf, startMinio } from "../test/support/minio-server.js";
import { listAll } from "../test/support/read-back.js";

const AUTOCANNON = join(import.meta.dirname, "..", "node_modules", ".bin", "autocannon");

/** autocannon's settings for one run. */
export interface LoadOptions {
  connections?: number;
  seconds?: number;
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  /** A fixed offered load (requests/s over all connections, autocannon `-R`) instead of as fast as possible. */
  rate?: number;
  /** Send this many requests, then stop (autocannon `-a`; `seconds` is then ignored). */
  amount?: number;
  /** Run the load generator on this CPU only (see `pinning`). */
  cpu?: number | undefined;
}

/**
 * CPUs for a server and its load generator, when the machine has two or more and
 * `taskset` exists (Linux): the server (all its threads) on CPU 0, the load generator on
 * CPU 1. Unpinned, the two compete for the same cores and the scheduler's choices move
 * requests/s by far more than the work being measured; pinned, everything a server
 * variant does — its logger's threads included — is paid from its own core.
 */
export function pinning(): { server: number; load: number } | undefined {
  if (process.platform !== "linux" || availableParallelism() < 2) return undefined;
  const probe = spawnSync("taskset", ["-c", "0", "true"], { stdio: "ignore" });
  return probe.status === 0 ? { server: 0, load: 1 } : undefined;
}

/** `[command, args]` to run `command args` on `cpu` only (as is when `cpu` is undefined). */
export function onCpu(
  cpu: number | undefined,
  command: string,
  args: string[],
): [string, string[]] {
  return cpu === undefined ? [command, args] : ["taskset", ["-c", String(cpu), command, ...args]];
}

/**
 * Requests/s of `url` measured by autocannon in its own process (so the load
 * generator does not share the server's event loop), over loopback.
 */
export async function autocannon(url: string, o: LoadOptions = {}): Promise<number> {
  return (await autocannonRun(url, o)).rps;
}

/** One autocannon run: mean requests/s and the number of responses it counted. */
export function autocannonRun(
  url: string,
  o: LoadOptions = {},
): Promise<{ rps: number; responses: number }> {
  const args = ["-j", "-c", String(o.connections ?? 50), "-d", String(o.seconds ?? 3)];
  if (o.rate !== undefined) args.push("-R", String(o.rate));
  if (o.amount !== undefined) args.push("-a", String(o.amount));
  if (o.method) args.push("-m", o.method);
  if (o.body !== undefined) args.push("-b", o.body);
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push("-H", `${k}=${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(...onCpu(o.cpu, AUTOCANNON, args), { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c));
    child.on("error", reject);
    child.on("close", (code) => {
      try {
        const r = JSON.parse(out) as {
          requests: { average: number; total: number };
          non2xx: number;
          errors: number;
        };
        if (code !== 0 || r.non2xx > 0 || r.errors > 0)
          return reject(
            new Error(`autocannon ${url}: exit ${code}, non2xx ${r.non2xx}, errors ${r.errors}`),
          );
        resolve({ rps: r.requests.average, responses: r.requests.total });
      } catch (err) {
        reject(new Error(`autocannon ${url}: unreadable output (exit ${code})`, { cause: err }));
      }
    });
  });
}

export const min = (xs: number[]) => Math.min(...xs);
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Runs each variant once per round, alternating, `rounds` times; returns the samples per
 * variant, in round order (sample i of every variant comes from round i). With `mirror`,
 * odd rounds run the variants in reverse (A B C, C B A, A B C, …): a drift of the machine
 * over a round then favours no variant, and neighbours in the list stay neighbours in time,
 * so a per-round ratio of two of them compares runs made seconds apart.
 */
export async function alternate<K extends string>(
  rounds: number,
  variants: Record<K, () => Promise<number>>,
  o: { mirror?: boolean } = {},
): Promise<Record<K, number[]>> {
  const keys = Object.keys(variants) as K[];
  const out = Object.fromEntries(keys.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let r = 0; r < rounds; r++)
    for (const k of o.mirror && r % 2 === 1 ? [...keys].reverse() : keys)
      out[k].push(await variants[k]());
  return out;
}

/** Per-round ratios `a[i] ÷ b[i]` of two variants' samples from `alternate`. */
export const pairedRatios = (a: number[], b: number[]): number[] => a.map((x, i) => x / b[i]!);

/**
 * A MinIO for a bridge benchmark, on the load generator's core when pinned (the server's
 * core stays the server's alone), and its store.
 */
export async function startBenchMinio(loadCpu: number | undefined) {
  const minio = await startMinio();
  if (loadCpu !== undefined && minio.pid !== undefined)
    spawnSync("taskset", ["-a", "-p", "-c", String(loadCpu), String(minio.pid)], {
      stdio: "ignore",
    });
  return { minio, store: minioStoreOf(minio) };
}

/** Records under `prefix` in the bucket: every object read back, its lines counted. */
export async function recordsInBucket(store: ObjectStore, prefix: string): Promise<number> {
  let n = 0;
  for (const key of await listAll(store, prefix)) {
    const got = await store.get(key);
    const chunks: Buffer[] = [];
    for await (const c of got.body) chunks.push(c as Buffer);
    const text = gunzipSync(Buffer.concat(chunks)).toString("utf8");
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  }
  return n;
}
