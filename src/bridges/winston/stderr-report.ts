/**
 * Where the winston bridge reports (refused records, a failed flush or close):
 * `stowage/winston: <message>` straight to file descriptor 2 with a synchronous
 * write, so a report made while the app is exiting (winston's 'finish' handler
 * often calls `process.exit()`) is on stderr before the process ends.
 */
import { writeSync } from "node:fs";

/** What the bridge reports: one message, without secrets. */
export type WinstonErrorReporter = (message: string) => void;

/** A full stderr pipe answers EAGAIN to a non-blocking write: retry a bounded number of times. */
const MAX_EAGAIN_RETRIES = 1_000;

/**
 * Writes `stowage/winston: <message>` to fd 2; never throws (a closed stderr loses the report).
 * @example stderrReporter("close failed (…)");
 */
export const stderrReporter: WinstonErrorReporter = (message) => {
  const bytes = Buffer.from(`stowage/winston: ${message}\n`, "utf8");
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
};
