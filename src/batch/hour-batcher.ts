/**
 * Per-UTC-hour open batches (§3.4): lines are grouped by the UTC hour of their
 * record time; each hour has at most one open batch, sealed at the first of
 * maxBatchBytes, maxBatchRecords, flushIntervalMs since it opened, or sealAll().
 *
 * Invariants:
 * - a line joins the open batch of its own hour (10:59:59.999 and 11:00:00.000 never share one);
 * - an open batch never holds more than maxBatchBytes decoded bytes (newlines included) or
 *   maxBatchRecords lines; a single line larger than maxBatchBytes is sealed alone;
 * - every batch handed to onSeal has ≥ 1 line, and its state is removed first, so onSeal
 *   may call add() again; seals triggered together are emitted oldest hour first.
 * Timers: by default none. The owner calls tick() (e.g. from its own timer, at
 * nextDeadlineMs()) or passes `timer: true` for one self-managed unref'd timeout.
 */
import { idleTimer } from "../shared/abort.js";
import { StowageError } from "../shared/errors.js";
import type { BufferPool } from "./buffer-pool.js";
import { MAX_EPOCH_MS, utcHourStart } from "../v1-format/object-key.js";
import { utf8Write } from "../shared/buffer-text.js";

export type SealReason = "bytes" | "records" | "interval" | "flush";

/** A sealed hour batch, as handed to `onSeal`. */
export interface HourBatch {
  /** Start of the UTC hour, epoch ms. */
  hourMs: number;
  /** JSON lines without newlines, in arrival order (empty when the batcher writes into `ndjson`). */
  lines: string[];
  /** With a buffer pool: the NDJSON bytes so far (`ndjson.subarray(0, decodedBytes)`); return it to the pool after use. */
  ndjson?: Buffer;
  records: number;
  /** Decoded NDJSON size: every line's UTF-8 bytes plus its newline. */
  decodedBytes: number;
  minMs: number;
  maxMs: number;
  /** Clock time the batch opened (its first line arrived). */
  openedAtMs: number;
  reason: SealReason;
}

/**
 * The bytes an NDJSON line takes in a batch: its UTF-8 length plus the newline.
 * @example lineBytes("é") // 3
 */
export function lineBytes(line: string): number {
  return Buffer.byteLength(line, "utf8") + 1;
}

export interface HourBatcherOptions {
  maxBatchBytes: number;
  maxBatchRecords: number;
  flushIntervalMs: number;
  onSeal: (batch: HourBatch) => void;
  /** Clock for flushIntervalMs (default Date.now); inject one in tests. */
  now?: () => number;
  /** Arm one unref'd setTimeout that calls tick() at each deadline (default false). */
  timer?: boolean;
  /** Write lines into pooled NDJSON buffers instead of keeping strings. */
  pool?: BufferPool;
}

/**
 * @example
 * const batcher = new HourBatcher({ maxBatchBytes: 1 << 20, maxBatchRecords: 5000,
 *   flushIntervalMs: 30_000, onSeal: (b) => queue.push(b), timer: true });
 * batcher.add(line, timestampMs);
 */
export class HourBatcher {
  private readonly open = new Map<number, HourBatch>();
  private last: HourBatch | null = null;
  private timer: (() => void) | null = null;
  private timerAt = Infinity;
  private readonly opts: Required<Omit<HourBatcherOptions, "timer" | "pool">> & {
    timer: boolean;
  };
  private readonly pool: BufferPool | undefined;
  /** The hour whose last batch was sealed full (bytes or records), and that batch's size. */
  private fullHourMs = NaN;
  private fullHourBytes = 0;

  constructor(opts: HourBatcherOptions) {
    for (const k of ["maxBatchBytes", "maxBatchRecords", "flushIntervalMs"] as const) {
      const v = opts[k];
      if (!Number.isInteger(v) || v <= 0) {
        throw new StowageError("config", `${k} must be a positive integer, got ${String(v)}`);
      }
    }
    this.opts = { now: Date.now, timer: false, ...opts };
    this.pool = opts.pool;
  }

  /**
   * Adds one JSON line (no newline inside) whose record time is `timestampMs`; returns
   * the bytes it keeps for it (UTF-8 length plus 1 for the newline). `bytes`, when known,
   * is that size. Unknown, a pooled batcher does not measure the line first: it writes it
   * and counts what was written, measuring beforehand only when the line could fill the
   * batch.
   * Throws StowageError("format") for a line with "\n" or a time outside 0..9999999999999.
   */
  add(line: string, timestampMs: number, bytes?: number): number {
    if (!(timestampMs >= 0 && timestampMs <= MAX_EPOCH_MS)) {
      throw new StowageError(
        "format",
        `record time ${timestampMs} is outside 1970..2286; fix the timestamp`,
      );
    }
    if (line.includes("\n"))
      throw new StowageError(
        "format",
        "a record line contains a newline; serialise with serializeRecord",
      );
    const ms = Math.floor(timestampMs);
    const hourMs = utcHourStart(ms);
    let b = this.last !== null && this.last.hourMs === hourMs ? this.last : this.open.get(hourMs);
    // A line of n UTF-16 units takes n + 1 to 3n + 1 bytes: a pooled batcher writes it
    // unmeasured when even 3n + 1 fits the batch, and counts what it wrote.
    const unmeasured =
      bytes === undefined &&
      this.pool !== undefined &&
      (b === undefined ? 0 : b.decodedBytes) + 3 * line.length + 1 <= this.opts.maxBatchBytes;
    let size = bytes ?? (unmeasured ? line.length + 1 : lineBytes(line));
    if (b !== undefined && b.decodedBytes + size > this.opts.maxBatchBytes) {
      this.seal(b, "bytes");
      b = undefined;
    }
    if (b === undefined) {
      const now = this.opts.now();
      b = {
        hourMs,
        lines: [],
        records: 0,
        decodedBytes: 0,
        minMs: ms,
        maxMs: ms,
        openedAtMs: now,
        reason: "flush",
      };
      if (this.pool) {
        // A busy hour fills batch after batch: size its next buffer for twice the last full
        // one (at most the pool's capacity, a reusable size) instead of growing it by copies.
        // Other hours (a backfill's many sparse ones) start small.
        const hint =
          hourMs === this.fullHourMs ? Math.min(this.pool.capacity, 2 * this.fullHourBytes) : 0;
        b.ndjson = this.pool.acquire(Math.max(size, hint));
      }
      this.open.set(hourMs, b);
      this.arm(now + this.opts.flushIntervalMs);
    }
    this.last = b;
    if (b.ndjson !== undefined && this.pool)
      size = this.writeLine(b, b.ndjson, line, unmeasured ? undefined : size);
    else b.lines.push(line);
    b.records++;
    b.decodedBytes += size;
    if (ms < b.minMs) b.minMs = ms;
    if (ms > b.maxMs) b.maxMs = ms;
    if (b.decodedBytes >= this.opts.maxBatchBytes) this.seal(b, "bytes");
    else if (b.records >= this.opts.maxBatchRecords) this.seal(b, "records");
    return size;
  }

  /**
   * Writes `line` + "\n" into the batch's buffer (growing it); returns the exact bytes
   * written. Unmeasured (`size` undefined), room is made for its most (3 bytes a UTF-16
   * unit), so it is written whole and its size is what was written.
   */
  private writeLine(b: HourBatch, buf: Buffer, line: string, size: number | undefined): number {
    const at = b.decodedBytes;
    const room = size ?? 3 * line.length + 1;
    if (at + room > buf.length) buf = b.ndjson = this.pool!.grow(buf, at, at + room);
    let written = utf8Write(buf, line, at);
    if (size === undefined) size = written + 1;
    else if (written + 1 !== size) {
      // The caller's `bytes` was wrong: measure, make room, write again.
      size = lineBytes(line);
      if (at + size > buf.length) buf = b.ndjson = this.pool!.grow(buf, at, at + size);
      written = utf8Write(buf, line, at);
    }
    buf[at + written] = 0x0a; // "\n"
    return size;
  }

  /** Seals every batch open for flushIntervalMs or longer at `nowMs`; returns how many. */
  tick(nowMs: number = this.opts.now()): number {
    const due: HourBatch[] = [];
    for (const b of this.open.values())
      if (nowMs - b.openedAtMs >= this.opts.flushIntervalMs) due.push(b);
    this.sealMany(due, "interval");
    return due.length;
  }

  /** Seals every open batch (explicit flush/close); returns how many. */
  sealAll(): number {
    const all = [...this.open.values()];
    this.sealMany(all, "flush");
    return all.length;
  }

  /** Clock time of the earliest interval seal, or null when nothing is open. */
  nextDeadlineMs(): number | null {
    let min = Infinity;
    for (const b of this.open.values())
      min = Math.min(min, b.openedAtMs + this.opts.flushIntervalMs);
    return min === Infinity ? null : min;
  }

  get openBatches(): number {
    return this.open.size;
  }

  get openRecords(): number {
    let n = 0;
    for (const b of this.open.values()) n += b.records;
    return n;
  }

  get openBytes(): number {
    let n = 0;
    for (const b of this.open.values()) n += b.decodedBytes;
    return n;
  }

  /** Seals everything and releases the timer. The batcher stays usable. */
  close(): number {
    const n = this.sealAll();
    this.disarm();
    return n;
  }

  private sealMany(batches: HourBatch[], reason: SealReason): void {
    batches.sort((a, b) => a.hourMs - b.hourMs);
    for (const b of batches) this.seal(b, reason);
  }

  private seal(b: HourBatch, reason: SealReason): void {
    if (this.open.get(b.hourMs) !== b) return; // already sealed (re-entrant onSeal)
    this.open.delete(b.hourMs);
    if (this.last === b) this.last = null;
    b.reason = reason;
    if (reason === "bytes" || reason === "records") {
      this.fullHourMs = b.hourMs;
      this.fullHourBytes = b.decodedBytes;
    }
    if (this.open.size === 0) this.disarm();
    this.opts.onSeal(b);
  }

  private arm(at: number): void {
    if (!this.opts.timer || at >= this.timerAt) return;
    this.disarm();
    this.timerAt = at;
    // Idle work (lifetime rule, shared/abort.ts): an open batch does not hold the process open.
    this.timer = idleTimer(Math.max(0, at - this.opts.now()), () => this.onTimer());
  }

  private onTimer(): void {
    this.timer = null;
    this.timerAt = Infinity;
    try {
      this.tick();
    } finally {
      // re-arm even if onSeal threw (onSeal should not throw: it runs inside a timer)
      const next = this.nextDeadlineMs();
      if (next !== null) this.arm(next);
    }
  }

  private disarm(): void {
    this.timer?.();
    this.timer = null;
    this.timerAt = Infinity;
  }
}
