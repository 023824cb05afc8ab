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
  // One wait per distinct promise: records handed over in a row that got the same promise
  // object back (the logger answers every record it keeps at once with one settled promise)
  // share its outcome, so a body of 100 accepted records costs one reaction, not 100.
  const waits: Promise<void>[] = [];
  /** Per distinct promise, the places in `items` of its records (ascending). */
  const groups: number[][] = [];
  const below: boolean[] = new Array<boolean>(items.length);
  let last: Promise<void> | undefined;
  const threshold = logger.level;
  // Most bodies use one or two levels: the last one's answer is kept.
  let lastLevel: string | undefined = "";
  let lastBelow = false;
  for (let i = 0; i < items.length; i++) {
    const record = items[i]!.record;
    if (record.level !== lastLevel) {
      lastLevel = record.level;
      lastBelow = belowLevel(record.level, threshold);
    }
    below[i] = lastBelow;
    // A filtered record is still handed to write(): a closed logger refuses it, and a bad
    // level is refused as malformed, as for any other record.
    const done = logger.write(record as Parameters<Logger["write"]>[0]);
    if (done === last) groups[groups.length - 1]!.push(i);
    else {
      waits.push(done);
      groups.push([i]);
      last = done;
    }
  }
  const settled = await Promise.allSettled(waits);
  for (let g = 0; g < groups.length; g++) {
    const r = settled[g]!;
    for (const i of groups[g]!) {
      if (r.status === "fulfilled") {
        if (below[i]) out.filtered++;
        else out.accepted++;
        continue;
      }
      const err = r.reason as { code?: string; reason?: string };
      if (err?.code === "usage") {
        out.malformed++;
        continue;
      }
      const reason = refusalOf(err);
      out.refusedBy[reason]++;
      if (CAPACITY.has(reason)) out.retry.push(items[i]!.index);
    }
  }
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
