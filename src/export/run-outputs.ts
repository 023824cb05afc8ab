/**
 * The objects a run writes: every output its mode opens (a `RotatingOutput` with the
 * run's part size, queue size, Object Lock date and in-progress marker) and the encoding
 * thread they share when `tuning.encoder_thread` puts the encoding beside the reading.
 *
 * Invariants:
 * - each object's key is added to the in-progress marker before its first byte is uploaded;
 * - one encoding thread per run, started with the first output, ended by `close()`.
 */
import type { ResolvedDestination } from "../config/destination.js";
import type { Format } from "../encoders/format.js";
import { lockOption } from "../store/object-lock.js";
import type { ObjectStore } from "../store/object-store.js";
import type { ResolvedExport, ResolvedTuning } from "./config.js";
import {
  EncoderThread,
  workerFormat,
  type EncoderThreadOptions,
} from "../encoders/thread/thread.js";
import { formatOptions, type Prepared } from "./prepare.js";
import { RotatingOutput } from "./rotating-output.js";
import type { ColumnSpec } from "./sources/source.js";

export interface RunOutputsOptions {
  exp: ResolvedExport;
  tuning: ResolvedTuning;
  signal?: AbortSignal | undefined;
  /** The destination, every call retried. */
  store: ObjectStore;
  prepared: Pick<Prepared, "format" | "startedAt" | "marker">;
  /** The encoding thread's limits (when `tuning.encoderThread` puts the encoding there). */
  encoderThread?: EncoderThreadOptions | undefined;
  onBytes(delta: number): void;
  onPart(): void;
}

/**
 * The outputs of one run.
 * @example const out = outputs.open(columns, (n) => keys.data(n, false)); … await outputs.close();
 */
export class RunOutputs {
  private readonly list: RotatingOutput[] = [];
  private thread: EncoderThread | undefined;

  constructor(private readonly o: RunOutputsOptions) {}

  /** A new series of objects (of `chunk`, in a chunked run). */
  open(columns: ColumnSpec[], keyFor: (n: number) => string, chunk?: number): RotatingOutput {
    const { exp, tuning, signal, prepared: p } = this.o;
    const out = new RotatingOutput({
      store: this.o.store,
      format: this.encoding(),
      columns,
      keyFor,
      ...(exp.maxFileBytes !== undefined ? { maxFileBytes: exp.maxFileBytes } : {}),
      ...(chunk !== undefined ? { chunk } : {}),
      writer: {
        partSize: tuning.partSize,
        queueSize: tuning.queueSize,
        signal,
        ...runObjectLock(exp.destination, p.startedAt),
      },
      onBytes: this.o.onBytes,
      onPart: this.o.onPart,
      onOpen: (key) => p.marker.add(key),
    });
    this.list.push(out);
    return out;
  }

  /** Aborts every open upload (the run failed). */
  async abort(): Promise<void> {
    await Promise.allSettled(this.list.map((o) => o.abort()));
  }

  /** The keys of every object completed so far. */
  completedKeys(): string[] {
    return this.list.flatMap((o) => o.parts.map((x) => x.path));
  }

  /** Peak bytes held by any encoder / multipart writer (memory is bounded by these). */
  peaks(): { peakEncoderBytes: number; peakWriterBytes: number } {
    return {
      peakEncoderBytes: Math.max(0, ...this.list.map((o) => o.peakEncoderBytes)),
      peakWriterBytes: Math.max(0, ...this.list.map((o) => o.peakWriterBytes)),
    };
  }

  /** Ends the encoding thread, if one was started. */
  async close(): Promise<void> {
    await this.thread?.terminate().catch(() => undefined);
  }

  /** The Format an output encodes with: this thread's, or the encoding thread's. */
  private encoding(): Format {
    const { exp, tuning, prepared } = this.o;
    if (tuning.encoderThread !== true) return prepared.format;
    this.thread ??= EncoderThread.start({
      failureHint:
        "nothing was committed; re-run the export (out of memory? lower tuning.row_group_size or batch_size)",
      ...this.o.encoderThread,
    });
    return workerFormat(formatOptions(exp, tuning), prepared.format, this.thread, {
      strict: exp.maxFileBytes !== undefined, // size checks need the encoder's exact figure
    });
  }
}

/**
 * Object Lock for a run's data files (docs/retention.md): the run's start plus the
 * configured days, rounded up to a second — one date for every file and retry of the run.
 */
function runObjectLock(
  dest: ResolvedDestination,
  startedAt: Date,
): { objectLock?: { mode: "GOVERNANCE" | "COMPLIANCE"; retainUntil: Date } } {
  return lockOption(startedAt.getTime(), dest.type === "s3" ? dest.objectLock : undefined);
}
