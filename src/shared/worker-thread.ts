/**
 * Worker threads of this package: how one is started (the compiled `.js` entry
 * beside the caller in dist/, or its `.ts` source through jiti when running from
 * source under Vitest or `node --import jiti/register`), and the lifetime rule
 * that applies to it: the thread keeps the process alive only while an answer is
 * awaited, so an idle or finished user never keeps a process alive, and an
 * awaited answer is never abandoned at exit (the same rule as shared/abort.ts).
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker, type Transferable, type WorkerOptions } from "node:worker_threads";
import { StowageError } from "./errors.js";

export interface WorkerEntry {
  /** The compiled entry, e.g. `new URL("./spool-worker.js", import.meta.url)`. */
  compiled: URL;
  /** Its TypeScript source beside it, used when the compiled file is absent. */
  source: URL;
  /** Names the thread in the error when neither exists ("the spool worker"). */
  what: string;
  /**
   * The parent's execArgv flags the thread may inherit: a worker gets them all by
   * default, and some break it (`node --input-type=module -e …` makes every worker
   * fail to start).
   */
  flags: RegExp;
}

/**
 * @example
 * const worker = startWorker({ compiled, source, what: "the spool worker", flags: /^--enable-source-maps$/ }, { workerData });
 */
export function startWorker(entry: WorkerEntry, options: WorkerOptions = {}): Worker {
  const execArgv = process.execArgv.filter((a) => entry.flags.test(a));
  const opts: WorkerOptions = { ...options, execArgv };
  if (existsSync(fileURLToPath(entry.compiled))) return new Worker(entry.compiled, opts);
  const source = fileURLToPath(entry.source);
  if (!existsSync(source)) {
    throw new StowageError(
      "internal",
      `${entry.what} is missing (${fileURLToPath(entry.compiled)}); reinstall stowage or run \`npm run build\``,
    );
  }
  const jiti = createRequire(import.meta.url).resolve("jiti");
  // A CommonJS bootstrap (eval workers are CJS): load the TypeScript entry through jiti.
  const code = `const { createJiti } = require(${JSON.stringify(jiti)});
createJiti(${JSON.stringify(source)}).import(${JSON.stringify(source)}).catch((err) => setImmediate(() => { throw err; }));`;
  return new Worker(code, { ...opts, eval: true });
}

/** What a worker's owner does with its messages, its error and its exit. */
export interface WorkerHandlers<M> {
  message: (m: M) => void;
  error: (err: Error) => void;
  exit: (code: number) => void;
}

/**
 * A worker that is ref'd exactly while answers are awaited. It attaches the owner's
 * handlers itself, before its first `unref()`: a `"message"` listener added to a worker
 * refs the worker's port again, and an idle owner would then keep the process alive.
 * @example
 * const t = new AwaitedWorker(startWorker(entry), { message: onMessage, error: onError, exit: onExit });
 * t.request({ t: "sync" }); // the process stays alive …
 * t.answered();             // … until the answer came
 */
export class AwaitedWorker<M = unknown> {
  private refs = 0;

  constructor(
    readonly worker: Worker,
    handlers: WorkerHandlers<M>,
  ) {
    worker.on("message", handlers.message);
    worker.on("error", handlers.error);
    worker.on("exit", handlers.exit);
    worker.unref();
  }

  /** Posts a message that will be answered: the thread holds the process until answered(). */
  request(message: unknown, transfer: readonly Transferable[] = []): void {
    if (this.refs++ === 0) this.worker.ref();
    this.worker.postMessage(message, transfer);
  }

  /** `count` awaited answers arrived (once per request). */
  answered(count = 1): void {
    this.refs = Math.max(0, this.refs - count);
    if (this.refs === 0) this.worker.unref();
  }

  /** Nothing is awaited any more (the thread died or is being ended). */
  release(): void {
    this.refs = 0;
    this.worker.unref();
  }
}
