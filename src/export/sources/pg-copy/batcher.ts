/**
 * The parser's row sinks: rows decoded into values (`ValueBatcher`), or written as CSV
 * lines straight from the COPY bytes (`CsvBatcher`, no value made), handed on in
 * batches of the query's `batchSize`.
 */
import { CsvLines, type Row } from "../source.js";
import type { Codec, Decoder } from "./codecs.js";
import type { CopyRowSink } from "./parser.js";

/**
 * Rows as values, in batches of `size`.
 * @example new BinaryCopyParser(n, new ValueBatcher(decoders, 2000, (rows) => …));
 */
export class ValueBatcher implements CopyRowSink {
  private batch: Row[] = [];

  constructor(
    private readonly decoders: Decoder[],
    private readonly size: number,
    private readonly onBatch: (batch: Row[]) => void,
  ) {}

  row(buf: Buffer, offs: Int32Array): void {
    const n = this.decoders.length;
    const row: unknown[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const len = offs[2 * i + 1]!;
      row[i] = len < 0 ? null : this.decoders[i]!(buf, offs[2 * i]!, len);
    }
    this.batch.push(row);
    if (this.batch.length >= this.size) this.flush();
  }

  flush(): void {
    if (this.batch.length) this.onBatch(this.batch);
    this.batch = [];
  }

  drop(): void {
    this.batch = [];
  }
}

/** Bytes of a CSV-lines batch buffer (a batch ends at `size` rows or when this is full). */
const CSV_BATCH_BYTES = 256 * 1024;

/**
 * Rows written as CSV lines (`CsvLines`), in batches of at most `size` rows: each
 * field's text goes from the COPY bytes straight into the batch's buffer, no value made.
 * @example new BinaryCopyParser(n, new CsvBatcher(target.csv, 2000, (lines) => …, target.typed));
 */
export class CsvBatcher implements CopyRowSink {
  private buf = Buffer.allocUnsafeSlow(CSV_BATCH_BYTES);
  private ends: Int32Array;
  private used = 0;
  private rows = 0;
  /** The typed values of `typed` columns, in the batch's row order. */
  private values: unknown[][];

  constructor(
    private readonly codecs: Codec[],
    private readonly size: number,
    private readonly onBatch: (batch: CsvLines) => void,
    /** Columns also kept as typed values (a cursor or keyset key): their indexes. */
    private readonly typed: readonly number[] = [],
  ) {
    this.ends = new Int32Array(size);
    this.values = typed.map(() => []);
  }

  row(src: Buffer, offs: Int32Array): void {
    const codecs = this.codecs;
    const n = codecs.length;
    let room = n + 2; // commas and CRLF
    for (let i = 0; i < n; i++) {
      const len = offs[2 * i + 1]!;
      if (len >= 0) room += codecs[i]!.room(src, offs[2 * i]!, len);
    }
    if (this.used + room > this.buf.length) {
      this.flush();
      if (room > this.buf.length) this.buf = Buffer.allocUnsafeSlow(room);
    }
    const out = this.buf;
    let at = this.used;
    for (let i = 0; i < n; i++) {
      if (i > 0) out[at++] = 44;
      const len = offs[2 * i + 1]!;
      if (len >= 0) at = codecs[i]!.csv(src, offs[2 * i]!, len, out, at);
    }
    out[at++] = 13;
    out[at++] = 10;
    for (let k = 0; k < this.typed.length; k++) {
      const i = this.typed[k]!;
      const len = offs[2 * i + 1]!;
      this.values[k]!.push(len < 0 ? null : codecs[i]!.typed(src, offs[2 * i]!, len));
    }
    this.ends[this.rows++] = at;
    this.used = at;
    if (this.rows >= this.size) this.flush();
  }

  flush(): void {
    if (this.rows) {
      const typed = new Map(this.typed.map((col, k) => [col, this.values[k]!] as const));
      this.onBatch(new CsvLines(this.buf, this.ends, 0, this.rows, typed));
      this.buf = Buffer.allocUnsafeSlow(CSV_BATCH_BYTES);
      this.ends = new Int32Array(this.size);
    }
    this.drop();
  }

  drop(): void {
    this.used = 0;
    this.rows = 0;
    this.values = this.typed.map(() => []);
  }
}
