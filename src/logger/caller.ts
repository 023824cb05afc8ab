/**
 * Caller capture (`caller: true`): `relative/path.ts:LINE` of the logging call,
 * from a stack capture — it costs ~microseconds, so it is off by default.
 */
import { relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const FRAME = /\(?((?:file:\/\/)?[^\s()]+?):(\d+):\d+\)?$/;

/** Returns the first stack frame outside Stowage's logger, relative to `root`. */
export function captureCaller(root: string, skipFrames: number): string | undefined {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = skipFrames + 2;
  Error.captureStackTrace(holder, captureCaller);
  Error.stackTraceLimit = limit;
  const lines = (holder.stack ?? "").split("\n").slice(1 + skipFrames);
  for (const line of lines) {
    const m = FRAME.exec(line.trim());
    if (!m) continue;
    let file = m[1]!;
    if (file.startsWith("node:")) continue;
    if (file.startsWith("file://")) file = fileURLToPath(file);
    const rel = relative(root, file).split(sep).join("/");
    return `${rel}:${m[2]}`;
  }
  return undefined;
}
