/**
 * Main-thread side of the spool worker: starts it (compiled `spool-worker.js`
 * beside this file in dist/, or the `.ts` through jiti when running from
 * source under Vitest or `node --import jiti/register`), and keeps it unref'd
 * except while an answer is awaited, so an idle or closed logger never keeps
 * the process alive, and an awaited commit is never abandoned at exit.
 */
import { AwaitedWorker, startWorker } from "../shared/worker-thread.js";
import type { FromWorker, SpoolWorkerConfig, ToWorker } from "./worker-protocol.js";

/** The spool needs no inherited flag but what enables `node:sqlite` and readable stacks. */
const SPOOL_WORKER = {
  compiled: new URL("./spool-worker.js", import.meta.url),
  source: new URL("./spool-worker.ts", import.meta.url),
  what: "the spool worker",
  flags: /^--(?:(?:no-)?experimental-sqlite|enable-source-maps)$/,
};

/**
 * @example
 * const host = new WorkerHost(cfg, (m) => onMessage(m), (err) => onDeath(err));
 * host.request({ t: "sync", id: 1 }); // ref'd until host.answered()
 */
export class WorkerHost {
  private readonly awaited: AwaitedWorker<FromWorker>;
  private exited = false;

  constructor(
    cfg: SpoolWorkerConfig,
    onMessage: (m: FromWorker) => void,
    onDeath: (err: Error) => void,
  ) {
    this.awaited = new AwaitedWorker<FromWorker>(startWorker(SPOOL_WORKER, { workerData: cfg }), {
      message: onMessage,
      error: (err) => onDeath(err),
      exit: (code) => {
        this.exited = true;
        onDeath(new Error(`the spool worker exited (code ${code})`));
      },
    });
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Posts a message that will be answered: the worker keeps the process alive until answered(). */
  request(m: ToWorker): void {
    this.awaited.request(m);
  }

  /** One awaited answer arrived (call once per request). */
  answered(count = 1): void {
    this.awaited.answered(count);
  }

  /** Ends the thread; safe to call twice. */
  async terminate(): Promise<void> {
    this.awaited.release();
    if (!this.exited) await this.awaited.worker.terminate();
  }
}
