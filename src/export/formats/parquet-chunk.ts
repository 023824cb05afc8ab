/**
 * One Parquet column chunk of a flat OPTIONAL column, written straight from the
 * export values of its `ColumnKind` (SPEC §7.2): definition levels, PLAIN values
 * (or a dictionary page plus RLE_DICTIONARY indexes when few values repeat), one
 * DATA_PAGE_V2 page, and the chunk's statistics. Values go into one reused scratch
 * buffer — no per-value arrays, no `TextEncoder` per string, no bigint per decimal —
 * and pages are compressed as a whole. hyparquet-writer still owns the file: its page
 * header, level (RLE/bit-packed) and footer writers are used as they are.
 */
import { writePageHeader } from "hyparquet-writer/src/datapage.js";
import { writeRleBitPackedHybrid } from "hyparquet-writer/src/encoding.js";
import type { ColumnKind } from "../sources/source.js";
import { decimalToUnscaled, plainDecimalUnscaled } from "../values.js";

type Writer = Parameters<typeof writePageHeader>[0];
type PageHeader = Parameters<typeof writePageHeader>[1];

/** The physical layout of one column, decided once from its kind and schema element. */
export interface ChunkColumn {
  name: string;
  kind: ColumnKind;
  physical: "INT32" | "INT64" | "DOUBLE" | "BOOLEAN" | "BYTE_ARRAY" | "FIXED_LEN_BYTE_ARRAY";
  /** Decimal scale when the values are decimal text stored as an unscaled integer. */
  scale?: number | undefined;
  typeLength?: number | undefined;
}

export type Codec = "ZSTD" | "SNAPPY" | "GZIP" | "UNCOMPRESSED";
export type Compressor = (input: Uint8Array) => Uint8Array;

/** What hyparquet-writer's footer writer takes for a chunk (its `ColumnChunk`). */
export interface WrittenChunk {
  file_offset: bigint;
  meta_data: {
    type: ChunkColumn["physical"];
    encodings: ("PLAIN" | "RLE" | "RLE_DICTIONARY")[];
    path_in_schema: string[];
    codec: Codec;
    num_values: bigint;
    total_compressed_size: bigint;
    total_uncompressed_size: bigint;
    data_page_offset: bigint;
    dictionary_page_offset?: bigint;
    statistics: { null_count: bigint; min_value?: unknown; max_value?: unknown };
  };
}

/** A growable byte buffer reused across chunks. */
class Scratch {
  buf = Buffer.allocUnsafe(1 << 16);
  pos = 0;
  reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

/** Dictionaries pay off when distinct values are at most this share of the non-null values. */
const DICTIONARY_SHARE = 0.25;

const lessThan = (a: unknown, b: unknown) => (a as number) < (b as number);

/** An unscaled decimal as a safe integer when it is one (the common case), else a bigint. */
function unscaled(text: string, scale: number): number | bigint {
  const n = plainDecimalUnscaled(text, scale);
  return n === undefined ? decimalToUnscaled(text, scale) : n;
}

/** Little-endian int64 of a safe integer or a bigint. */
function putInt64(s: Scratch, v: number | bigint): void {
  if (typeof v === "bigint") s.buf.writeBigInt64LE(v, s.pos);
  else {
    const hi = Math.floor(v / 4294967296);
    s.buf.writeUInt32LE(v - hi * 4294967296, s.pos);
    s.buf.writeInt32LE(hi, s.pos + 4);
  }
  s.pos += 8;
}

/** Big-endian two's complement of `v` in `len` bytes (FIXED_LEN_BYTE_ARRAY decimals). */
function putFixedDecimal(s: Scratch, v: bigint, len: number): void {
  let x = BigInt.asUintN(len * 8, v);
  for (let i = len - 1; i >= 0; i--) {
    s.buf[s.pos + i] = Number(x & 0xffn);
    x >>= 8n;
  }
  s.pos += len;
}

/** A column chunk writer; one per encoder, reused for every row group. */
export class ChunkWriter {
  private readonly values = new Scratch();
  private readonly levels = new Scratch();

  constructor(
    private readonly codec: Codec,
    private readonly compress: Compressor | undefined,
  ) {}

  /**
   * Writes `data` (one value per row, null for NULL) as the chunk of `col` at the
   * writer's offset and returns its metadata.
   */
  write(writer: Writer, col: ChunkColumn, data: unknown[]): WrittenChunk {
    const n = data.length;
    const start = writer.offset;
    const defs = new Uint8Array(n);
    let nulls = 0;
    for (let i = 0; i < n; i++) {
      if (data[i] === null || data[i] === undefined) nulls++;
      else defs[i] = 1;
    }
    const nonNull = n - nulls;
    let uncompressed = 0;
    let dictionaryOffset: bigint | undefined;
    const dict = this.dictionary(col, data, nonNull);
    let encoding: "PLAIN" | "RLE_DICTIONARY" = "PLAIN";
    const s = this.values;
    const stats = { min: undefined as unknown, max: undefined as unknown, exact: true };
    if (dict) {
      // The dictionary page: its distinct values, PLAIN.
      s.pos = 0;
      this.plain(col, dict.values, stats);
      dictionaryOffset = BigInt(writer.offset);
      uncompressed += this.page(writer, s.bytes(), {
        type: "DICTIONARY_PAGE",
        uncompressed_page_size: s.pos,
        compressed_page_size: 0,
        dictionary_page_header: { num_values: dict.values.length, encoding: "PLAIN" },
      });
      encoding = "RLE_DICTIONARY";
    }
    // Definition levels (max level 1), uncompressed as DATA_PAGE_V2 requires.
    const lw = levelWriter(this.levels);
    writeRleBitPackedHybrid(lw, defs, 1);
    const levelBytes = this.levels.bytes();
    s.pos = 0;
    if (dict) {
      let max = 0;
      for (let i = 0; i < dict.indexes.length; i++)
        if (dict.indexes[i]! > max) max = dict.indexes[i]!;
      const bitWidth = max === 0 ? 0 : 32 - Math.clz32(max);
      s.reserve(1);
      s.buf[s.pos++] = bitWidth;
      writeRleBitPackedHybrid(levelWriter(s, true), dict.indexes, bitWidth);
    } else {
      const present = nulls === 0 ? data : data.filter((v) => v !== null && v !== undefined);
      this.plain(col, present, stats);
    }
    const dataOffset = BigInt(writer.offset);
    const body = this.compress ? this.compress(s.bytes()) : s.bytes();
    const header: PageHeader = {
      type: "DATA_PAGE_V2",
      uncompressed_page_size: levelBytes.length + s.pos,
      compressed_page_size: levelBytes.length + body.length,
      data_page_header_v2: {
        num_values: n,
        num_nulls: nulls,
        num_rows: n,
        encoding,
        definition_levels_byte_length: levelBytes.length,
        repetition_levels_byte_length: 0,
        is_compressed: this.codec !== "UNCOMPRESSED",
      },
    };
    const headerStart = writer.offset;
    writePageHeader(writer, header);
    uncompressed += writer.offset - headerStart + levelBytes.length + s.pos;
    writer.appendBytes(levelBytes);
    writer.appendBytes(body);
    const statistics: WrittenChunk["meta_data"]["statistics"] = { null_count: BigInt(nulls) };
    if (stats.exact && stats.min !== undefined) {
      statistics.min_value = stats.min;
      statistics.max_value = stats.max;
    }
    return {
      file_offset: BigInt(start),
      meta_data: {
        type: col.physical,
        encodings: dict ? ["PLAIN", "RLE", "RLE_DICTIONARY"] : ["PLAIN", "RLE"],
        path_in_schema: [col.name],
        codec: this.codec,
        num_values: BigInt(n),
        total_compressed_size: BigInt(writer.offset - start),
        total_uncompressed_size: BigInt(uncompressed),
        data_page_offset: dataOffset,
        ...(dictionaryOffset !== undefined ? { dictionary_page_offset: dictionaryOffset } : {}),
        statistics,
      },
    };
  }

  /** Writes a page whose header's compressed size is filled in here; returns its uncompressed size. */
  private page(writer: Writer, raw: Buffer, header: PageHeader): number {
    const body = this.compress ? this.compress(raw) : raw;
    const headerStart = writer.offset;
    writePageHeader(writer, { ...header, compressed_page_size: body.length });
    const headerSize = writer.offset - headerStart;
    writer.appendBytes(body);
    return headerSize + raw.length;
  }

  /**
   * Distinct values and per-row indexes for string-like and 32-bit columns when few
   * values repeat often; undefined when a dictionary would not pay off.
   */
  private dictionary(
    col: ChunkColumn,
    data: unknown[],
    nonNull: number,
  ): { values: unknown[]; indexes: Int32Array } | undefined {
    const dictionaryKind =
      (col.physical === "BYTE_ARRAY" && col.kind !== "bytes") ||
      (col.physical === "INT32" && col.scale === undefined);
    if (!dictionaryKind || nonNull < 16) return undefined;
    const limit = Math.max(1, Math.floor(nonNull * DICTIONARY_SHARE));
    const index = new Map<unknown, number>();
    const values: unknown[] = [];
    const indexes = new Int32Array(nonNull);
    let k = 0;
    for (let i = 0; i < data.length; i++) {
      const v = data[i];
      if (v === null || v === undefined) continue;
      let at = index.get(v);
      if (at === undefined) {
        if (values.length >= limit) return undefined;
        at = values.length;
        index.set(v, at);
        values.push(v);
      }
      indexes[k++] = at;
    }
    return { values, indexes };
  }

  /** PLAIN values of `col` (no NULLs) appended to the scratch buffer; tracks min/max. */
  private plain(
    col: ChunkColumn,
    data: unknown[],
    stats: { min: unknown; max: unknown; exact: boolean },
  ): void {
    const s = this.values;
    const n = data.length;
    let min: unknown = undefined;
    let max: unknown = undefined;
    const see = (v: unknown) => {
      if (min === undefined || lessThan(v, min)) min = v;
      if (max === undefined || lessThan(max, v)) max = v;
    };
    switch (col.physical) {
      case "INT32": {
        s.reserve(4 * n);
        const scale = col.scale;
        for (let i = 0; i < n; i++) {
          const v = scale === undefined ? (data[i] as number) : unscaled(data[i] as string, scale);
          s.buf.writeInt32LE(Number(v), s.pos);
          s.pos += 4;
          see(typeof v === "bigint" ? Number(v) : v);
        }
        if (scale !== undefined && min !== undefined) {
          min = BigInt(min as number);
          max = BigInt(max as number);
        }
        break;
      }
      case "INT64": {
        s.reserve(8 * n);
        const scale = col.scale;
        for (let i = 0; i < n; i++) {
          const raw = data[i];
          const v =
            scale === undefined
              ? typeof raw === "number"
                ? BigInt(raw)
                : (raw as bigint)
              : unscaled(raw as string, scale);
          putInt64(s, v);
          see(v);
        }
        // Statistics are bigints (unscaled for decimals); numbers and bigints compare fine mixed.
        if (min !== undefined) {
          min = BigInt(min as number | bigint);
          max = BigInt(max as number | bigint);
        }
        break;
      }
      case "DOUBLE": {
        s.reserve(8 * n);
        for (let i = 0; i < n; i++) {
          const v = data[i] as number;
          s.buf.writeDoubleLE(v, s.pos);
          s.pos += 8;
          if (!Number.isNaN(v)) see(v);
        }
        break;
      }
      case "BOOLEAN": {
        s.reserve(Math.ceil(n / 8));
        s.buf.fill(0, s.pos, s.pos + Math.ceil(n / 8));
        for (let i = 0; i < n; i++) {
          if (data[i]) s.buf[s.pos + (i >> 3)]! |= 1 << (i & 7);
          see(data[i] ? 1 : 0);
        }
        s.pos += Math.ceil(n / 8);
        if (min !== undefined) {
          min = min === 1;
          max = max === 1;
        }
        break;
      }
      case "FIXED_LEN_BYTE_ARRAY": {
        const len = col.typeLength!;
        s.reserve(len * n);
        for (let i = 0; i < n; i++)
          putFixedDecimal(s, decimalToUnscaled(data[i] as string, col.scale ?? 0), len);
        stats.exact = false; // no min/max for wide decimals
        break;
      }
      case "BYTE_ARRAY": {
        const strings = col.kind !== "bytes";
        let ascii = true;
        for (let i = 0; i < n; i++) {
          const v = data[i];
          if (strings) {
            const str = v as string;
            s.reserve(4 + 3 * str.length);
            const len = s.buf.write(str, s.pos + 4);
            if (len !== str.length) ascii = false;
            s.buf.writeUInt32LE(len, s.pos);
            s.pos += 4 + len;
            see(str);
          } else {
            const b = v as Uint8Array;
            s.reserve(4 + b.length);
            s.buf.writeUInt32LE(b.length, s.pos);
            s.buf.set(b, s.pos + 4);
            s.pos += 4 + b.length;
          }
        }
        // JavaScript orders strings by UTF-16 units; Parquet by UTF-8 bytes. They agree on
        // ASCII: other chunks, JSON and raw bytes get no min/max (only the null count).
        if (!strings || !ascii || col.kind === "json") stats.exact = false;
        break;
      }
    }
    if (stats.min === undefined || (min !== undefined && lessThan(min, stats.min))) stats.min = min;
    if (stats.max === undefined || (max !== undefined && lessThan(stats.max, max))) stats.max = max;
  }
}

/** A hyparquet `Writer` view of a scratch buffer, for its RLE/bit-packed level writer. */
function levelWriter(s: Scratch, append = false): Writer {
  if (!append) s.pos = 0;
  const w = {
    get offset() {
      return s.pos;
    },
    ensure(size: number) {
      s.reserve(size);
    },
    appendUint8(v: number) {
      s.reserve(1);
      s.buf[s.pos++] = v;
    },
    appendVarInt(v: number) {
      s.reserve(5);
      while (v > 0x7f) {
        s.buf[s.pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      s.buf[s.pos++] = v;
    },
    appendBytes(b: Uint8Array) {
      s.reserve(b.length);
      s.buf.set(b, s.pos);
      s.pos += b.length;
    },
  };
  return w as unknown as Writer;
}
