/**
 * Where the bridges report (a pino line that is not JSON, refused records, a failed
 * flush or close, where records go when no config was found): straight to file
 * descriptor 2 with a synchronous write.
 *
 * Why not `process.stderr`: in pino's worker thread, `process.stderr` is a stream
 * relayed through the main thread. At exit the main thread blocks in thread-stream's
 * `end()` until the worker has closed the logger and then exits, so a report written
 * that way is never printed (issue 30 row 3: 3,000 lines lost at exit, nothing on
 * stderr). `fs.writeSync(2, …)` reaches the file descriptor from any thread.
 */
import { writeSync } from "node:fs";

/** What the bridges report: one message, without secrets. */
export type BridgeErrorReporter = (message: string) => void;

/** A full stderr pipe answers EAGAIN to a non-blocking write: retry a bounded number of times. */
const MAX_EAGAIN_RETRIES = 1_000;

/**
 * Writes `<bridge>: <message>` to fd 2; never throws (a closed stderr loses the report).
 * @example reportToStderr("stowage/otel", "shutdown failed (…)");
 */
export function reportToStderr(bridge: string, message: string): void {
  const bytes = Buffer.from(`${bridge}: ${message}\n`, "utf8");
  let offset = 0;
  let retries = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(2, bytes, offset, bytes.length - offset);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "EAGAIN" || ++retries > MAX_EAGAIN_RETRIES) return;
    }
  }
}

/**
 * The pino bridges' reporter: `stowage/pino: <message>` on fd 2.
 * @example stderrReporter("close failed (…)");
 */
export const stderrReporter: BridgeErrorReporter = (message) =>
  reportToStderr("stowage/pino", message);
