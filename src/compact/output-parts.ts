/**
 * The Parquet parts of one generation: rows (already in order) go into the shared Parquet
 * encoder (`encoders/parquet.ts`) and through the multipart writer into the partition folder;
 * part `k` holds rows `[(k-1)·fileRows, k·fileRows)`, so a part's rows depend only on the
 * claim. A part that already exists (an earlier, killed attempt at the same claim completed
 * it) is not written again: its rows are encoded only to be counted, and its bytes are
 * hashed from the store when they are not the bytes this run would have written.
 *
 * Invariants: at most one part is open; memory is one row group of the encoder plus
 * (queueSize + 1) × partSize of the writer; every part carries Object Lock as configured and
 * the store's SHA-256 (every put and part sends one).
 */
import { createHash } from "node:crypto";
import type { ColumnSpec, Row } from "../encoders/columns.js";
import {
  createFormat,
  type ByteSink,
  type Encoder,
  type FormatOptions,
} from "../encoders/format.js";
import { MultipartWriter } from "../encoders/multipart-writer.js";
import { isStowageError } from "../shared/errors.js";
import { isCompositeChecksum } from "../store/checksum.js";
import type { ObjectInfo, ObjectLockMode } from "../store/object-store.js";
import { withRetry } from "../store/retry-policy.js";
import { outputKey } from "./layout.js";
import type { CompactSettings, ManifestOutput } from "./manifest.js";
import type { StoreCalls } from "./store-calls.js";

export interface OutputPartsOptions {
  calls: StoreCalls;
  dest: string;
  hourMs: number;
  generation: number;
  digest: string;
  schema: ColumnSpec[];
  settings: CompactSettings;
  objectLock?: { mode: ObjectLockMode; retainUntil: Date } | undefined;
  /** Told about each part as it completes (`existed`: it was already there). */
  onPart?: (part: ManifestOutput, existed: boolean) => void;
}

const ENCODE_BATCH = 1024;
/**
 * S3's smallest part: parts are held while they upload, (QUEUE_SIZE + 1) of them. One part
 * uploading while the next fills: an hour's Parquet arrives at a few MB a second.
 */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 1;

class HashSink implements ByteSink {
  readonly hash = createHash("sha256");
  bytes = 0;
  async write(chunk: Uint8Array): Promise<void> {
    this.hash.update(chunk);
    this.bytes += chunk.length;
  }
}

interface OpenPart {
  key: string;
  encoder: Encoder;
  writer?: MultipartWriter;
  hashOnly?: { sink: HashSink; info: ObjectInfo };
  rows: number;
  minMs: number | null;
  maxMs: number | null;
  pending: Row[];
}

/**
 * @example
 * const parts = new OutputParts(options);
 * await parts.row(row, ms); …; const outputs = await parts.finish();
 */
export class OutputParts {
  private open: OpenPart | undefined;
  private readonly done: ManifestOutput[] = [];
  private readonly pool: Buffer[] = [];

  constructor(private readonly o: OutputPartsOptions) {}

  /** A promise only when the row has to wait (a part starts, a batch is encoded, a part ends). */
  row(row: Row, ms: number): Promise<void> | undefined {
    const part = this.open;
    if (part === undefined) return this.startWith(row, ms);
    part.pending.push(row);
    part.rows++;
    if (part.minMs === null || ms < part.minMs) part.minMs = ms;
    if (part.maxMs === null || ms > part.maxMs) part.maxMs = ms;
    if (part.pending.length >= ENCODE_BATCH || part.rows >= this.o.settings.fileRows)
      return this.settle(part);
    return undefined;
  }

  private async startWith(row: Row, ms: number): Promise<void> {
    this.open = await this.start(this.done.length + 1);
    await this.row(row, ms);
  }

  /** Encodes the pending batch when full; ends the part when it holds `fileRows`. */
  private async settle(part: OpenPart): Promise<void> {
    if (part.pending.length >= ENCODE_BATCH) await this.flushPending(part);
    if (part.rows >= this.o.settings.fileRows) await this.close(part);
  }

  /** Completes the open part; returns every part of the generation, in order. */
  async finish(): Promise<ManifestOutput[]> {
    if (this.open) await this.close(this.open);
    return this.done;
  }

  /** Aborts the open part's multipart upload (a failed generation). Never throws. */
  async abort(): Promise<void> {
    await this.open?.writer?.abort();
    this.open = undefined;
  }

  private async start(k: number): Promise<OpenPart> {
    const { calls } = this.o;
    const key = outputKey(this.o.dest, this.o.hourMs, this.o.generation, this.o.digest, k);
    const options: FormatOptions = {
      format: "parquet",
      compression: this.o.settings.compression,
      rowGroupRows: this.o.settings.rowGroupRows,
      rowGroupBytes: this.o.settings.rowGroupBytes,
    };
    const format = await createFormat(options);
    const info = await calls.store.head(key, { signal: calls.signal }).catch((err: unknown) => {
      if (isStowageError(err, "not-found")) return undefined;
      throw err;
    });
    const base = { key, rows: 0, minMs: null, maxMs: null, pending: [] as Row[] };
    if (info) {
      const sink = new HashSink();
      return {
        ...base,
        encoder: await format.createEncoder(this.o.schema, sink),
        hashOnly: { sink, info },
      };
    }
    const writer = new MultipartWriter(calls.store, key, {
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      contentType: format.contentType,
      ...(this.o.objectLock ? { objectLock: this.o.objectLock } : {}),
      signal: calls.signal,
      pool: this.pool,
      ifNoneMatch: "*",
    });
    return { ...base, encoder: await format.createEncoder(this.o.schema, writer), writer };
  }

  private async flushPending(part: OpenPart): Promise<void> {
    if (part.pending.length === 0) return;
    const rows = part.pending;
    part.pending = [];
    await part.encoder.write(rows);
  }

  private async close(part: OpenPart): Promise<void> {
    await this.flushPending(part);
    await part.encoder.finish();
    let out: { bytes: number; sha256: string };
    let existed = false;
    if (part.writer) {
      try {
        out = await part.writer.complete();
      } catch (err) {
        if (!isStowageError(err, "exists")) throw err;
        // Created meanwhile by another attempt at the same claim: the same rows.
        const info = await this.o.calls.store.head(part.key, { signal: this.o.calls.signal });
        out = await this.existing(part.key, info, part.writer.bytes, part.writer.sha256);
        existed = true;
      }
    } else {
      const { sink, info } = part.hashOnly!;
      out = await this.existing(part.key, info, sink.bytes, sink.hash.digest("hex"));
      existed = true;
    }
    const entry: ManifestOutput = {
      key: part.key,
      rows: part.rows,
      bytes: out.bytes,
      sha256: out.sha256,
      minMs: part.minMs,
      maxMs: part.maxMs,
    };
    this.done.push(entry);
    this.open = undefined;
    this.o.onPart?.(entry, existed);
  }

  /** Size and SHA-256 of a part already in the store: ours when its stored checksum says so, else hashed from a GET. */
  private async existing(
    key: string,
    info: ObjectInfo,
    bytes: number,
    sha256: string | undefined,
  ): Promise<{ bytes: number; sha256: string }> {
    const stored = info.checksumSha256;
    if (sha256 && info.size === bytes && stored && !isCompositeChecksum(stored))
      if (Buffer.from(stored, "base64").toString("hex") === sha256) return { bytes, sha256 };
    const { calls } = this.o;
    return withRetry(
      async () => {
        const res = await calls.raw.get(key, { signal: calls.signal });
        const hash = createHash("sha256");
        let size = 0;
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          hash.update(chunk);
          size += chunk.length;
        }
        return { bytes: size, sha256: hash.digest("hex") };
      },
      calls.policy,
      { signal: calls.signal },
    );
  }
}
