/**
 * pino bridge benchmark: main-thread ns per `info({2 fields}, msg)`
 * of pino with the stowage/pino transport (worker thread, delivering to a real
 * MinIO) vs pino → /dev/null (sonic-boom, async), in alternating rounds (min and
 * median; goal ≤ 1.1×), and the records/s the transport delivered: calls until
 * pino's flush(cb) returned, which waits for the upload.
 * Needs `npm run build` (pino's worker loads dist/pino.js).
 * Usage: node --import jiti/register bench/bridges-pino.ts [--calls 100000] [--rounds 3]
 */
import { join } from "node:path";
import pino from "pino";
import { withFlushErrors } from "../src/pino.js";
import { startMinio } from "../test/support/minio-server.js";
import { positiveArg } from "./_shared.js";
import { alternate, median, min } from "./_bridges.js";

const CALLS = positiveArg("calls", 100_000);
const ROUNDS = positiveArg("rounds", 3);
const TARGET = join(import.meta.dirname, "..", "dist", "pino.js");

const server = await startMinio();
let delivered: number[] = [];

function nsPerCall(log: pino.Logger): number {
  const t = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) log.info({ orderId: i, route: "/orders/:id" }, "order event");
  return Number(process.hrtime.bigint() - t) / CALLS;
}

async function devNull(): Promise<number> {
  const dest = pino.destination({ dest: "/dev/null", sync: false });
  const ns = nsPerCall(pino(dest));
  await new Promise<void>((r) => dest.flush(() => r()));
  dest.end();
  return ns;
}

let round = 0;
async function stowage(): Promise<number> {
  const transport = pino.transport({
    target: TARGET,
    options: {
      config: {
        console: false,
        destination: "s3",
        s3: {
          bucket: server.bucket,
          prefix: `bench/pino-${Date.now()}-${round++}`,
          region: server.region,
          endpoint: server.endpoint,
          forcePathStyle: true,
          credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
          delivery: { maxQueueBytes: "256MiB" },
        },
      },
      flushTimeoutMs: 120_000,
    },
  });
  withFlushErrors(transport); // a failed delivery rejects the round below (issue 30 row 2)
  const log = pino(transport);
  const t0 = process.hrtime.bigint();
  const ns = nsPerCall(log);
  await new Promise<void>((resolve, reject) => log.flush((err) => (err ? reject(err) : resolve())));
  delivered.push(CALLS / (Number(process.hrtime.bigint() - t0) / 1e9));
  transport.end();
  return ns;
}

await devNull(); // warm-up
await stowage();
delivered = [];
const s = await alternate(ROUNDS, { devNull, stowage });
console.log(
  `\n-- pino: ${CALLS.toLocaleString()} calls of info({2 fields}, msg), ${ROUNDS} alternating rounds`,
);
console.log(
  `pino → /dev/null          ${min(s.devNull).toFixed(0)} / ${median(s.devNull).toFixed(0)} ns/call (min / median)`,
);
console.log(
  `pino → stowage/pino       ${min(s.stowage).toFixed(0)} / ${median(s.stowage).toFixed(0)} ns/call`,
);
console.log(
  `ratio                     ${(min(s.stowage) / min(s.devNull)).toFixed(2)}× / ${(median(s.stowage) / median(s.devNull)).toFixed(2)}× (goal ≤ 1.1×)`,
);
console.log(
  `delivered to MinIO        ${min(delivered).toFixed(0)} / ${median(delivered).toFixed(0)} records/s (first call → flush(cb) done)`,
);
await server.stop();
