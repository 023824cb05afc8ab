/**
 * Entry of the spool worker thread: opens the SqliteSpool named in workerData
 * and runs the WorkerLoop on it. Loaded only through `new Worker(...)` by
 * worker-host.ts (directly from dist/, through jiti when running the .ts).
 */
import { parentPort, workerData } from "node:worker_threads";
import { SqliteSpool } from "./sqlite-spool.js";
import { WorkerLoop } from "./worker-loop.js";
import {
  toWireError,
  type FromWorker,
  type SpoolWorkerConfig,
  type ToWorker,
} from "./worker-protocol.js";

const port = parentPort;
if (port) {
  const cfg = workerData as SpoolWorkerConfig;
  const post = (m: FromWorker) => port.postMessage(m);
  let loop: WorkerLoop | undefined;
  try {
    const spool = SqliteSpool.open(cfg.path, {
      leaseMs: cfg.leaseMs,
      ...(cfg.destination === undefined ? {} : { destination: cfg.destination }),
      ...(cfg.writer === undefined ? {} : { writer: cfg.writer }),
    });
    loop = new WorkerLoop(spool, cfg, post);
  } catch (err) {
    post({ t: "fatal", error: toWireError(err) });
  }
  port.on("message", (m: ToWorker) => {
    if (loop) loop.handle(m);
    else if (m.t === "close") post({ t: "closed" });
  });
}
