/**
 * SPEC §7.2: Parquet column chunks written by `parquet-chunk.ts` read back exactly,
 * in this project's reader (hyparquet) and in an independent, strict one (arrow-rs,
 * through parquet-wasm), for every column kind, NULLs, dictionary and PLAIN columns
 * and every codec; statistics are present and right where byte order and JavaScript
 * order agree, and absent elsewhere.
 */
import { describe, expect, it } from "vitest";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { parquetHeader } from "hyparquet/src/column.js";
import { compressors } from "hyparquet-compressors";
import { readParquet } from "parquet-wasm";
import { tableFromIPC } from "apache-arrow";
import type { ColumnSpec, Row } from "./columns.js";
import { ByteWriter } from "hyparquet-writer";
import { writeMetadata } from "./hyparquet-internals.js";
import { createFormat, type Compression, type FormatOptions } from "./format.js";
import { Footer } from "./parquet.js";

const columns: ColumnSpec[] = [
  { name: "i64", kind: "int64", sourceType: "bigint" },
  { name: "i32", kind: "int32", sourceType: "integer" },
  { name: "f", kind: "float64", sourceType: "double precision" },
  { name: "b", kind: "bool", sourceType: "boolean" },
  { name: "cur", kind: "string", sourceType: "text" },
  { name: "uniq", kind: "string", sourceType: "text" },
  { name: "d9", kind: "decimal", sourceType: "numeric(9,2)", precision: 9, scale: 2 },
  { name: "d18", kind: "decimal", sourceType: "numeric(18,4)", precision: 18, scale: 4 },
  { name: "d38", kind: "decimal", sourceType: "numeric(38,10)", precision: 38, scale: 10 },
  { name: "loose", kind: "decimal", sourceType: "numeric" },
  { name: "j", kind: "json", sourceType: "jsonb" },
  { name: "by", kind: "bytes", sourceType: "bytea" },
  { name: "dt", kind: "date", sourceType: "date" },
  { name: "ts", kind: "timestamp", sourceType: "timestamp" },
  { name: "tz", kind: "timestamptz", sourceType: "timestamptz" },
  { name: "none", kind: "string", sourceType: "text" },
];

const N = 2500;
const GROUP = 1000;
/** Rows 0–999 hold ASCII text only in `cur`; later groups add non-ASCII values. */
function row(g: number): Row {
  const cur = g < GROUP ? ["EUR", "USD", "GBP"][g % 3]! : ["EUR", "héllo ✓", "😀"][g % 3]!;
  return [
    g % 11 === 0 ? null : BigInt(g) * 1_000_000_007n - 5_000_000_000_000n,
    g % 13 === 0 ? null : (g % 7) - 3,
    g % 17 === 0 ? NaN : g / 3,
    g % 5 === 0 ? null : g % 2 === 0,
    g % 9 === 0 ? null : cur,
    `unique-${g}`,
    g % 4 === 0 ? null : (((g % 2000) - 1000) / 100).toFixed(2),
    (((g * 7919) % 100_000_000) / 10_000 - 4000).toFixed(4),
    g % 3 === 0 ? "-12345678901234567890123456.1234567891" : "0.0000000001",
    "3.14159265358979323846264338327950288",
    JSON.stringify({ a: g, s: "✓" }),
    g % 6 === 0 ? null : Buffer.from([g & 255, 0, 1]),
    g - 1000,
    BigInt(g) * 3_600_000_000n - 100_000_000_001n,
    BigInt(g) * 1_000_001n,
    null,
  ];
}
const rows = Array.from({ length: N }, (_, g) => row(g));

/** `pageBytes`: small pages make every PLAIN chunk many pages (`DEFAULT_PAGE_BYTES` otherwise). */
async function encode(compression: Compression, pageBytes?: number): Promise<Buffer> {
  const f = await createFormat({
    format: "parquet",
    compression,
    rowGroupRows: GROUP,
    ...(pageBytes !== undefined ? { pageBytes } : {}),
  });
  const parts: Buffer[] = [];
  const enc = await f.createEncoder(columns, {
    write: async (c: Uint8Array) => void parts.push(Buffer.from(c)),
  });
  for (let i = 0; i < N; i += 400) await enc.write(rows.slice(i, i + 400));
  await enc.finish();
  return Buffer.concat(parts);
}

const asArrayBuffer = (b: Buffer) =>
  b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer;
const unscaledDigits = (text: string, scale: number) => {
  const [int = "", frac = ""] = text.replace("-", "").split(".");
  const digits = (int + frac.padEnd(scale, "0")).replace(/^0+(?=\d)/, "");
  return (text.startsWith("-") ? "-" : "") + digits;
};

/** A whole file of `rows` (columns `cols`) written `batch` rows at a time, as an ArrayBuffer. */
async function fileOf(
  cols: ColumnSpec[],
  rows: Row[],
  options: Omit<FormatOptions, "format">,
  batch = rows.length,
): Promise<ArrayBuffer> {
  const f = await createFormat({ format: "parquet", ...options });
  const parts: Buffer[] = [];
  const enc = await f.createEncoder(cols, {
    write: async (c: Uint8Array) => void parts.push(Buffer.from(c)),
  });
  for (let i = 0; i < rows.length; i += batch) await enc.write(rows.slice(i, i + batch));
  await enc.finish();
  return asArrayBuffer(Buffer.concat(parts));
}

type PageHeader = ReturnType<typeof parquetHeader>;

/** The page headers of each column chunk of row group `g`. */
function pageHeadersOf(file: ArrayBuffer, g: number): Record<string, PageHeader[]> {
  const out: Record<string, PageHeader[]> = {};
  for (const chunk of parquetMetadata(file).row_groups[g]!.columns) {
    const m = chunk.meta_data!;
    const start = Number(m.dictionary_page_offset ?? m.data_page_offset);
    const end = start + Number(m.total_compressed_size);
    const reader = { view: new DataView(file), offset: start };
    const headers: PageHeader[] = [];
    while (reader.offset < end) {
      const header = parquetHeader(reader);
      headers.push(header);
      reader.offset += header.compressed_page_size;
    }
    expect(reader.offset).toBe(end);
    out[m.path_in_schema[0]!] = headers;
  }
  return out;
}

/** The page types of each column chunk of row group `g`, read from the page headers. */
function pagesOf(file: ArrayBuffer, g: number): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(pageHeadersOf(file, g)).map(([k, hs]) => [k, hs.map((h) => h.type)]),
  );
}

describe("Parquet column chunks (SPEC §7.2)", () => {
  it.each([
    ["zstd", undefined],
    ["snappy", undefined],
    ["gzip", undefined],
    ["none", undefined],
    ["zstd", 256],
    ["none", 100],
  ] as const)(
    "%s (pages of %s bytes): arrow-rs reads every kind and every NULL back exactly",
    async (compression, pageBytes) => {
      const table = tableFromIPC(readParquet(await encode(compression, pageBytes)).intoIPCStream());
      expect(table.numRows).toBe(N);
      const col = (name: string) => table.getChild(name)!;
      for (const [i, c] of columns.entries()) {
        const expectedNulls = rows.filter((r) => r[i] === null).length;
        expect([c.name, col(c.name).nullCount]).toEqual([c.name, expectedNulls]);
      }
      for (let g = 0; g < N; g += 7) {
        const r = rows[g]!;
        const got = (name: string) => col(name).get(g) as unknown;
        expect(got("i64")).toBe(r[0]);
        expect(got("i32")).toBe(r[1]);
        expect(Number.isNaN(r[2]) ? Number.isNaN(got("f")) : got("f") === r[2]).toBe(true);
        expect(got("b")).toBe(r[3]);
        expect(got("cur")).toBe(r[4]);
        expect(got("uniq")).toBe(r[5]);
        for (const [name, at, scale] of [
          ["d9", 6, 2],
          ["d18", 7, 4],
          ["d38", 8, 10],
        ] as const) {
          const v = got(name);
          expect(v === null ? null : String(v).replace(/"/g, "")).toBe(
            r[at] === null ? null : unscaledDigits(r[at] as string, scale),
          );
        }
        expect(got("loose")).toBe(r[9]);
        expect(got("j")).toBe(r[10]);
        const by = got("by") as Uint8Array | null;
        expect(by === null ? null : [...by]).toEqual(
          r[11] === null ? null : [...(r[11] as Buffer)],
        );
        expect(got("dt")).toBe((r[12] as number) * 86_400_000);
        expect(got("none")).toBeNull();
      }
      // Arrow JS hands timestamps out in milliseconds: compare the microseconds underneath.
      for (const [name, at] of [
        ["ts", 13],
        ["tz", 14],
      ] as const) {
        const micros = col(name).data.flatMap((d) => [...(d.values as BigInt64Array)]);
        expect(micros).toEqual(rows.map((r) => r[at]));
      }
    },
  );

  it("§7.2 a finished encoder's buffers serve the next ones: files encoded one after another and alongside are byte-identical", async () => {
    const many = Array.from({ length: 30_000 }, (_, g) => row(g)); // buffers past 64 KiB: kept
    const file = async (meanwhile?: () => Promise<void>) => {
      const f = await createFormat({ format: "parquet", compression: "zstd", rowGroupRows: 9000 });
      const parts: Buffer[] = [];
      const enc = await f.createEncoder(columns, {
        write: async (c: Uint8Array) => void parts.push(Buffer.from(c)),
      });
      for (let i = 0; i < many.length; i += 1000) {
        await enc.write(many.slice(i, i + 1000));
        if (i === 12_000) await meanwhile?.();
      }
      await enc.finish();
      return Buffer.concat(parts);
    };
    const first = await file();
    const inner: Buffer[] = [];
    // One encoder half-way while two others start, finish and hand their buffers on.
    const outer = await file(async () => {
      inner.push(await file());
      inner.push(await file());
    });
    const after = await file();
    for (const f of [outer, ...inner, after]) expect(f.equals(first)).toBe(true);
    const table = tableFromIPC(readParquet(after).intoIPCStream());
    expect(table.numRows).toBe(many.length);
    expect(table.getChild("uniq")!.get(29_999)).toBe("unique-29999");
  });

  it("§7.2 a PLAIN chunk is cut into pages of about pageBytes; a dictionary chunk is one page after its dictionary", async () => {
    const small = pagesOf(asArrayBuffer(await encode("zstd", 1024)), 0);
    // `uniq`: 1,000 values of ~14 bytes (14 KB), checked for a page every 64 rows (~0.9 KB):
    // PLAIN once its dictionary is given up (250 distinct values), then a page every two runs.
    expect(small.uniq!.length).toBeGreaterThanOrEqual(5);
    expect(new Set(small.uniq)).toEqual(new Set(["DATA_PAGE_V2"]));
    expect(small.cur).toEqual(["DICTIONARY_PAGE", "DATA_PAGE_V2"]);
    expect(small.none).toEqual(["DATA_PAGE_V2"]); // only NULLs: no values to cut
    const whole = pagesOf(asArrayBuffer(await encode("zstd")), 0);
    for (const name of ["uniq", "i64", "j", "by"]) expect(whole[name]).toEqual(["DATA_PAGE_V2"]);
  });

  it.each([undefined, 256])(
    "hyparquet reads every value back exactly (pages of %s bytes)",
    async (pageBytes) => {
      const file = asArrayBuffer(await encode("zstd", pageBytes));
      const parsers = {
        timestampFromMicroseconds: (m: bigint) => m,
        // The JSON column's text as written (the default parser would parse it, losing int64 digits).
        jsonFromBytes: (b: Uint8Array) => b,
        dateFromDays: (d: number) => d,
      } as never;
      const back = await parquetReadObjects({ file, compressors, utf8: false, parsers });
      expect(back.length).toBe(N);
      const text = (v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString() : v);
      back.forEach((o, g) => {
        const r = rows[g]!;
        expect([g, o.i64, o.i32, o.b, text(o.cur), text(o.uniq), text(o.loose), text(o.j)]).toEqual(
          [g, r[0], r[1], r[3], r[4], r[5], r[9], r[10]],
        );
        expect([o.dt, o.ts, o.tz]).toEqual([r[12], r[13], r[14]]);
        expect(o.d9).toBe(r[6] === null ? null : Number(r[6]));
      });
    },
  );

  it("statistics: exact min/max and null counts where byte and JavaScript order agree; none elsewhere", async () => {
    const meta = parquetMetadata(asArrayBuffer(await encode("zstd")));
    expect(meta.row_groups.length).toBe(3);
    meta.row_groups.forEach((rg, k) => {
      const slice = rows.slice(k * GROUP, (k + 1) * GROUP);
      const stats = (name: string) =>
        rg.columns.find((c) => c.meta_data!.path_in_schema[0] === name)!.meta_data!.statistics!;
      const at = (name: string) => columns.findIndex((c) => c.name === name);
      const present = (name: string) => slice.map((r) => r[at(name)]).filter((v) => v !== null);
      const nulls = (name: string) => BigInt(slice.length - present(name).length);
      for (const c of columns)
        expect([c.name, stats(c.name).null_count]).toEqual([c.name, nulls(c.name)]);
      const i64 = present("i64") as bigint[];
      expect([stats("i64").min_value, stats("i64").max_value]).toEqual([
        i64.reduce((a, b) => (b < a ? b : a)),
        i64.reduce((a, b) => (b > a ? b : a)),
      ]);
      expect([stats("i32").min_value, stats("i32").max_value]).toEqual([-3, 3]);
      const f = (present("f") as number[]).filter((v) => !Number.isNaN(v));
      expect([stats("f").min_value, stats("f").max_value]).toEqual([
        Math.min(...f),
        Math.max(...f),
      ]);
      expect([stats("b").min_value, stats("b").max_value]).toEqual([false, true]);
      // hyparquet turns timestamp bounds into Dates (milliseconds).
      const ts = present("ts") as bigint[];
      const ms = (v: unknown) => (v as Date).getTime();
      const toMs = (us: bigint) => Number(us / 1000n); // as hyparquet converts them
      expect([ms(stats("ts").min_value), ms(stats("ts").max_value)]).toEqual([
        toMs(ts[0]!),
        toMs(ts[ts.length - 1]!),
      ]);
      // Only the first group's `cur` values are all ASCII.
      if (k === 0) expect([stats("cur").min_value, stats("cur").max_value]).toEqual(["EUR", "USD"]);
      else expect(stats("cur").min_value).toBeUndefined();
      for (const name of ["j", "by", "d38", "none"]) expect(stats(name).min_value).toBeUndefined();
    });
  });

  it("low-cardinality columns get a dictionary page, unique ones stay PLAIN", async () => {
    const meta = parquetMetadata(asArrayBuffer(await encode("zstd")));
    const encodings = (name: string) =>
      meta.row_groups[0]!.columns.find((c) => c.meta_data!.path_in_schema[0] === name)!.meta_data!
        .encodings;
    expect(encodings("cur")).toContain("RLE_DICTIONARY");
    expect(encodings("i32")).toContain("RLE_DICTIONARY");
    expect(encodings("uniq")).not.toContain("RLE_DICTIONARY");
    expect(encodings("i64")).not.toContain("RLE_DICTIONARY");
  });

  it("a column declared without a dictionary stays PLAIN however much it repeats, and reads back", async () => {
    const cols: ColumnSpec[] = [
      { name: "on", kind: "string", sourceType: "text" },
      { name: "off", kind: "string", sourceType: "text", dictionary: false },
    ];
    const values = Array.from({ length: 2000 }, (_, i) => [`v${i % 3}`, `v${i % 3}`]);
    const file = await fileOf(cols, values, { compression: "zstd" });
    const chunks = parquetMetadata(file).row_groups[0]!.columns;
    const encodings = (name: string) =>
      chunks.find((c) => c.meta_data!.path_in_schema[0] === name)!.meta_data!.encodings;
    expect(encodings("on")).toContain("RLE_DICTIONARY");
    expect(encodings("off")).not.toContain("RLE_DICTIONARY");
    const back = await parquetReadObjects({ file, compressors });
    expect(back.map((r) => [r.on, r.off])).toEqual(values);
  });

  it("a dictionary kept to the end that does not pay is written PLAIN from its values (strings and INT32)", async () => {
    // 300 rows of a 10,000-row group: 300 distinct values stay under the dictionary's limit
    // (2,500) but are more than a quarter of the values, so the chunk is PLAIN at the end.
    const cols: ColumnSpec[] = [
      { name: "s", kind: "string", sourceType: "text" },
      { name: "n", kind: "int32", sourceType: "integer" },
    ];
    const values: Row[] = Array.from({ length: 300 }, (_, i) => [
      i % 7 === 0 ? null : `v-${i}-é`,
      i % 5 === 0 ? null : i - 150,
    ]);
    const file = await fileOf(cols, values, { compression: "zstd" }, 64);
    const chunks = parquetMetadata(file).row_groups[0]!.columns;
    for (const c of chunks) expect(c.meta_data!.encodings).not.toContain("RLE_DICTIONARY");
    const back = await parquetReadObjects({ file, compressors });
    expect(back.map((r) => [r.s, r.n])).toEqual(values);
    const stats = chunks[1]!.meta_data!.statistics!;
    expect([stats.min_value, stats.max_value, stats.null_count]).toEqual([-149, 149, 60n]);
  });

  it("§7.2 a dictionary given up late is written as pages of about pageBytes, not one page of everything before", async () => {
    // Row groups of 4,000 rows (dictionary limit 1,000 values): a new value every third row
    // (and a NULL every eleventh) reaches the limit ~3,000 rows in; those rows are spilled
    // PLAIN from the dictionary, into pages like any PLAIN values.
    const cols: ColumnSpec[] = [{ name: "s", kind: "string", sourceType: "text" }];
    const values: Row[] = Array.from({ length: 4000 }, (_, i) => [
      i % 11 === 0 ? null : `value-${Math.floor(i / 3)}`,
    ]);
    const pageBytes = 2048;
    const file = await fileOf(
      cols,
      values,
      { compression: "none", rowGroupRows: 4000, pageBytes },
      500,
    );
    const pages = pageHeadersOf(file, 0).s!;
    for (const p of pages) {
      expect(p.type).toBe("DATA_PAGE_V2");
      // A page ends at the first row that reaches pageBytes: one value (≤ 16 bytes) and levels over.
      expect(p.uncompressed_page_size).toBeLessThanOrEqual(pageBytes + 16 + 64);
    }
    expect(pages.length).toBeGreaterThanOrEqual(20); // ~50 KB of values
    const back = await parquetReadObjects({ file, compressors });
    expect(back.map((r) => [r.s])).toEqual(values);
  });

  it("a dictionary that wins is kept to its limit; a column that lost it gives it up early", async () => {
    // Row groups of 10,000 rows (dictionary limit 2,500 values). `cycle` repeats 1,000 values
    // in order: more than half of its first 1,024 values are distinct, yet its dictionary
    // wins in every group. `ids` never repeats: PLAIN in every group.
    const cols: ColumnSpec[] = [
      { name: "cycle", kind: "string", sourceType: "text" },
      { name: "ids", kind: "string", sourceType: "text" },
      { name: "n", kind: "int32", sourceType: "integer" },
    ];
    const all: Row[] = Array.from({ length: 30_000 }, (_, g) => [
      `v${g % 1000}`,
      `id-${g}`,
      g % 1000,
    ]);
    const file = await fileOf(cols, all, { compression: "none" }, 2000);
    const meta = parquetMetadata(file);
    expect(meta.row_groups).toHaveLength(3);
    for (const group of meta.row_groups) {
      const encodings = (name: string) =>
        group.columns.find((c) => c.meta_data!.path_in_schema[0] === name)!.meta_data!.encodings;
      expect(encodings("cycle")).toContain("RLE_DICTIONARY");
      expect(encodings("n")).toContain("RLE_DICTIONARY");
      expect(encodings("ids")).not.toContain("RLE_DICTIONARY");
    }
    const back = await parquetReadObjects({ file, compressors });
    expect(back.map((r) => [r.cycle, r.ids, r.n])).toEqual(all);
  });

  it("the footer gathered group by group is byte for byte the one hyparquet-writer writes at once", () => {
    const schema = [
      { name: "root", num_children: 2 },
      { name: "n", type: "INT32", repetition_type: "OPTIONAL" },
      { name: "s", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" },
    ] as Parameters<typeof writeMetadata>[1]["schema"];
    const kv = [{ key: "stowage.columns", value: "[]" }];
    const group = (k: number) => {
      const chunk = (name: string, type: string, min: unknown, max: unknown, at: number) => ({
        file_offset: BigInt(at),
        meta_data: {
          type,
          encodings: ["PLAIN", "RLE"],
          path_in_schema: [name],
          codec: "ZSTD",
          num_values: BigInt(100 + k),
          total_compressed_size: BigInt(50 + k),
          total_uncompressed_size: BigInt(80 + k),
          data_page_offset: BigInt(at),
          ...(k % 2 ? { dictionary_page_offset: BigInt(at) } : {}),
          statistics: { null_count: BigInt(k % 3), min_value: min, max_value: max },
        },
      });
      return {
        columns: [
          chunk("n", "INT32", -k, k * 1000, 4 + k * 130),
          chunk("s", "BYTE_ARRAY", `a${k}`, `z${k}`, 60 + k * 130),
        ],
        total_byte_size: BigInt(160 + k),
        num_rows: BigInt(100 + k),
        total_compressed_size: BigInt(100 + k),
      };
    };
    for (const count of [0, 1, 3, 14, 15, 40, 300]) {
      const groups = Array.from({ length: count }, (_, k) => group(k));
      const numRows = groups.reduce((a, g) => a + g.num_rows, 0n);
      const footer = new Footer(schema, kv, "stowage");
      for (const g of groups) footer.add(g as unknown as Parameters<Footer["add"]>[0]);
      const ours = new ByteWriter();
      footer.writeTo(ours, numRows);
      const theirs = new ByteWriter();
      writeMetadata(theirs, {
        version: 2,
        created_by: "stowage",
        schema,
        num_rows: numRows,
        row_groups: groups,
        key_value_metadata: kv,
      } as unknown as Parameters<typeof writeMetadata>[1]);
      theirs.appendUint32(0x31524150);
      expect([count, Buffer.from(ours.getBytes())]).toEqual([
        count,
        Buffer.from(theirs.getBytes()),
      ]);
    }
  });

  it("a file of many row groups (more than a short thrift list holds) reads back whole", async () => {
    const f = await createFormat({ format: "parquet", compression: "zstd", rowGroupRows: 40 });
    const parts: Buffer[] = [];
    const enc = await f.createEncoder(columns, {
      write: async (c: Uint8Array) => void parts.push(Buffer.from(c)),
    });
    for (let i = 0; i < N; i += 400) await enc.write(rows.slice(i, i + 400));
    await enc.finish();
    const file = Buffer.concat(parts);
    const meta = parquetMetadata(asArrayBuffer(file));
    expect(meta.row_groups.length).toBe(Math.ceil(N / 40));
    expect(meta.num_rows).toBe(BigInt(N));
    const table = tableFromIPC(readParquet(file).intoIPCStream());
    expect(table.numRows).toBe(N);
    expect([...table.getChild("uniq")!].map(String)).toEqual(rows.map((r) => r[5]));
    const back = await parquetReadObjects({
      file: asArrayBuffer(file),
      compressors,
      columns: ["i32"],
    });
    expect(back.map((o) => o.i32)).toEqual(rows.map((r) => r[1]));
  });
});
