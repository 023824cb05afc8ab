/**
 * A child process for the spool crash tests (run with `node --import jiti/register`).
 * Argument: JSON {mode, spoolPath, prefix, endpoint, bucket, region, tag, inFlight, max, delivery}.
 * Credentials come from STOWAGE_TEST_KEY / STOWAGE_TEST_SECRET (never argv); STOWAGE_TEST_NO_CLOSE=1
 * ends "log" mode without close().
 * - mode "log": writes records {data: {id: "<tag>-<n>"}} through write(), `inFlight` at a time,
 *   and prints each id on stdout only after its write() resolved (committed). With `max`, stops
 *   after that many (or on SIGTERM), closes, prints `CLOSED <FlushResult JSON>` and exits on its own.
 * - mode "flush-once": one flush() right after createLogger(), then the spool's status, then
 *   close(); prints `DRAINED {flush, status, closed}` (a restart delivers at once).
 * - mode "drain": flushes until the spool file holds no records and no pending batch, closes,
 *   prints `DRAINED <JSON>` and exits on its own (no process.exit: a leaked handle hangs the test).
 */
import { createLogger } from "../../src/index.js";
import { getS3SpoolStatus } from "../../src/s3.js";

interface ChildArgs {
  mode: "log" | "drain" | "flush-once";
  spoolPath: string;
  prefix: string;
  endpoint: string;
  bucket: string;
  region: string;
  tag?: string;
  inFlight?: number;
  max?: number;
  deadlineMs?: number;
  delivery?: Record<string, unknown>;
}

const args = JSON.parse(process.argv[2] ?? "{}") as ChildArgs;
const log = createLogger({
  console: false,
  destination: "s3",
  s3: {
    bucket: args.bucket,
    prefix: args.prefix,
    region: args.region,
    endpoint: args.endpoint,
    forcePathStyle: true,
    credentials: {
      accessKeyId: process.env.STOWAGE_TEST_KEY ?? "",
      secretAccessKey: process.env.STOWAGE_TEST_SECRET ?? "",
    },
    delivery: { buffer: "sqlite", spoolPath: args.spoolPath, ...args.delivery },
  },
} as Parameters<typeof createLogger>[0]);

async function logLoop(): Promise<void> {
  let next = 0;
  let stop = false;
  process.once("SIGTERM", () => (stop = true)); // stop writing, then close normally
  const max = args.max ?? Infinity;
  const lane = async () => {
    while (!stop && next < max) {
      const id = `${args.tag ?? "x"}-${next++}`;
      await log.write({
        level: "info",
        message: "spool child",
        data: { id, pad: "p".repeat(120) },
      });
      process.stdout.write(`${id}\n`); // stdout to a pipe is synchronous on Linux
    }
  };
  await Promise.all(Array.from({ length: args.inFlight ?? 8 }, lane));
  if (process.env.STOWAGE_TEST_NO_CLOSE) return; // end without close(): the process must still exit
  const res = await log.close({ timeoutMs: 60_000 });
  process.stdout.write(`CLOSED ${JSON.stringify(res)}\n`);
}

async function drain(): Promise<void> {
  const deadline = Date.now() + (args.deadlineMs ?? 60_000);
  let rounds = 0;
  let last = await log.flush({ timeoutMs: 30_000 });
  let status = await getS3SpoolStatus(args.spoolPath);
  while ((status.records > 0 || status.pending > 0) && Date.now() < deadline) {
    rounds++;
    await new Promise((r) => setTimeout(r, 200));
    last = await log.flush({ timeoutMs: 30_000 });
    status = await getS3SpoolStatus(args.spoolPath);
  }
  const closed = await log.close({ timeoutMs: 30_000 });
  process.stdout.write(
    `DRAINED ${JSON.stringify({ rounds, last, closed, status: await getS3SpoolStatus(args.spoolPath) })}\n`,
  );
}

async function flushOnce(): Promise<void> {
  const flush = await log.flush({ timeoutMs: 60_000 });
  const status = await getS3SpoolStatus(args.spoolPath);
  const closed = await log.close({ timeoutMs: 30_000 });
  process.stdout.write(`DRAINED ${JSON.stringify({ flush, status, closed })}\n`);
}

void (args.mode === "drain" ? drain() : args.mode === "flush-once" ? flushOnce() : logLoop());
