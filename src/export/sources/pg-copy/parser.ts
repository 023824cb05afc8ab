/**
 * The binary COPY stream's framing: a header, then per row a field count and
 * length-prefixed fields (-1 = NULL), then a trailer (-1). Hands each whole row to a
 * `CopyRowSink` as offsets into the bytes it arrived in; decoding is the sink's.
 */
import { StowageError } from "../../../shared/errors.js";
import { int16, int32 } from "./fields.js";

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");
/** The header's fixed part: signature (11), flags (4), extension length (4). */
const HEADER_BYTES = 19;

function malformed(what: string): StowageError {
  return new StowageError("source", `PostgreSQL sent a malformed binary COPY stream (${what})`, {
    hint: "re-run the export; if it persists, report the server version and the query's column types",
  });
}

/** Receives each whole row: field i starts at `offs[2i]` and is `offs[2i + 1]` bytes long (-1: NULL). */
export interface CopyRowSink {
  row(buf: Buffer, offs: Int32Array): void;
}

/**
 * Parses the binary COPY stream. Message boundaries need not match rows; a partial row
 * is kept (copied: the driver reuses its read buffer).
 * @example const parser = new BinaryCopyParser(fields.length, batcher); parser.push(chunk);
 */
export class BinaryCopyParser {
  private pending: Buffer | undefined;
  private headerDone = false;
  private readonly offs: Int32Array;
  /** The trailer was read: the server sent every row. */
  ended = false;

  constructor(
    private readonly fieldCount: number,
    private readonly sink: CopyRowSink,
  ) {
    this.offs = new Int32Array(2 * fieldCount);
  }

  push(chunk: Buffer): void {
    this.pushRange(chunk, 0, chunk.length);
  }

  /** `push` of `chunk[start, end)`, without making a view of it. */
  pushRange(chunk: Buffer, start: number, end: number): void {
    let buf = chunk;
    let pos = start;
    if (this.pending) {
      // Bounded by one row (PostgreSQL caps a field at 1 GB): the partial row plus this message.
      // eslint-disable-next-line no-restricted-syntax
      buf = Buffer.concat([this.pending, chunk.subarray(start, end)]);
      this.pending = undefined;
      pos = 0;
      end = buf.length;
    }
    if (!this.headerDone) {
      const after = this.header(buf, pos, end);
      if (after < 0) return void (this.pending = Buffer.from(buf.subarray(pos, end)));
      pos = after;
    }
    const n = this.fieldCount;
    const offs = this.offs;
    while (pos + 2 <= end) {
      const count = int16(buf, pos);
      if (count === -1) {
        this.ended = true;
        return;
      }
      if (count !== n) throw malformed(`a row of ${count} fields, expected ${n}`);
      // A row cut by the message boundary waits for the next message, whole
      // (PostgreSQL sends one row per message in practice).
      let p = pos + 2;
      let whole = true;
      for (let i = 0; i < n; i++) {
        if (p + 4 > end) {
          whole = false;
          break;
        }
        const len = int32(buf, p);
        p += 4;
        if (len > 0 && p + len > end) {
          whole = false;
          break;
        }
        offs[2 * i] = p;
        offs[2 * i + 1] = len;
        if (len > 0) p += len;
      }
      if (!whole) break;
      pos = p;
      this.sink.row(buf, offs);
    }
    if (pos < end) this.pending = Buffer.from(buf.subarray(pos, end));
  }

  /** Checks the header at `pos`; returns the offset after it, or -1 when it is not all here. */
  private header(buf: Buffer, pos: number, end: number): number {
    if (end - pos < HEADER_BYTES) return -1;
    if (!buf.subarray(pos, pos + 11).equals(SIGNATURE)) throw malformed("no PGCOPY signature");
    const ext = int32(buf, pos + 15);
    if (end - pos < HEADER_BYTES + ext) return -1;
    this.headerDone = true;
    return pos + HEADER_BYTES + ext;
  }
}
