/**
 * The Format interface: an encoder factory that turns row batches into bytes
 * pushed to a `ByteSink` as they are produced (never a whole file in memory),
 * plus the file extension and content type of what it writes.
 */
import type { Batch, ColumnSpec } from "./columns.js";

export type FormatName = "parquet" | "csv" | "ndjson";
export type Compression = "zstd" | "snappy" | "gzip" | "none";

/**
 * Where an encoder's bytes go; `write` resolves once the sink accepted them
 * (backpressure). The encoder reuses the chunk's memory after that: a sink that
 * keeps bytes copies them (the multipart writer copies into its part buffers).
 */
export interface ByteSink {
  write(chunk: Uint8Array): Promise<void>;
}

/**
 * Encodes one file. `bufferedBytes` counts what the encoder holds and has not yet
 * handed to the sink (pending rows estimated by size, plus encoded bytes); it stays
 * under `boundBytes` for rows whose encoded form is not larger than their raw size.
 */
export interface Encoder {
  /** Rows as values; CSV lines only where the format is CSV (`QueryOptions.csvLines`). */
  write(rows: Batch): Promise<void>;
  /** Flushes everything and writes the file trailer (Parquet footer, gzip trailer). */
  finish(): Promise<void>;
  readonly bufferedBytes: number;
  readonly peakBufferedBytes: number;
  readonly boundBytes: number;
}

export interface Format {
  readonly name: FormatName;
  readonly compression: Compression;
  /** File extension without the dot: `parquet`, `csv`, `csv.gz`, `ndjson.gz`. */
  readonly extension: string;
  readonly contentType: string;
  createEncoder(columns: ColumnSpec[], sink: ByteSink): Promise<Encoder>;
}

export interface FormatOptions {
  format: FormatName;
  compression: Compression;
  /** Parquet: rows per row group at most (default 10 000). */
  rowGroupRows?: number;
  /** Parquet: encoded (uncompressed) bytes per row group at most (default 32 MiB). */
  rowGroupBytes?: number;
  /** Parquet: encoded values of a PLAIN data page, about (default 1 MiB; a dictionary chunk is one page). */
  pageBytes?: number;
  /** Encoded bytes gathered before a hand-off to the sink / gzip (default 1 MiB; gzip wants ≥ 64 KiB writes). */
  chunkBytes?: number;
}

/** Default compression per format: zstd for Parquet, none for text formats. */
export function defaultCompression(format: FormatName): Compression {
  return format === "parquet" ? "zstd" : "none";
}

/** Compressions each format accepts. */
export const COMPRESSIONS: Record<FormatName, Compression[]> = {
  parquet: ["zstd", "snappy", "gzip", "none"],
  csv: ["gzip", "none"],
  ndjson: ["gzip", "none"],
};

/**
 * Builds a Format from validated options.
 * @example const f = await createFormat({ format: "csv", compression: "gzip" }); f.extension // "csv.gz"
 */
export async function createFormat(options: FormatOptions): Promise<Format> {
  if (options.format === "parquet") return (await import("./parquet.js")).parquetFormat(options);
  if (options.format === "csv") return (await import("./csv.js")).csvFormat(options);
  return (await import("./ndjson.js")).ndjsonFormat(options);
}
