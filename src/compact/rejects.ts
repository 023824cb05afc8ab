/**
 * The per-generation rejects object: every line that could not become a row, as NDJSON
 * (`{"source","line","reason","text"}`), gzip-compressed as it is added. Never silently
 * dropped: the manifest names the object and its line count, the run summary counts them.
 * Compressed bytes are held until the generation ends (one create-only PUT), up to a cap.
 */
import { createGzip, type Gzip } from "node:zlib";
import { StowageError } from "../shared/errors.js";

/** The most compressed reject bytes one generation holds (a whole hour of garbage is far less). */
export const MAX_REJECT_BYTES = 64 * 1024 * 1024;

export class Rejects {
  lines = 0;
  private readonly gzip: Gzip = createGzip();
  private readonly out: Buffer[] = [];
  private size = 0;
  private pending = "";

  constructor() {
    this.gzip.on("data", (c: Buffer) => {
      this.size += c.length;
      this.out.push(c);
    });
  }

  add(source: string, line: number, reason: string, text: string): void {
    this.lines++;
    this.pending += `${JSON.stringify({ source, line, reason, text })}\n`;
    if (this.pending.length >= 64 * 1024) this.flush();
  }

  private flush(): void {
    if (this.pending === "") return;
    this.gzip.write(this.pending);
    this.pending = "";
    if (this.size > MAX_REJECT_BYTES)
      throw new StowageError(
        "format",
        `more than ${MAX_REJECT_BYTES / 1024 / 1024} MiB of rejected lines in one hour: this is not a v1 log tree`,
      );
  }

  /** The gzip body (empty when no line was rejected). */
  async body(): Promise<Buffer> {
    if (this.lines === 0) return Buffer.alloc(0);
    this.flush();
    await new Promise<void>((resolve, reject) => {
      this.gzip.once("error", reject);
      this.gzip.once("end", () => resolve());
      this.gzip.end();
    });
    const parts = this.out.splice(0);
    const body = Buffer.allocUnsafe(this.size);
    let at = 0;
    for (const p of parts) at += p.copy(body, at);
    return body;
  }
}
