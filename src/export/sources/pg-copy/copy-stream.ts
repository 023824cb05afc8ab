/**
 * One `COPY (sql) TO STDOUT (FORMAT binary)` on a `pg` client as a `RowStream`: the
 * statement is submitted on the client's queue, CopyData goes (through the socket tap)
 * to the parser and a batcher, and batches wait for the consumer.
 *
 * Invariants:
 * - at most two batches wait for the consumer: beyond that the socket is paused, so a
 *   slow upload slows the server; it flows again whenever the statement's end must be read;
 * - rows that arrived before an error are handed out before the error;
 * - `close()` before the end sends a CancelRequest and discards what still arrives; it
 *   waits for the statement's end at most 5 s (a dead server never answers).
 */
import { idleTimer, throwIfAborted } from "../../../shared/abort.js";
import { StowageError } from "../../../shared/errors.js";
import { nested } from "../../sql.js";
import type { Batch, ColumnSpec, QueryOptions, RowStream } from "../source.js";
import { CsvBatcher, ValueBatcher } from "./batcher.js";
import type { CopyRowsTarget } from "./codecs.js";
import { sendCancel, type CancelTarget } from "./cancel-request.js";
import { BinaryCopyParser } from "./parser.js";
import { tapCopyData, type DataStream } from "./socket-tap.js";

/** The parts of a `pg` Client this module drives (its query queue and socket). */
export interface CopyClient extends CancelTarget {
  query(submittable: object): unknown;
  connection: { stream: DataStream & { pause(): void; resume(): void }; query(text: string): void };
}

type WrapError = (err: unknown, doing: string) => StowageError;

/**
 * Runs the COPY of `sql` on `client` and hands out the rows in batches of `batchSize`.
 * Resolves once the first batch (or the end, or an error) is in, as the cursor path does.
 * @example const rows = await copyRows(client, sql, columns, copyTarget(fields, options)!, options, wrap);
 */
export async function copyRows(
  client: CopyClient,
  sql: string,
  columns: ColumnSpec[],
  target: CopyRowsTarget,
  options: QueryOptions,
  wrapError: WrapError,
  /** Read CopyData off the socket (`tapCopyData`); false: through the driver's events. */
  tapSocket = true,
): Promise<RowStream> {
  const copy = new CopyStatement(client, columns.length, target, options, wrapError);
  client.query(copy.submittable(sql, tapSocket));
  let first: Batch | undefined;
  try {
    first = await copy.next(); // the first batch, or the end: a statement error surfaces here, as with the cursor
  } catch (err) {
    await copy.close();
    throw err;
  }
  return {
    columns,
    close: () => copy.close(),
    async *[Symbol.asyncIterator]() {
      try {
        let b = first;
        first = undefined;
        while (b) {
          throwIfAborted(options.signal);
          yield b;
          if (copy.discarding) return;
          b = await copy.next();
        }
        throwIfAborted(options.signal);
      } finally {
        await copy.close();
      }
    },
  };
}

/** The state of one COPY statement between the socket and the consumer. */
class CopyStatement {
  private doing = "running the query";
  private readonly ready: Batch[] = [];
  private finished = false; // ReadyForQuery seen: nothing more will arrive
  private failure: StowageError | undefined;
  /** Rows are no longer wanted (closed early, or the stream failed to parse). */
  discarding = false;
  private cancelled: Promise<void> = Promise.resolve();
  private paused = false;
  private wake: (() => void) | undefined;
  private readonly batcher: CsvBatcher | ValueBatcher;
  private readonly parser: BinaryCopyParser;
  private tap: { remove(): void } | undefined;

  constructor(
    private readonly client: CopyClient,
    fieldCount: number,
    target: CopyRowsTarget,
    options: QueryOptions,
    private readonly wrapError: WrapError,
  ) {
    const onBatch = (batch: Batch) => this.onBatch(batch);
    this.batcher =
      "csv" in target
        ? new CsvBatcher(target.csv, options.batchSize, onBatch, target.typed)
        : new ValueBatcher(target.decoders, options.batchSize, onBatch);
    this.parser = new BinaryCopyParser(fieldCount, this.batcher);
  }

  /** What the client's query queue runs: the statement, and the driver's callbacks for it. */
  submittable(sql: string, tapSocket: boolean): object {
    return {
      submit: (connection: { query(text: string): void }) => {
        // Rows straight from the socket (the driver's CopyData events, below, without the tap).
        if (tapSocket) this.tap = tapCopyData(this.client.connection.stream, this.take);
        connection.query(`COPY ${nested(sql)} TO STDOUT (FORMAT binary)`);
      },
      handleCopyData: (msg: { chunk: Buffer }) => this.take(msg.chunk, 0, msg.chunk.length),
      handleCommandComplete() {},
      handleEmptyQuery() {},
      handleRowDescription() {},
      handleDataRow() {},
      handlePortalSuspended() {},
      handleCopyInResponse() {},
      handleReadyForQuery: () => this.end(),
      handleError: (err: unknown) => this.fail(err),
    };
  }

  /** CopyData bytes `buf[start, end)`. */
  private readonly take = (buf: Buffer, start: number, end: number): void => {
    if (this.discarding || this.failure) return;
    this.doing = "reading rows"; // an error once rows flow is a failure while reading, as with the cursor
    try {
      this.parser.pushRange(buf, start, end);
    } catch (err) {
      this.failure = err instanceof StowageError ? err : this.wrapError(err, this.doing);
      this.discarding = true;
      this.cancelled = sendCancel(this.client);
      this.notify();
    }
  };

  private onBatch(batch: Batch): void {
    this.ready.push(batch);
    if (this.ready.length >= 2 && !this.paused) {
      this.paused = true;
      this.client.connection.stream.pause();
    }
    this.notify();
  }

  /** ReadyForQuery: the statement is over. */
  private end(): void {
    this.tap?.remove();
    if (!this.discarding) this.batcher.flush();
    if (!this.parser.ended && !this.failure && !this.discarding)
      this.failure = this.wrapError(
        new Error("the COPY stream ended before its trailer"),
        this.doing,
      );
    this.finished = true;
    this.notify();
  }

  private fail(err: unknown): void {
    this.tap?.remove();
    if (!this.discarding && !this.failure) this.failure = this.wrapError(err, this.doing);
    this.finished = true;
    this.notify();
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** Lets the socket flow again (the statement's end must be read even when its rows are not wanted). */
  private flow(): void {
    if (this.paused) {
      this.paused = false;
      this.client.connection.stream.resume();
    }
  }

  /** The next batch, or undefined at the end; rows that arrived before an error come first. */
  async next(): Promise<Batch | undefined> {
    for (;;) {
      const b = this.ready.shift();
      if (b) {
        if (this.ready.length < 2) this.flow();
        return b;
      }
      if (this.failure) {
        this.flow();
        throw this.failure;
      }
      if (this.finished) return undefined;
      await new Promise<void>((r) => (this.wake = r));
    }
  }

  /** Stops reading: cancels the statement unless it is over, and waits for its end (at most 5 s). */
  async close(): Promise<void> {
    this.ready.length = 0;
    this.batcher.drop();
    this.flow();
    if (this.finished) return void (await this.cancelled);
    if (!this.discarding) {
      this.discarding = true;
      this.cancelled = sendCancel(this.client);
    }
    await new Promise<void>((resolve) => {
      const stop = idleTimer(5000, resolve); // a dead server never answers: do not wait for it
      const poll = () => {
        if (!this.finished) return void (this.wake = poll);
        void this.cancelled.then(() => (stop(), resolve()));
      };
      poll();
    });
  }
}
