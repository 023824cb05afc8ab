/**
 * The column chunks of a Parquet row group for flat OPTIONAL columns, built from the
 * export values of each `ColumnKind` (SPEC §7.2) as rows arrive: definition levels,
 * PLAIN values in a reused scratch buffer (no per-value arrays, no `TextEncoder` per
 * string, no bigint per decimal), a dictionary kept beside them while it may pay off,
 * and min/max. A PLAIN chunk is cut into DATA_PAGE_V2 pages of about `pageBytes` as its
 * values arrive: each page is compressed at once and only its compressed bytes are held
 * until the row group is written, so a row group holds one page of encoded values per
 * column and the compressor's memory is sized to a page, not to a chunk. A dictionary
 * chunk is one data page after its dictionary page. hyparquet-writer still owns the
 * file: its page header, level (RLE/bit-packed) and footer writers are used as they are.
 */
import { ByteWriter } from "hyparquet-writer";
import { writePageHeader, writeRleBitPackedHybrid } from "./hyparquet-internals.js";
import { utf8Write } from "../shared/buffer-text.js";
import type { ColumnKind } from "./columns.js";
import { decimalToUnscaled, unscaledDecimal } from "./values.js";

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
  /** false: never try a dictionary for this column (see `ColumnSpec.dictionary`). */
  dictionary?: boolean | undefined;
}

export type Codec = "ZSTD" | "SNAPPY" | "GZIP" | "UNCOMPRESSED";
export type Compressor = (input: Uint8Array) => Uint8Array;

/** How a chunk's pages are written: the file's codec, its compressor and the page size. */
export interface PageOutput {
  codec: Codec;
  compress: Compressor | undefined;
  /** Encoded values a PLAIN page holds at most, about (default `DEFAULT_PAGE_BYTES`; a single larger range is one page). */
  pageBytes?: number | undefined;
}

/**
 * 1 MiB of encoded values a page, as Arrow and parquet-mr write: zstd's wasm memory grows
 * to the largest page it compresses and never shrinks (19 MiB with one page a chunk).
 */
export const DEFAULT_PAGE_BYTES = 1024 * 1024;

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

/**
 * Grown scratch buffers of finished encoders, for the next ones (a compaction run starts
 * an encoder per hour and per part): a fresh buffer's pages are faulted in and zeroed by
 * the kernel as they are first written, which cost more than filling them. At most
 * `SPARE_MAX_BYTES` are kept; buffers under `SPARE_MIN_BYTES` are not worth keeping.
 */
const spare: Buffer[] = [];
let spareBytes = 0;
const SPARE_MAX_BYTES = 8 * 1024 * 1024;
const SPARE_MIN_BYTES = 64 * 1024;

/** The smallest spare buffer of at least `min` bytes, taken out of the spares. */
function takeSpare(min: number): Buffer | undefined {
  let best = -1;
  for (let i = 0; i < spare.length; i++)
    if (spare[i]!.length >= min && (best < 0 || spare[i]!.length < spare[best]!.length)) best = i;
  if (best < 0) return undefined;
  const [b] = spare.splice(best, 1);
  spareBytes -= b!.length;
  return b;
}

/** A growable byte buffer reused across chunks. */
class Scratch {
  buf: Buffer = Buffer.allocUnsafe(1 << 12);
  view: DataView = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  pos = 0;
  /** BOOLEAN values written (bit-packed). */
  bits = 0;
  /** Every string written was ASCII. */
  ascii = true;
  reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = Math.max(1 << 12, this.buf.length * 2);
    while (size < this.pos + n) size *= 2;
    const next = takeSpare(size) ?? Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    giveSpare(this.buf);
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.length);
  }
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
  /** Hands the buffer to the spares (when worth it); the Scratch is not used after, but by `reserve`. */
  release(): void {
    giveSpare(this.buf);
    this.buf = EMPTY;
    this.view = new DataView(EMPTY.buffer, EMPTY.byteOffset, 0);
    this.pos = 0;
  }
}

/** `b` is no longer used by its Scratch. */
function giveSpare(b: Buffer): void {
  if (b.length >= SPARE_MIN_BYTES && spareBytes + b.length <= SPARE_MAX_BYTES) {
    spare.push(b);
    spareBytes += b.length;
  }
}
const EMPTY = Buffer.alloc(0);

/** `ColumnChunkBuilder.addRange` layouts. */
const OTHER = 0;
const INT64 = 1;
const STRING = 2;

/** Dictionaries pay off when distinct values are at most this share of the non-null values. */
const DICTIONARY_SHARE = 0.25;
/** Distinct values after which a dictionary that holds more than half the values seen is given up. */
const DICTIONARY_PROBE = 512;

const lessThan = (a: unknown, b: unknown) => (a as number) < (b as number);

/** Little-endian int64 of a safe integer or a bigint. */
function putInt64(s: Scratch, v: number | bigint): void {
  const n = typeof v === "bigint" ? Number(v) : v;
  if (typeof v === "bigint" && !Number.isSafeInteger(n)) s.view.setBigInt64(s.pos, v, true);
  else {
    const hi = Math.floor(n / 4294967296);
    s.view.setUint32(s.pos, n - hi * 4294967296, true);
    s.view.setInt32(s.pos + 4, hi, true);
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

/** Appends one non-NULL value to the PLAIN bytes; returns the value its statistics compare. */
type PlainWriter = (s: Scratch, v: unknown) => unknown;

/** The PLAIN writer of a column's physical type (decimal text becomes its unscaled integer). */
function plainWriter(col: ChunkColumn): PlainWriter {
  const scale = col.scale;
  switch (col.physical) {
    case "INT32":
      return scale === undefined
        ? (s, v) => {
            s.reserve(4);
            s.view.setInt32(s.pos, v as number, true);
            s.pos += 4;
            return v;
          }
        : (s, v) => {
            const u = Number(unscaledDecimal(v as string, scale));
            s.reserve(4);
            s.view.setInt32(s.pos, u, true);
            s.pos += 4;
            return u;
          };
    case "INT64":
      return (s, v) => {
        const u =
          scale !== undefined ? unscaledDecimal(v as string, scale) : (v as number | bigint);
        s.reserve(8);
        putInt64(s, u);
        return u;
      };
    case "DOUBLE":
      return (s, v) => {
        s.reserve(8);
        s.view.setFloat64(s.pos, v as number, true);
        s.pos += 8;
        return Number.isNaN(v) ? undefined : v; // NaN takes no part in min/max
      };
    case "FIXED_LEN_BYTE_ARRAY": {
      const len = col.typeLength!;
      return (s, v) => {
        s.reserve(len);
        putFixedDecimal(s, decimalToUnscaled(v as string, scale ?? 0), len);
        return undefined;
      };
    }
    case "BYTE_ARRAY":
      return col.kind === "bytes"
        ? (s, v) => {
            const b = v as Uint8Array;
            s.reserve(4 + b.length);
            s.view.setUint32(s.pos, b.length, true);
            s.buf.set(b, s.pos + 4);
            s.pos += 4 + b.length;
            return undefined;
          }
        : (s, v) => {
            const str = v as string;
            s.reserve(4 + 3 * str.length);
            const len = utf8Write(s.buf, str, s.pos + 4);
            s.view.setUint32(s.pos, len, true);
            s.pos += 4 + len;
            s.ascii &&= len === str.length;
            return str;
          };
    case "BOOLEAN":
      return (s, v) => {
        const bit = s.bits++;
        if ((bit & 7) === 0) {
          s.reserve(1);
          s.buf[s.pos++] = 0;
        }
        if (v) s.buf[s.pos - 1]! |= 1 << (bit & 7);
        return v ? 1 : 0;
      };
  }
}

/**
 * The chunk of one column for the row group being gathered: values are encoded as
 * they arrive (so rows die young and the heap stays flat), a dictionary is kept
 * beside the PLAIN bytes while it may still pay off, and `writeTo` emits the chunk
 * and starts the next.
 */
export class ColumnChunkBuilder {
  private readonly plain = new Scratch();
  /** Reused for the dictionary page, the dictionary indexes and the levels of each chunk. */
  private readonly dictPage = new Scratch();
  private readonly indexPage = new Scratch();
  private readonly levels = new Scratch();
  /** The chunk's PLAIN pages written so far (header, levels and compressed values each). */
  private readonly pages = new ByteWriter(64 * 1024);
  private readonly encode: PlainWriter;
  private defs = new Uint8Array(1024);
  private rows = 0;
  private nulls = 0;
  private min: unknown = undefined;
  private max: unknown = undefined;
  private readonly dictionaryKind: boolean;
  private index: Map<unknown, number> | undefined;
  private dictValues: unknown[] = [];
  /** Characters of the dictionary's strings (4 a number): its share of `bytes`. */
  private dictChars = 0;
  /** The last value put into the dictionary, and its slot. */
  private lastValue: unknown = undefined;
  private lastSlot = 0;
  private indexes = new Int32Array(1024);
  private readonly dictionaryLimit: number;
  /** Statistics are kept for this column (its bytes order as its values do). */
  private readonly ordered: boolean;
  /** The column's previous chunk was written without a dictionary. */
  private plainBefore = false;
  /** Which loop `addRange` runs: `INT64`, `STRING` or `OTHER` (value by value). */
  private readonly layout: number;
  private readonly pageBytes: number;
  /** The chunk's first row, and NULLs before it, of the page being gathered. */
  private pageRow = 0;
  private pageNulls = 0;
  /** Uncompressed bytes of the pages in `pages` (with headers), and of their values alone. */
  private pagesUncompressed = 0;
  private pagesValueBytes = 0;
  /** The most PLAIN bytes one `addRange` call added (kept from chunk to chunk). */
  private rangeBytes = 0;

  constructor(
    readonly col: ChunkColumn,
    maxRows: number,
    private readonly out: PageOutput,
  ) {
    this.pageBytes = Math.max(1, out.pageBytes ?? DEFAULT_PAGE_BYTES);
    this.encode = plainWriter(col);
    const text = col.physical === "BYTE_ARRAY" && col.kind !== "bytes";
    this.dictionaryKind =
      col.dictionary !== false && (text || (col.physical === "INT32" && col.scale === undefined));
    this.dictionaryLimit = Math.max(16, Math.floor(maxRows * DICTIONARY_SHARE));
    this.ordered =
      col.physical !== "FIXED_LEN_BYTE_ARRAY" && col.kind !== "bytes" && col.kind !== "json";
    this.layout = col.physical === "INT64" ? INT64 : text ? STRING : OTHER;
    this.reset();
  }

  /** The chunk is written and no other follows: its buffers go to the next builders. */
  release(): void {
    this.plain.release();
    this.dictPage.release();
    this.indexPage.release();
    this.levels.release();
  }

  /**
   * Encoded bytes of the chunk: PLAIN values (in pages written and pending) and levels, or
   * while a dictionary is kept, 4 bytes an index and the distinct values' characters.
   */
  get bytes(): number {
    const dict = this.index !== undefined ? 4 * (this.rows - this.nulls) + this.dictChars : 0;
    return this.pagesValueBytes + this.plain.pos + this.rows + dict;
  }

  /**
   * Adds column `col` of `rows[from, to)`. The common layouts (64-bit integers, decimals
   * held as INT64, strings) have a loop of their own, so each loop's property accesses
   * and calls see one type and V8 compiles them straight; the rest go value by value.
   */
  addRange(rows: readonly (readonly unknown[])[], col: number, from: number, to: number): void {
    const need = this.rows + (to - from);
    while (need > this.defs.length) this.defs = grow(this.defs);
    const before = this.plain.pos;
    if (this.layout === INT64) this.addInt64(rows, col, from, to);
    else if (this.layout === STRING) this.addStrings(rows, col, from, to);
    else for (let r = from; r < to; r++) this.add(rows[r]![col]);
    const added = this.plain.pos - before;
    if (added > this.rangeBytes) this.rangeBytes = added;
    // The page is written while two more ranges like the largest seen still fit under
    // `pageBytes` (a string reserves 3 bytes a character before it is written), so the
    // scratch buffer stays at the page size instead of doubling past it.
    if (this.index === undefined && this.plain.pos + 2 * this.rangeBytes > this.pageBytes)
      this.flushPage();
  }

  /** INT64 values (integers, timestamps, decimals as unscaled integers): PLAIN and min/max. */
  private addInt64(rows: readonly (readonly unknown[])[], col: number, from: number, to: number) {
    const s = this.plain;
    s.reserve(8 * (to - from));
    const view = s.view;
    const defs = this.defs;
    const scale = this.col.scale;
    let pos = s.pos;
    let r = this.rows;
    let nulls = this.nulls;
    let min = this.min as number | bigint | undefined;
    let max = this.max as number | bigint | undefined;
    for (let i = from; i < to; i++) {
      const v = rows[i]![col];
      if (v === null || v === undefined) {
        defs[r++] = 0;
        nulls++;
        continue;
      }
      defs[r++] = 1;
      const u = scale !== undefined ? unscaledDecimal(v as string, scale) : (v as number | bigint);
      if (typeof u === "number") {
        const hi = Math.floor(u / 4294967296);
        view.setUint32(pos, u - hi * 4294967296, true);
        view.setInt32(pos + 4, hi, true);
      } else view.setBigInt64(pos, u, true);
      pos += 8;
      if (min === undefined || u < min) min = u;
      if (max === undefined || u > max) max = u;
    }
    s.pos = pos;
    this.rows = r;
    this.nulls = nulls;
    this.min = min;
    this.max = max;
  }

  /** Strings (UTF-8 BYTE_ARRAY): PLAIN, min/max unless JSON, and the dictionary while it pays. */
  private addStrings(rows: readonly (readonly unknown[])[], col: number, from: number, to: number) {
    const s = this.plain;
    const defs = this.defs;
    const ordered = this.ordered;
    let r = this.rows;
    let nulls = this.nulls;
    let min = this.min as string | undefined;
    let max = this.max as string | undefined;
    let ascii = s.ascii;
    for (let i = from; i < to; i++) {
      const v = rows[i]![col];
      if (v === null || v === undefined) {
        defs[r++] = 0;
        nulls++;
        continue;
      }
      defs[r++] = 1;
      const str = v as string;
      if (ordered) {
        if (min === undefined || str < min) min = str;
        if (max === undefined || str > max) max = str;
      }
      // While the dictionary may pay, only its index is kept: PLAIN bytes are written
      // for the values so far only if it is given up (`spill`).
      if (this.index !== undefined) {
        if (this.toDictionary(str, r - 1 - nulls, r - 1)) continue;
        ascii = s.ascii; // the spill wrote the values before this one
      }
      const n = str.length;
      s.reserve(4 + 3 * n);
      const at = s.pos + 4;
      const len = utf8Write(s.buf, str, at);
      s.view.setUint32(s.pos, len, true);
      s.pos = at + len;
      ascii &&= len === n;
    }
    s.ascii = ascii;
    this.rows = r;
    this.nulls = nulls;
    this.min = min;
    this.max = max;
  }

  add(v: unknown): void {
    const r = this.rows++;
    if (r === this.defs.length) this.defs = grow(this.defs);
    if (v === null || v === undefined) {
      this.defs[r] = 0;
      this.nulls++;
      return;
    }
    this.defs[r] = 1;
    // A dictionary column here is INT32 (no decimal scale): its statistic is the value itself.
    const cmp =
      this.index !== undefined && this.toDictionary(v, r - this.nulls, r)
        ? v
        : this.encode(this.plain, v);
    if (this.ordered && cmp !== undefined) {
      if (this.min === undefined || lessThan(cmp, this.min)) this.min = cmp;
      if (this.max === undefined || lessThan(this.max, cmp)) this.max = cmp;
    }
  }

  /**
   * Writes the rows gathered since the last page as a PLAIN page into `pages` (compressed
   * now; only those bytes are held) and starts the next page. Only once the chunk is PLAIN:
   * a dictionary chunk's values are one page of indexes, written by `writeTo`.
   */
  private flushPage(endRow = this.rows, endNulls = this.nulls): void {
    const written = this.dataPage(this.pages, this.plain.bytes(), false, endRow, endNulls);
    this.pagesUncompressed += written;
    this.pagesValueBytes += this.plain.pos;
    this.plain.pos = 0;
    this.plain.bits = 0;
    this.pageRow = endRow;
    this.pageNulls = endNulls;
  }

  /**
   * Writes the data page of rows `[pageRow, endRow)` (`endNulls` NULLs in rows before
   * `endRow`) — levels, then `values` compressed — to `w`; returns its uncompressed size
   * (header included).
   */
  private dataPage(
    w: Writer,
    values: Buffer,
    dict: boolean,
    endRow = this.rows,
    endNulls = this.nulls,
  ): number {
    const n = endRow - this.pageRow;
    const nulls = endNulls - this.pageNulls;
    const lv = this.levels;
    if (nulls === 0 || nulls === n) {
      // One RLE run (the usual page: no NULLs, or only NULLs).
      const l = levelWriter(lv);
      l.appendVarInt(n << 1);
      l.appendUint8(nulls === 0 ? 1 : 0);
    } else writeRleBitPackedHybrid(levelWriter(lv), this.defs.subarray(this.pageRow, endRow), 1);
    const levelBytes = lv.bytes();
    const body = this.out.compress ? this.out.compress(values) : values;
    const headerStart = w.offset;
    writePageHeader(w, {
      type: "DATA_PAGE_V2",
      uncompressed_page_size: levelBytes.length + values.length,
      compressed_page_size: levelBytes.length + body.length,
      data_page_header_v2: {
        num_values: n,
        num_nulls: nulls,
        num_rows: n,
        encoding: dict ? "RLE_DICTIONARY" : "PLAIN",
        definition_levels_byte_length: levelBytes.length,
        repetition_levels_byte_length: 0,
        is_compressed: this.out.codec !== "UNCOMPRESSED",
      },
    });
    const header = w.offset - headerStart;
    w.appendBytes(levelBytes);
    w.appendBytes(body);
    return header + levelBytes.length + values.length;
  }

  /**
   * Puts non-NULL value number `k` of the chunk into the dictionary (a new entry for a
   * value not seen before) and returns true; or, when the dictionary is given up at this
   * value — row `row` of the chunk — writes the PLAIN pages of the rows before it (`spill`)
   * and returns false: the caller writes this one, and the chunk is PLAIN from here.
   */
  private toDictionary(v: unknown, k: number, row: number): boolean {
    // The previous value again (a service, a level, a message repeated row after row) is
    // found without hashing it.
    let slot = v === this.lastValue ? this.lastSlot : this.index!.get(v);
    if (slot === undefined) {
      if (this.dictionaryLost(k + 1)) {
        this.spill(row);
        return false;
      }
      slot = this.dictValues.length;
      this.index!.set(v, slot);
      this.dictValues.push(v);
      this.dictChars += typeof v === "string" ? v.length : 4;
    }
    if (k === this.indexes.length) this.indexes = grow(this.indexes);
    this.indexes[k] = slot;
    this.lastValue = v;
    this.lastSlot = slot;
    return true;
  }

  /**
   * Gives the dictionary up: the non-NULL values of rows `0 … rows - 1` are written PLAIN
   * from it, cut into pages of about `pageBytes` as any PLAIN values are.
   */
  private spill(rows: number): void {
    const values = this.dictValues;
    const indexes = this.indexes;
    const defs = this.defs;
    const plain = this.plain;
    let k = 0;
    let nulls = 0;
    for (let r = 0; r < rows; r++) {
      if (defs[r] === 0) nulls++;
      else this.encode(plain, values[indexes[k++]!]);
      if (plain.pos >= this.pageBytes) this.flushPage(r + 1, nulls);
    }
    this.index = undefined;
  }

  /**
   * Whether the dictionary is given up before a new distinct value, `seen` non-NULL
   * values in: at its limit; and, when the column's previous chunk went PLAIN, once past
   * `DICTIONARY_PROBE` distinct values that are more than half of those seen (ids, notes,
   * codes: filling the map up to the limit in every chunk costs about as much as the
   * chunk's strings themselves). A column whose chunks win their dictionary keeps it up to
   * the limit, however its values are ordered.
   */
  private dictionaryLost(seen: number): boolean {
    const distinct = this.dictValues.length;
    return (
      distinct >= this.dictionaryLimit ||
      (this.plainBefore && distinct >= DICTIONARY_PROBE && 2 * distinct > seen)
    );
  }

  /** Writes the chunk at the writer's offset, returns its metadata, and starts an empty chunk. */
  writeTo(writer: Writer): WrittenChunk {
    const start = writer.offset;
    const compress = this.out.compress;
    const n = this.rows;
    const nonNull = n - this.nulls;
    const dict =
      this.index !== undefined &&
      nonNull >= 16 &&
      this.dictValues.length <= nonNull * DICTIONARY_SHARE;
    this.plainBefore = !dict; // read only by columns that keep a dictionary
    if (!dict && this.index !== undefined) this.spill(n); // kept, but it does not pay
    let uncompressed = 0;
    let dictionaryOffset: bigint | undefined;
    let values: Buffer = this.plain.bytes();
    if (dict) {
      const d = this.dictPage;
      d.pos = 0;
      d.bits = 0;
      d.ascii = true;
      for (const v of this.dictValues) this.encode(d, v);
      dictionaryOffset = BigInt(writer.offset);
      uncompressed += writePage(writer, d.bytes(), compress, {
        type: "DICTIONARY_PAGE",
        uncompressed_page_size: d.pos,
        compressed_page_size: 0,
        dictionary_page_header: { num_values: this.dictValues.length, encoding: "PLAIN" },
      });
      const idx = this.indexPage;
      idx.pos = 0;
      const used = this.indexes.subarray(0, nonNull);
      const maxIndex = this.dictValues.length - 1;
      const bitWidth = maxIndex <= 0 ? 0 : 32 - Math.clz32(maxIndex);
      idx.buf[idx.pos++] = bitWidth;
      writeRleBitPackedHybrid(levelWriter(idx, true), used, bitWidth);
      values = idx.bytes();
    }
    const dataOffset = BigInt(writer.offset);
    // A dictionary chunk never has pages written before (they are written once it is PLAIN).
    writer.appendBytes(this.pages.getBytes());
    uncompressed += this.pagesUncompressed;
    if (this.rows > this.pageRow || this.pages.index === 0)
      uncompressed += this.dataPage(writer, values, dict);
    const statistics: WrittenChunk["meta_data"]["statistics"] = { null_count: BigInt(this.nulls) };
    // JavaScript orders strings by UTF-16 units, Parquet by UTF-8 bytes: they agree on ASCII.
    const exact =
      this.col.physical !== "BYTE_ARRAY" || (dict ? this.dictPage.ascii : this.plain.ascii);
    if (exact && this.min !== undefined) {
      statistics.min_value = this.statistic(this.min);
      statistics.max_value = this.statistic(this.max);
    }
    const chunk: WrittenChunk = {
      file_offset: BigInt(start),
      meta_data: {
        type: this.col.physical,
        encodings: dict ? ["PLAIN", "RLE", "RLE_DICTIONARY"] : ["PLAIN", "RLE"],
        path_in_schema: [this.col.name],
        codec: this.out.codec,
        num_values: BigInt(n),
        total_compressed_size: BigInt(writer.offset - start),
        total_uncompressed_size: BigInt(uncompressed),
        data_page_offset: dataOffset,
        ...(dictionaryOffset !== undefined ? { dictionary_page_offset: dictionaryOffset } : {}),
        statistics,
      },
    };
    this.reset();
    return chunk;
  }

  /** A min/max in the form hyparquet-writer's footer takes: bigints for 64-bit and decimals. */
  private statistic(v: unknown): unknown {
    if (this.col.physical === "BOOLEAN") return v === 1;
    if (this.col.physical === "INT64" || this.col.scale !== undefined) return BigInt(v as number);
    return v;
  }

  private reset(): void {
    this.plain.pos = 0;
    this.plain.bits = 0;
    this.plain.ascii = true;
    this.rows = 0;
    this.nulls = 0;
    this.pageRow = 0;
    this.pageNulls = 0;
    this.pages.index = 0;
    this.pages.offset = 0;
    this.pagesUncompressed = 0;
    this.pagesValueBytes = 0;
    this.min = undefined;
    this.max = undefined;
    this.index = this.dictionaryKind ? new Map() : undefined;
    this.dictValues = [];
    this.dictChars = 0;
    this.lastValue = undefined;
  }
}

function grow<T extends Uint8Array | Int32Array>(a: T): T {
  const next = new (a.constructor as new (n: number) => T)(a.length * 2);
  next.set(a);
  return next;
}

/** Writes a page (its compressed size filled in here); returns its uncompressed size. */
function writePage(
  writer: Writer,
  raw: Buffer,
  compress: Compressor | undefined,
  header: PageHeader,
): number {
  const body = compress ? compress(raw) : raw;
  const headerStart = writer.offset;
  writePageHeader(writer, { ...header, compressed_page_size: body.length });
  const headerSize = writer.offset - headerStart;
  writer.appendBytes(body);
  return headerSize + raw.length;
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
