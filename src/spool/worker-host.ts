/**
 * Main-thread side of the spool worker: starts it (compiled `spool-worker.js`
 * beside this file in dist/, or the `.ts` through jiti when running from
 * source under Vitest or `node --import jiti/register`), and keeps it unref'd
 * except while an answer is awaited, so an idle or closed logger never keeps
 * the process alive, and an awaited commit is never abandoned at exit.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { StowageError } from "../shared/errors.js";
import type { FromWorker, SpoolWorkerConfig, ToWorker } from "./worker-protocol.js";

/**
 * Flags the worker may inherit. A worker gets the parent's execArgv by default, and some
 * of them break it (`node --input-type=module -e …` makes every worker fail to start);
 * the spool needs none of them except what enables `node:sqlite` and readable stacks.
 */
const WORKER_FLAGS = /^--(?:(?:no-)?experimental-sqlite|enable-source-maps)$/;

function createWorker(cfg: SpoolWorkerConfig): Worker {
  const execArgv = process.execArgv.filter((a) => WORKER_FLAGS.test(a));
  const compiled = new URL("./spool-worker.js", import.meta.url);
  if (existsSync(fileURLToPath(compiled)))
    return new Worker(compiled, { workerData: cfg, execArgv });
  const source = fileURLToPath(new URL("./spool-worker.ts", import.meta.url));
  if (!existsSync(source)) {
    throw new StowageError(
      "internal",
      `the spool worker is missing (${fileURLToPath(compiled)}); reinstall stowage or run \`npm run build\``,
    );
  }
  const jiti = createRequire(import.meta.url).resolve("jiti");
  // A CommonJS bootstrap (eval workers are CJS): load the TypeScript entry through jiti.
  const code = `const { createJiti } = require(${JSON.stringify(jiti)});
createJiti(${JSON.stringify(source)}).import(${JSON.stringify(source)}).catch((err) => setImmediate(() => { throw err; }));`;
  return new Worker(code, { eval: true, workerData: cfg, execArgv });
}

/**
 * @example
 * const host = new WorkerHost(cfg, (m) => onMessage(m), (err) => onDeath(err));
 * host.request({ t: "sync", id: 1 }); // ref'd until host.answered()
 */
export class WorkerHost {
  private readonly worker: Worker;
  private refs = 0;
  private exited = false;

  constructor(
    cfg: SpoolWorkerConfig,
    onMessage: (m: FromWorker) => void,
    onDeath: (err: Error) => void,
  ) {
    this.worker = createWorker(cfg);
    this.worker.unref();
    this.worker.on("message", onMessage);
    this.worker.on("error", (err) => onDeath(err));
    this.worker.on("exit", (code) => {
      this.exited = true;
      onDeath(new Error(`the spool worker exited (code ${code})`));
    });
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Posts a message that will be answered: the worker keeps the process alive until answered(). */
  request(m: ToWorker): void {
    if (this.refs++ === 0) this.worker.ref();
    this.worker.postMessage(m);
  }

  /** One awaited answer arrived (call once per request). */
  answered(count = 1): void {
    this.refs = Math.max(0, this.refs - count);
    if (this.refs === 0) this.worker.unref();
  }

  /** Ends the thread; safe to call twice. */
  async terminate(): Promise<void> {
    this.refs = 0;
    this.worker.unref();
    if (!this.exited) await this.worker.terminate();
  }
}
