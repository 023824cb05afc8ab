/**
 * An encoding thread: the main thread produces rows (an export's database protocol
 * parsing, compaction's line scan) while a worker thread encodes them (Parquet, CSV, NDJSON, their
 * compression), so the two overlap on two cores. `workerFormat` wraps a Format so
 * that its encoders live in the worker; the bytes they produce come back and go
 * into the same sink (the run's MultipartWriter, the one uploader).
 *
 * Invariants:
 * - bounded queue: at most `maxInFlight` requests per encoder are unanswered, and a
 *   request counts as answered only once its bytes were accepted by the sink, so the
 *   bytes held between the threads are bounded and upload backpressure reaches the reader;
 * - with `strict` (size-split outputs), every write waits for its answer, so the
 *   encoder's buffered figure is exact when RotatingOutput checks an object's size;
 * - a worker that dies (crash, out of memory) fails every pending and later request
 *   with a clear error; nothing waits for an answer that cannot come;
 * - the thread keeps the process alive only while an answer is awaited, and the run
 *   terminates it on every exit path (`terminate`).
 */
import type { ResourceLimits } from "node:worker_threads";
import { StowageError } from "../../shared/errors.js";
import { AwaitedWorker, startWorker } from "../../shared/worker-thread.js";
import type { ByteSink, Encoder, Format, FormatOptions } from "../format.js";
import { batchRows, type Batch, type ColumnSpec } from "../columns.js";
import { packRows, type FromWorker, type ToWorker } from "./protocol.js";

const ENCODING_WORKER = {
  compiled: new URL("./worker.js", import.meta.url),
  source: new URL("./worker.ts", import.meta.url),
  what: "the encoding worker",
  flags: /^--(?:enable-source-maps|max-old-space-size=\d+)$/,
};

export interface EncoderThreadOptions {
  /** Heap limits of the worker (a worker over them dies and fails the run). */
  resourceLimits?: ResourceLimits;
  /** Unanswered requests per encoder at most (default 4: two batches of 2,000 rows). */
  maxInFlight?: number;
  /** What the user should do when the thread dies (the caller's words: what was kept, what to re-run). */
  failureHint?: string;
}

/**
 * @example
 * const thread = EncoderThread.start();
 * try { const format = workerFormat(options, await createFormat(options), thread); … }
 * finally { await thread.terminate(); }
 */
export class EncoderThread {
  private readonly awaited: AwaitedWorker<FromWorker>;
  private ended = false;
  private death: StowageError | undefined;
  private nextId = 1;
  private readonly encoders = new Map<number, WorkerEncoder>();
  readonly maxInFlight: number;
  private readonly failureHint: string;

  private constructor(options: EncoderThreadOptions) {
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 4);
    this.failureHint =
      options.failureHint ??
      "nothing was committed; run it again (out of memory? smaller row groups)";
    const worker = startWorker(
      ENCODING_WORKER,
      options.resourceLimits ? { resourceLimits: options.resourceLimits } : {},
    );
    this.awaited = new AwaitedWorker<FromWorker>(worker, {
      message: (m) => this.encoders.get(m.id)?.receive(m),
      error: (err) => this.die(err),
      exit: (code) => this.die(new Error(`it exited with code ${code}`)),
    });
  }

  static start(options: EncoderThreadOptions = {}): EncoderThread {
    return new EncoderThread(options);
  }

  /** The error every request fails with once the worker is gone. */
  get failure(): StowageError | undefined {
    return this.death;
  }

  private die(err: Error): void {
    if (this.death) return;
    this.awaited.release();
    this.death = this.ended
      ? new StowageError("aborted", "the encoding thread was stopped")
      : new StowageError("internal", `the encoding thread failed: ${err.message}`, {
          cause: err,
          hint: this.failureHint,
        });
    for (const enc of this.encoders.values()) enc.fail(this.death);
    this.encoders.clear();
  }

  /** @internal Registers an encoder and returns its id. */
  register(enc: WorkerEncoder): number {
    const id = this.nextId++;
    this.encoders.set(id, enc);
    return id;
  }

  /** @internal */
  unregister(id: number): void {
    this.encoders.delete(id);
  }

  /** @internal Posts a request whose answer is awaited (the thread is ref'd until `answered`). */
  request(m: ToWorker, transfer: ArrayBuffer[] = []): void {
    if (this.death) throw this.death;
    this.awaited.request(m, transfer);
  }

  /** @internal */
  answered(): void {
    this.awaited.answered();
  }

  /** Ends the worker (pending requests fail as aborted); safe to call twice. */
  async terminate(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.awaited.release();
    if (!this.death) await this.awaited.worker.terminate();
  }
}

interface Pending {
  resolve: () => void;
  reject: (err: unknown) => void;
  done: Promise<void>;
}

/** The main-thread face of an encoder that runs in the worker. */
export class WorkerEncoder implements Encoder {
  private readonly id: number;
  private seq = 0;
  private readonly pending = new Map<number, Pending>();
  /** Sink writes and answers, in the order the worker sent them. */
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;
  private workerBuffered = 0;
  /** Raw bytes of posted rows not yet answered, and encoded bytes not yet in the sink. */
  private postedBytes = 0;
  private readonly postedBySeq = new Map<number, number>();
  private queuedBytes = 0;
  private workerBound = 0;
  peakBufferedBytes = 0;

  constructor(
    private readonly thread: EncoderThread,
    private readonly sink: ByteSink,
    private readonly columns: ColumnSpec[],
    private readonly strict: boolean,
  ) {
    this.id = thread.register(this);
  }

  get bufferedBytes(): number {
    return this.workerBuffered + this.postedBytes + this.queuedBytes;
  }

  /** The worker encoder's bound plus the requests that may be between the threads. */
  get boundBytes(): number {
    return this.workerBound + 2 * this.thread.maxInFlight * 1024 * 1024;
  }

  /** Opens the encoder in the worker (its answer carries the bound). */
  open(format: FormatOptions): Promise<void> {
    return this.send({ t: "open", id: this.id, seq: ++this.seq, format, columns: this.columns });
  }

  async write(batch: Batch): Promise<void> {
    const rows = batchRows(batch);
    if (rows.length === 0) return;
    while (this.pending.size >= this.thread.maxInFlight && !this.failure)
      await Promise.race([...this.pending.values()].map((p) => p.done)).catch(() => undefined);
    if (this.failure) throw this.failure; // an earlier slice failed: stop reading now
    const seq = ++this.seq;
    const estimate = rows.length * this.columns.length * 16;
    this.postedBytes += estimate;
    this.postedBySeq.set(seq, estimate);
    const { cols, transfer } = packRows(rows, this.columns.length);
    const answer = this.send({ t: "rows", id: this.id, seq, count: rows.length, cols }, transfer);
    this.note();
    if (this.strict) await answer;
    else answer.catch(() => undefined); // observed through `failure` by the next call
  }

  async finish(): Promise<void> {
    await this.send({ t: "finish", id: this.id, seq: ++this.seq });
    await Promise.all([...this.pending.values()].map((p) => p.done));
    this.thread.unregister(this.id);
  }

  /** @internal A message from the worker for this encoder. */
  receive(m: FromWorker): void {
    if (m.t === "bytes") {
      this.queuedBytes += m.chunk.length;
      this.chain = this.chain.then(async () => {
        if (this.failure) return;
        try {
          await this.sink.write(m.chunk);
        } catch (err) {
          this.fail(err);
        } finally {
          this.queuedBytes -= m.chunk.length;
        }
      });
      this.note();
      return;
    }
    this.thread.answered();
    const settle = () => {
      const p = this.pending.get(m.seq);
      if (!p) return;
      this.pending.delete(m.seq);
      this.postedBytes -= this.postedBySeq.get(m.seq) ?? 0;
      this.postedBySeq.delete(m.seq);
      if (m.t === "error") {
        const err = new StowageError(m.error.code, m.error.message, { hint: m.error.hint });
        this.fail(err);
        p.reject(err);
      } else if (this.failure) p.reject(this.failure);
      else {
        this.workerBuffered = m.buffered;
        this.workerBound = m.bound;
        this.peakBufferedBytes = Math.max(this.peakBufferedBytes, m.peak + this.postedBytes);
        p.resolve();
      }
    };
    // The answer comes after the request's bytes: it settles once the sink took them.
    this.chain = this.chain.then(settle);
  }

  /** @internal Fails every pending and later call. */
  fail(err: unknown): void {
    this.failure ??= err;
    for (const [seq, p] of this.pending) {
      this.pending.delete(seq);
      p.reject(this.failure);
    }
  }

  private send(m: ToWorker, transfer?: ArrayBuffer[]): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    let entry!: Pending;
    const done = new Promise<void>((resolve, reject) => {
      entry = { resolve, reject, done: undefined as unknown as Promise<void> };
    });
    entry.done = done;
    this.pending.set(m.seq, entry);
    try {
      this.thread.request(m, transfer);
    } catch (err) {
      this.pending.delete(m.seq);
      this.fail(err);
      return Promise.reject(err);
    }
    return done;
  }

  private note(): void {
    const b = this.bufferedBytes;
    if (b > this.peakBufferedBytes) this.peakBufferedBytes = b;
  }
}

/**
 * A Format whose encoders run in `thread` (the worker builds the same Format from
 * `options`); names, extension and content type are `base`'s.
 * @example const f = workerFormat(opts, await createFormat(opts), thread, { strict: false });
 */
export function workerFormat(
  options: FormatOptions,
  base: Format,
  thread: EncoderThread,
  o: { strict: boolean },
): Format {
  return {
    name: base.name,
    compression: base.compression,
    extension: base.extension,
    contentType: base.contentType,
    async createEncoder(columns, sink) {
      const enc = new WorkerEncoder(thread, sink, columns, o.strict);
      await enc.open(options);
      return enc;
    },
  };
}
