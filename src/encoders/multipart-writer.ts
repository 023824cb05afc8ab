/**
 * Streams one object into the store: bytes are cut into `partSize` parts that
 * upload while later bytes are still being encoded; an object smaller than one
 * part is a single PUT. SHA-256 and byte count are computed on the way through.
 *
 * Bytes are copied into part-sized buffers taken from a pool of at most
 * `queueSize + 1` (a `Buffer.concat` per part and fresh 8 MiB
 * allocations cost more than the copy); a buffer returns to the pool when its
 * upload (retries included) is over.
 *
 * Invariants:
 * - at most `queueSize` parts are in flight; `write` waits (backpressure) before
 *   starting another, so buffered bytes ≤ (queueSize + 1) × partSize;
 * - S3 allows 10,000 parts: `full` turns true at `maxParts × partSize` bytes so the
 *   caller rotates to a new object before the limit;
 * - after any failure, `abort()` (called by the owner) aborts the multipart upload;
 *   nothing is completed unless `complete()` succeeded;
 * - the writer makes one call per step: retries belong to the store it is given
 *   (the runner passes a `retryingStore`).
 */
import { createHash, type Hash } from "node:crypto";
import { StowageError } from "../shared/errors.js";
import type { MultipartUpload, ObjectStore } from "../store/object-store.js";
import type { ByteSink } from "./format.js";

export interface MultipartWriterOptions {
  /** Bytes per part (S3: ≥ 5 MiB). Default 8 MiB. */
  partSize?: number;
  /** Parts uploading at once. Default 4. */
  queueSize?: number;
  /** Part-count ceiling (S3: 10,000). */
  maxParts?: number;
  contentType?: string;
  /** Object Lock retention of the object (fixed per run, so retries send the same request). */
  objectLock?: { mode: "GOVERNANCE" | "COMPLIANCE"; retainUntil: Date };
  signal?: AbortSignal | undefined;
  /** Part buffers to reuse, shared by the objects of one output (at most queueSize + 1 kept). */
  pool?: Buffer[];
  /**
   * `"*"`: an object smaller than one part is created only if the key is absent (a single PUT
   * with `If-None-Match: *`; the store then throws StowageError("exists")). A multipart
   * completion has no such condition in the store interface: callers check first.
   */
  ifNoneMatch?: "*";
}

export interface WrittenObject {
  key: string;
  bytes: number;
  sha256: string;
  etag: string;
}

export const DEFAULT_PART_SIZE = 8 * 1024 * 1024;
export const DEFAULT_QUEUE_SIZE = 4;

/**
 * @example
 * const w = new MultipartWriter(store, "exports/orders_20250101_000000_000.csv", {});
 * await w.write(bytes); const done = await w.complete(); // {key, bytes, sha256, etag}
 */
export class MultipartWriter implements ByteSink {
  readonly partSize: number;
  readonly queueSize: number;
  private readonly maxParts: number;
  private readonly hash: Hash = createHash("sha256");
  /** The part being filled (from `pool`), and how much of it is used. */
  private fill: Buffer | undefined;
  private pendingBytes = 0;
  private readonly pool: Buffer[];
  private upload: MultipartUpload | undefined;
  private uploadStarting: Promise<MultipartUpload> | undefined;
  private readonly parts: { partNumber: number; etag: string }[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private inFlightBytes = 0;
  private failure: unknown;
  private finished = false;
  bytes = 0;
  peakBufferedBytes = 0;
  /** The object's SHA-256 (hex), once `complete()` was called, even if its upload then failed. */
  sha256: string | undefined;

  constructor(
    private readonly store: ObjectStore,
    readonly key: string,
    private readonly options: MultipartWriterOptions = {},
  ) {
    this.partSize = options.partSize ?? DEFAULT_PART_SIZE;
    this.queueSize = Math.max(1, options.queueSize ?? DEFAULT_QUEUE_SIZE);
    this.maxParts = options.maxParts ?? 10_000;
    this.pool = options.pool ?? [];
  }

  /** Bytes held in memory: the part being filled plus parts uploading. */
  get bufferedBytes(): number {
    return this.pendingBytes + this.inFlightBytes;
  }

  /** True when one more part would pass the part-count ceiling: rotate to a new object. */
  get full(): boolean {
    return this.bytes >= (this.maxParts - 1) * this.partSize;
  }

  /** Multipart upload id, once one was started (for crash diagnostics). */
  get uploadId(): string | undefined {
    return this.upload?.uploadId;
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.finished)
      throw new StowageError("internal", `write after complete/abort on ${this.key}`);
    if (chunk.length === 0) return;
    this.hash.update(chunk);
    this.bytes += chunk.length;
    let at = 0;
    while (at < chunk.length) {
      if (this.pendingBytes === this.partSize) {
        while (this.inFlight.size >= this.queueSize) await Promise.race(this.inFlight);
        if (this.failure) throw this.failure;
        this.startPart(this.takeFill());
      }
      this.fill ??= this.pool.pop() ?? Buffer.allocUnsafe(this.partSize);
      const n = Math.min(chunk.length - at, this.partSize - this.pendingBytes);
      this.fill.set(chunk.subarray(at, at + n), this.pendingBytes);
      this.pendingBytes += n;
      at += n;
      this.note();
    }
  }

  /** Uploads what is left and completes the object (a single PUT if no part was started). */
  async complete(): Promise<WrittenObject> {
    if (this.failure) throw this.failure;
    this.finished = true;
    const sha256 = this.hash.digest("hex");
    this.sha256 = sha256;
    if (!this.uploadStarting) {
      const part = this.takeFill();
      const body = part.body;
      const put = {
        contentType: this.options.contentType,
        objectLock: this.options.objectLock,
        signal: this.options.signal,
        ...(this.options.ifNoneMatch ? { ifNoneMatch: this.options.ifNoneMatch } : {}),
      };
      const res = await this.store.put(this.key, body, put).finally(() => this.release(part));
      return { key: this.key, bytes: this.bytes, sha256, etag: res.etag };
    }
    if (this.pendingBytes > 0 || this.parts.length + this.inFlight.size === 0)
      this.startPart(this.takeFill());
    await Promise.all(this.inFlight);
    if (this.failure) throw this.failure;
    const upload = await this.uploadStarting;
    const parts = [...this.parts].sort((a, b) => a.partNumber - b.partNumber);
    const signal = this.options.signal ? { signal: this.options.signal } : {};
    const res = await this.store.completeMultipart(upload, parts, signal);
    this.upload = undefined;
    return { key: this.key, bytes: this.bytes, sha256, etag: res.etag };
  }

  /** Aborts the multipart upload (if any) and drops buffered bytes. Never throws. */
  async abort(): Promise<void> {
    this.finished = true;
    this.failure ??= new StowageError("aborted", `upload of ${this.key} was aborted`);
    this.fill = undefined;
    this.pendingBytes = 0;
    await Promise.allSettled(this.inFlight);
    const upload = await this.uploadStarting?.catch(() => undefined);
    if (upload) await this.store.abortMultipart(upload).catch(() => undefined);
    this.upload = undefined;
  }

  /** Hands out the part being filled (its used bytes) and starts a new one. */
  private takeFill(): { buf: Buffer | undefined; body: Buffer } {
    const buf = this.fill;
    const body = buf ? buf.subarray(0, this.pendingBytes) : Buffer.alloc(0);
    this.fill = undefined;
    this.pendingBytes = 0;
    return { buf, body };
  }

  /** A part buffer whose upload is over goes back to the pool (never more than the queue needs). */
  private release(part: { buf: Buffer | undefined }): void {
    if (part.buf && part.buf.length === this.partSize && this.pool.length <= this.queueSize)
      this.pool.push(part.buf);
  }

  private startPart(part: { buf: Buffer | undefined; body: Buffer }): void {
    const body = part.body;
    const partNumber = this.parts.length + this.inFlight.size + 1;
    if (partNumber > this.maxParts)
      throw new StowageError(
        "internal",
        `${this.key}: more than ${this.maxParts} parts; rotate earlier`,
      );
    const signal = this.options.signal ? { signal: this.options.signal } : {};
    this.uploadStarting ??= this.store
      .startMultipart(this.key, {
        contentType: this.options.contentType,
        objectLock: this.options.objectLock,
        ...signal,
      })
      .then((u) => (this.upload = u));
    this.inFlightBytes += body.length;
    const task: Promise<void> = this.uploadStarting
      .then((upload) => this.store.uploadPart(upload, partNumber, body, signal))
      .then(
        ({ etag }) => void this.parts.push({ partNumber, etag }),
        (err: unknown) => void (this.failure ??= err),
      )
      .finally(() => {
        this.inFlight.delete(task);
        this.inFlightBytes -= body.length;
        this.release(part);
      });
    this.inFlight.add(task);
    this.note();
  }

  private note(): void {
    const b = this.bufferedBytes;
    if (b > this.peakBufferedBytes) this.peakBufferedBytes = b;
  }
}
