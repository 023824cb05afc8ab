/**
 * One logical output (a whole export, or one chunk of it) as a series of
 * objects: an encoder feeding a MultipartWriter, rotated to the next key when
 * the object would pass `maxFileBytes` (or the 10,000-part ceiling).
 *
 * Invariants:
 * - an object is only listed in `parts` after its upload completed;
 * - the size check runs before every slice of ≤ 1,000 rows, using the object's bytes so
 *   far (flushed plus the encoder's pending estimate) and the growth of the previous
 *   slice, so an object passes `maxFileBytes` only when one slice is larger than the rest;
 * - on failure the owner calls `abort()`: the open upload is aborted.
 */
import type { ObjectStore } from "../store/object-store.js";
import type { Encoder, Format } from "../encoders/format.js";
import { MultipartWriter, type MultipartWriterOptions } from "../encoders/multipart-writer.js";
import type { Batch, ColumnSpec } from "./sources/source.js";

/** A finished object as the manifest lists it. */
export interface PartRecord {
  path: string;
  rows: number;
  bytes: number;
  sha256: string;
  chunk?: number;
}

export interface RotatingOutputOptions {
  store: ObjectStore;
  format: Format;
  columns: ColumnSpec[];
  /** Key of the n-th object (1-based). */
  keyFor: (n: number) => string;
  maxFileBytes?: number;
  writer: MultipartWriterOptions;
  chunk?: number;
  /** Called after every batch with the bytes that reached the writer since the last call. */
  onBytes?: (delta: number) => void;
  /** Called when an object completed. */
  onPart?: (part: PartRecord) => void;
  /** Awaited before an object's first byte is uploaded (the in-progress marker records the key). */
  onOpen?: (key: string) => Promise<void>;
}

const SLICE_ROWS = 1000;

interface OpenObject {
  writer: MultipartWriter;
  encoder: Encoder;
  rows: number;
}

/**
 * @example
 * const out = new RotatingOutput({ store, format, columns, keyFor: (n) => `p/orders_part${n}.csv`, writer: {} });
 * for await (const batch of rows) await out.write(batch);
 * const parts = await out.finish();
 */
export class RotatingOutput {
  readonly parts: PartRecord[] = [];
  private current: OpenObject | undefined;
  private lastGrowth = 0;
  /** Part buffers reused from one object to the next. */
  private readonly pool: Buffer[] = [];
  private reported = 0;
  peakEncoderBytes = 0;
  peakWriterBytes = 0;

  constructor(private readonly o: RotatingOutputOptions) {}

  private size(obj: OpenObject): number {
    return obj.writer.bytes + obj.encoder.bufferedBytes;
  }

  async write(rows: Batch): Promise<void> {
    // Size checks every SLICE_ROWS rows, whatever batch_size is.
    for (let i = 0; i < rows.length; i += SLICE_ROWS)
      await this.writeSlice(rows.length <= SLICE_ROWS ? rows : rows.slice(i, i + SLICE_ROWS));
  }

  private async writeSlice(rows: Batch): Promise<void> {
    if (rows.length === 0) return;
    let obj = this.current;
    if (
      obj &&
      obj.rows > 0 &&
      (obj.writer.full ||
        (this.o.maxFileBytes !== undefined &&
          this.size(obj) + this.lastGrowth > this.o.maxFileBytes))
    ) {
      await this.close();
      obj = undefined;
    }
    obj ??= await this.open();
    const before = this.size(obj);
    await obj.encoder.write(rows);
    obj.rows += rows.length;
    this.lastGrowth = Math.max(0, this.size(obj) - before);
    this.track(obj);
  }

  /** Completes the open object; with `emitEmpty`, writes an empty (schema-only) object if none exists. */
  async finish(emitEmpty = false): Promise<PartRecord[]> {
    if (!this.current && emitEmpty && this.parts.length === 0) await this.open();
    await this.close();
    return this.parts;
  }

  /** Aborts the open upload; completed parts stay listed (the owner deletes them). */
  async abort(): Promise<void> {
    const obj = this.current;
    this.current = undefined;
    await obj?.writer.abort();
  }

  private async open(): Promise<OpenObject> {
    const key = this.o.keyFor(this.parts.length + 1);
    await this.o.onOpen?.(key);
    const writer = new MultipartWriter(this.o.store, key, {
      ...this.o.writer,
      contentType: this.o.format.contentType,
      pool: this.pool,
    });
    const encoder = await this.o.format.createEncoder(this.o.columns, writer);
    this.current = { writer, encoder, rows: 0 };
    this.lastGrowth = 0;
    return this.current;
  }

  private async close(): Promise<void> {
    const obj = this.current;
    if (!obj) return;
    await obj.encoder.finish();
    this.track(obj);
    const done = await obj.writer.complete();
    this.current = undefined;
    this.reportBytes(obj.writer.bytes);
    this.reported = 0;
    const part: PartRecord = {
      path: done.key,
      rows: obj.rows,
      bytes: done.bytes,
      sha256: done.sha256,
      ...(this.o.chunk !== undefined ? { chunk: this.o.chunk } : {}),
    };
    this.parts.push(part);
    this.o.onPart?.(part);
  }

  private track(obj: OpenObject): void {
    this.peakEncoderBytes = Math.max(this.peakEncoderBytes, obj.encoder.peakBufferedBytes);
    this.peakWriterBytes = Math.max(this.peakWriterBytes, obj.writer.peakBufferedBytes);
    this.reportBytes(obj.writer.bytes);
  }

  private reportBytes(total: number): void {
    if (total > this.reported) {
      this.o.onBytes?.(total - this.reported);
      this.reported = total;
    }
  }
}
