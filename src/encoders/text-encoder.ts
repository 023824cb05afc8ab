/**
 * Shared machinery of the text formats (CSV, NDJSON): each rendered row is
 * written straight into one reused chunk buffer (joining strings and
 * `Buffer.from` per chunk cost more than the rendering), handed to the sink every
 * `chunkBytes` — through one gzip stream when compressed, because gzip fed one
 * row at a time is 10–20× slower.
 * Invariants: pending bytes ≤ chunkBytes; the sink has consumed (copied or
 * compressed) a chunk before `write` resolves, so the buffer is reused only then;
 * compressed output is drained to the sink after every hand-off.
 */
import { createGzip, type Gzip } from "node:zlib";
import { utf8Write } from "../shared/buffer-text.js";
import { batchRows, CsvLines, type Batch, type Row } from "./columns.js";
import type { ByteSink, Encoder } from "./format.js";

export type RenderRow = (row: Row) => string;

/** A single gzip member fed in large writes; its output goes to the sink in order. */
class GzipPipe {
  private readonly gz: Gzip;
  private out: Buffer[] = [];
  outBytes = 0;
  private error: Error | undefined;

  constructor(private readonly sink: ByteSink) {
    this.gz = createGzip({ level: 6 });
    this.gz.on("data", (c: Buffer) => {
      this.out.push(c);
      this.outBytes += c.length;
    });
    this.gz.on("error", (e) => (this.error = e));
  }

  async write(buf: Buffer): Promise<void> {
    await new Promise<void>((res, rej) => this.gz.write(buf, (err) => (err ? rej(err) : res())));
    await this.drain();
  }

  async end(): Promise<void> {
    await new Promise<void>((res, rej) => {
      this.gz.once("end", res);
      this.gz.once("error", rej);
      this.gz.end();
    });
    await this.drain();
  }

  private async drain(): Promise<void> {
    if (this.error) throw this.error;
    while (this.out.length > 0) {
      const chunk = this.out.shift()!;
      await this.sink.write(chunk);
      this.outBytes -= chunk.length;
    }
  }
}

/** Encoder for line-oriented text: an optional header, then one rendered row after another. */
export class TextFileEncoder implements Encoder {
  private readonly chunk: Buffer;
  private used = 0;
  private readonly gzip: GzipPipe | undefined;
  peakBufferedBytes = 0;

  constructor(
    private readonly sink: ByteSink,
    private readonly render: RenderRow,
    private readonly chunkBytes: number,
    gzip: boolean,
    header = "",
    /** The lines this encoder writes are CSV lines: a source's `CsvLines` go in as they are. */
    private readonly csv = false,
  ) {
    this.gzip = gzip ? new GzipPipe(sink) : undefined;
    this.chunk = Buffer.allocUnsafe(Math.max(64 * 1024, chunkBytes, Buffer.byteLength(header)));
    this.used = this.chunk.write(header, 0);
  }

  get bufferedBytes(): number {
    return this.used + (this.gzip?.outBytes ?? 0);
  }

  /** Pending text (≤ chunkBytes + one row) plus gzip output awaiting the sink (≤ one chunk). */
  get boundBytes(): number {
    return 2 * this.chunkBytes + 64 * 1024;
  }

  async write(batch: Batch): Promise<void> {
    if (this.csv && batch instanceof CsvLines) return this.writeBytes(batch.bytes);
    const rows = batchRows(batch);
    const buf = this.chunk;
    const cap = buf.length;
    for (const row of rows) {
      const line = this.render(row);
      // UTF-8 takes at most 3 bytes per UTF-16 unit: a line that may not fit goes after a hand-off.
      if (this.used + line.length * 3 > cap) {
        if (this.used + Buffer.byteLength(line) > cap) {
          await this.handOff();
          if (line.length * 3 > cap) {
            await this.emit(Buffer.from(line, "utf8")); // a line longer than a chunk
            continue;
          }
        }
      }
      this.used += utf8Write(buf, line, this.used);
      if (this.used >= this.chunkBytes) await this.handOff();
    }
    this.note();
  }

  /**
   * Rendered lines: handed on as they are without gzip (the sink copies them) or when
   * larger than a chunk, else gathered in the chunk (gzip wants large writes).
   */
  private async writeBytes(bytes: Buffer): Promise<void> {
    const direct = !this.gzip || bytes.length >= this.chunkBytes;
    if (direct || this.used + bytes.length > this.chunk.length) await this.handOff();
    if (direct) await this.emit(bytes);
    else {
      this.chunk.set(bytes, this.used);
      this.used += bytes.length;
      if (this.used >= this.chunkBytes) await this.handOff();
    }
    this.note();
  }

  async finish(): Promise<void> {
    await this.handOff();
    await this.gzip?.end();
  }

  private async handOff(): Promise<void> {
    this.note();
    if (this.used === 0) return;
    const bytes = this.chunk.subarray(0, this.used);
    await this.emit(bytes);
    this.used = 0; // the sink copied or compressed it: the buffer is free again
    this.note();
  }

  private async emit(bytes: Buffer): Promise<void> {
    if (this.gzip) await this.gzip.write(bytes);
    else await this.sink.write(bytes);
  }

  private note(): void {
    const b = this.bufferedBytes;
    if (b > this.peakBufferedBytes) this.peakBufferedBytes = b;
  }
}
