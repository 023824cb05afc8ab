/**
 * Shared machinery of the text formats (CSV, NDJSON): rows are rendered into a
 * string that is handed to the sink every `chunkBytes` — through one gzip
 * stream when compressed, because gzip fed one row at a time is 10–20× slower.
 * Invariant: pending text ≤ chunkBytes + one row; compressed output is drained
 * to the sink after every hand-off.
 */
import { createGzip, type Gzip } from "node:zlib";
import type { Row } from "../sources/source.js";
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
  private pending = "";
  private readonly gzip: GzipPipe | undefined;
  peakBufferedBytes = 0;

  constructor(
    private readonly sink: ByteSink,
    private readonly render: RenderRow,
    private readonly chunkBytes: number,
    gzip: boolean,
    header = "",
  ) {
    this.gzip = gzip ? new GzipPipe(sink) : undefined;
    this.pending = header;
  }

  get bufferedBytes(): number {
    return this.pending.length + (this.gzip?.outBytes ?? 0);
  }

  /** Pending text (≤ chunkBytes + one row) plus gzip output awaiting the sink (≤ one chunk). */
  get boundBytes(): number {
    return 2 * this.chunkBytes + 64 * 1024;
  }

  async write(rows: Row[]): Promise<void> {
    // Lines are joined once per slice: a long rope of small strings survives young-generation
    // GCs and costs more to copy than to build.
    const lines: string[] = [];
    let size = this.pending.length;
    for (const row of rows) {
      const line = this.render(row);
      lines.push(line);
      size += line.length;
      if (size >= this.chunkBytes) {
        this.pending += lines.join("");
        lines.length = 0;
        size = 0;
        await this.handOff();
      }
    }
    if (lines.length) this.pending += lines.join("");
    this.note();
  }

  async finish(): Promise<void> {
    await this.handOff();
    await this.gzip?.end();
  }

  private async handOff(): Promise<void> {
    this.note();
    if (this.pending.length === 0) return;
    const buf = Buffer.from(this.pending, "utf8");
    this.pending = "";
    if (this.gzip) await this.gzip.write(buf);
    else await this.sink.write(buf);
    this.note();
  }

  private note(): void {
    const b = this.bufferedBytes;
    if (b > this.peakBufferedBytes) this.peakBufferedBytes = b;
  }
}
