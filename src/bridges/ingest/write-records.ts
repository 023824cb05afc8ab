/**
 * Validated records → `Logger.write`, and what happened to each: accepted,
 * filtered (below the logger's level: `write` resolves for those too, so the level
 * is checked here, in the same tick as the write), or refused for the logger's reason.
 * Capacity refusals (queue or spool full) are named by their place in the body, so a
 * client can send exactly those again.
 */
import type { Logger } from "../../logger/logger.js";
import { isLevelEnabled, parseLevel, type Level } from "../../record/levels.js";
import { emptyRefusals, type IngestRefusals } from "./counts.js";
import type { IngestRecord } from "./validate-record.js";

export interface WriteOutcome {
  accepted: number;
  filtered: number;
  /** Refused by `write` as malformed (StowageError "usage"). */
  malformed: number;
  refusedBy: IngestRefusals;
  /** Body indexes of the records refused for capacity, ascending. */
  retry: number[];
}

const CAPACITY = new Set(["queueFull", "spoolFull"]);

/** @example await writeRecords(logger, [{ record: { timestamp, message: "hi", bindings: {} }, index: 0 }]) */
export async function writeRecords(
  logger: Logger,
  items: readonly { record: IngestRecord; index: number }[],
): Promise<WriteOutcome> {
  const out: WriteOutcome = {
    accepted: 0,
    filtered: 0,
    malformed: 0,
    refusedBy: emptyRefusals(),
    retry: [],
  };
  const writes = items.map(({ record }) => {
    const below = belowLevel(record.level, logger.level);
    // A filtered record is still handed to write(): a closed logger refuses it, and a bad
    // level is refused as malformed, as for any other record.
    return { below, done: logger.write(record as Parameters<Logger["write"]>[0]) };
  });
  const settled = await Promise.allSettled(writes.map((w) => w.done));
  settled.forEach((r, i) => {
    if (r.status === "fulfilled") return void (writes[i]!.below ? out.filtered++ : out.accepted++);
    const err = r.reason as { code?: string; reason?: string };
    if (err?.code === "usage") return void out.malformed++;
    const reason = refusalOf(err);
    out.refusedBy[reason]++;
    if (CAPACITY.has(reason)) out.retry.push(items[i]!.index);
  });
  return out;
}

/** True when a record at `name` (default info) is below `threshold`; false when `name` is no level (write decides). */
function belowLevel(name: string | undefined, threshold: Level): boolean {
  let level: Level;
  try {
    level = parseLevel(name ?? "info");
  } catch {
    return false;
  }
  return !isLevelEnabled(level, threshold);
}

/** The logger's refusal reason (StowageError "rejected" carries it as `reason`). */
function refusalOf(err: { code?: string; reason?: string }): keyof IngestRefusals {
  if (err?.code !== "rejected") return "failed";
  const r = err.reason;
  return r === "queueFull" || r === "spoolFull" || r === "oversized" ? r : "closed";
}
