/**
 * Hour batching of spooled records: the HourBatcher (SPEC §3.4 seal rules),
 * plus the spool row id of every line so that a seal can delete exactly the
 * rows that went into the batch.
 *
 * Invariant: for each UTC hour, `ids` lists the row ids of that hour's lines
 * not yet sealed, in arrival order — the HourBatcher seals an hour's oldest
 * lines first, so a seal of n lines takes the first n ids.
 */
import { HourBatcher, lineBytes, type HourBatch } from "../batch/hour-batcher.js";
import { utcHourStart } from "../v1-format/object-key.js";

export interface SealedRecords {
  ids: number[];
  /** Record time of each line (parallel to `ids` and `batch.lines`). */
  times: number[];
  batch: HourBatch;
}

export interface RecordBatcherOptions {
  maxBatchBytes: number;
  maxBatchRecords: number;
  flushIntervalMs: number;
  /** One unref'd timer for interval seals (the live batcher); none for recovery. */
  timer: boolean;
  onSeal(sealed: SealedRecords): void;
}

/** @example const rb = new RecordBatcher({ ...limits, timer: false, onSeal: (s) => out.push(s) }); rb.add(7, line, ms); */
export class RecordBatcher {
  private readonly ids = new Map<number, { id: number; ms: number }[]>();
  private readonly batcher: HourBatcher;

  constructor(options: RecordBatcherOptions) {
    this.batcher = new HourBatcher({
      maxBatchBytes: options.maxBatchBytes,
      maxBatchRecords: options.maxBatchRecords,
      flushIntervalMs: options.flushIntervalMs,
      timer: options.timer,
      onSeal: (batch) => {
        const list = this.ids.get(batch.hourMs) ?? [];
        const taken = list.splice(0, batch.records);
        if (list.length === 0) this.ids.delete(batch.hourMs);
        options.onSeal({ ids: taken.map((t) => t.id), times: taken.map((t) => t.ms), batch });
      },
    });
  }

  /** Adds a stored record (throws StowageError("format") for a time outside 1970..2286 or a line with "\n"). */
  add(id: number, line: string, timestampMs: number): void {
    const ms = Math.floor(timestampMs);
    const hour = utcHourStart(ms);
    let list = this.ids.get(hour);
    if (!list) this.ids.set(hour, (list = []));
    list.push({ id, ms }); // before add: a seal triggered by this line may include it
    try {
      this.batcher.add(line, timestampMs, lineBytes(line));
    } catch (err) {
      list.pop();
      if (list.length === 0) this.ids.delete(hour);
      throw err;
    }
  }

  sealAll(): void {
    this.batcher.sealAll();
  }

  get openRecords(): number {
    return this.batcher.openRecords;
  }

  /** Seals everything and releases the timer. */
  close(): void {
    this.batcher.close();
  }
}
