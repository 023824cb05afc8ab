import { describe, expect, it } from "vitest";
import { gunzipSync } from "node:zlib";
import { parquetReadObjects, parquetMetadata } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import type { ColumnSpec, Row } from "./columns.js";
import { createFormat, type ByteSink, type Compression } from "./format.js";

const columns: ColumnSpec[] = [
  { name: "id", kind: "int64", sourceType: "bigint" },
  { name: "small", kind: "int32", sourceType: "integer" },
  { name: "price", kind: "decimal", sourceType: "numeric(12,2)", precision: 12, scale: 2 },
  { name: "big", kind: "decimal", sourceType: "numeric(30,5)", precision: 30, scale: 5 },
  { name: "loose", kind: "decimal", sourceType: "numeric" },
  { name: "ok", kind: "bool", sourceType: "boolean" },
  { name: "note", kind: "string", sourceType: "text" },
  { name: "blob", kind: "bytes", sourceType: "bytea" },
  { name: "doc", kind: "json", sourceType: "jsonb" },
  { name: "at", kind: "timestamptz", sourceType: "timestamptz" },
  { name: "wall", kind: "timestamp", sourceType: "timestamp" },
  { name: "day", kind: "date", sourceType: "date" },
  { name: "ratio", kind: "float64", sourceType: "double precision" },
];

function row(i: number): Row {
  return [
    9007199254740993n + BigInt(i),
    i,
    `${i}.25`,
    `-123456789012345678901234.${String(i).padStart(5, "0")}`,
    "3.14159265358979323846264338327950288",
    i % 2 === 0,
    i === 1 ? null : `line "${i}",\nsecond`,
    Buffer.from([0, 1, 2, i & 255]),
    `{"n": 12345678901234567890, "i": ${i}}`,
    1704161045123456n + BigInt(i),
    -1000001n,
    19723 + i,
    i / 3,
  ];
}

class Collect implements ByteSink {
  chunks: Buffer[] = [];
  async write(c: Uint8Array) {
    this.chunks.push(Buffer.from(c));
  }
  get bytes() {
    return Buffer.concat(this.chunks);
  }
}

async function encode(
  format: "parquet" | "csv" | "ndjson",
  compression: Compression,
  rows: Row[],
  opts = {},
) {
  const f = await createFormat({ format, compression, ...opts });
  const sink = new Collect();
  const enc = await f.createEncoder(columns, sink);
  for (let i = 0; i < rows.length; i += 100) await enc.write(rows.slice(i, i + 100));
  await enc.finish();
  return { f, enc, bytes: sink.bytes, sink };
}

const rows = Array.from({ length: 1000 }, (_, i) => row(i));

describe("formats", () => {
  for (const compression of ["zstd", "snappy", "gzip", "none"] as const) {
    it(`§7.2 parquet (${compression}) reads back exactly in hyparquet`, async () => {
      const { bytes } = await encode("parquet", compression, rows, { rowGroupRows: 300 });
      const file = bytes.buffer.slice(
        bytes.byteOffset,
        bytes.byteOffset + bytes.length,
      ) as ArrayBuffer;
      const meta = parquetMetadata(file);
      expect(meta.row_groups.length).toBe(4);
      expect(meta.row_groups[0]!.columns[0]!.meta_data!.codec).toBe(
        { zstd: "ZSTD", snappy: "SNAPPY", gzip: "GZIP", none: "UNCOMPRESSED" }[compression],
      );
      const parsers = {
        timestampFromMicroseconds: (m: bigint) => m,
        // The JSON column's text as written (the default parser would parse it, losing int64 digits).
        jsonFromBytes: (b: Uint8Array) => b,
        dateFromDays: (d: number) => d,
      } as never;
      const back = await parquetReadObjects({ file, compressors, utf8: false, parsers });
      expect(back.length).toBe(1000);
      const r = back[2]!;
      expect(r.id).toBe(9007199254740995n);
      expect(r.small).toBe(2);
      expect(r.price).toBe(2.25);
      expect(r.loose).toBe("3.14159265358979323846264338327950288");
      expect(r.ok).toBe(true);
      expect(r.note).toBe('line "2",\nsecond');
      expect(Array.from(r.blob as Uint8Array)).toEqual([0, 1, 2, 2]);
      expect(r.big).toBeCloseTo(-1.2345678901234568e23, -9);
      expect(Buffer.from(r.doc as Uint8Array).toString()).toBe(
        '{"n": 12345678901234567890, "i": 2}',
      );
      expect(r.at).toBe(1704161045123458n);
      expect(r.wall).toBe(-1000001n);
      expect(r.day).toBe(19725);
      expect(r.ratio).toBe(2 / 3);
      expect(back[1]!.note).toBeNull();
      const el = (n: string) => meta.schema.find((e) => e.name === n)!;
      expect(el("at").logical_type).toEqual({
        type: "TIMESTAMP",
        isAdjustedToUTC: true,
        unit: "MICROS",
      });
      expect(el("wall").logical_type).toEqual({
        type: "TIMESTAMP",
        isAdjustedToUTC: false,
        unit: "MICROS",
      });
      expect(el("price")).toMatchObject({
        type: "INT64",
        converted_type: "DECIMAL",
        precision: 12,
        scale: 2,
      });
      expect(el("big")).toMatchObject({ type: "FIXED_LEN_BYTE_ARRAY", precision: 30, scale: 5 });
      // Both annotations: readers that know only converted types read JSON, not BLOB (issue 31 §5).
      expect(el("doc")).toMatchObject({ converted_type: "JSON", logical_type: { type: "JSON" } });
    });
  }

  it("§7.2 CSV is RFC 4180 with header, NULL empty, gzip one member", async () => {
    const { bytes } = await encode("csv", "gzip", rows.slice(0, 3));
    const text = gunzipSync(bytes).toString("utf8");
    const lines = text.split("\r\n");
    expect(lines[0]).toBe("id,small,price,big,loose,ok,note,blob,doc,at,wall,day,ratio");
    expect(text).toContain(',"line ""0"",\nsecond",AAECAA==,');
    expect(text).toContain("2024-01-02T02:04:05.123457Z,1969-12-31T23:59:58.999999,2024-01-02,");
    expect(lines[2]).toContain(",false,,AAECAQ==,");
  });

  it("§7.2 NDJSON keeps int64 digits, decimals as strings, json embedded", async () => {
    const { bytes } = await encode("ndjson", "none", rows.slice(0, 2));
    const lines = bytes.toString("utf8").trimEnd().split("\n");
    expect(lines.length).toBe(2);
    expect(lines[0]).toContain('"id":9007199254740993,');
    expect(lines[0]).toContain('"doc":{"n": 12345678901234567890, "i": 0}');
    const o = JSON.parse(lines[1]!);
    expect(o.price).toBe("1.25");
    expect(o.note).toBeNull();
    expect(o.at).toBe("2024-01-02T02:04:05.123457Z");
  });
});

describe("encoder memory", () => {
  it("§7.2 parquet encoder buffered bytes never exceed its bound", async () => {
    // Row groups are sized by their encoded bytes, so 256 KiB holds a couple of thousand
    // of these rows; smaller groups would make the footer the peak.
    const f = await createFormat({
      format: "parquet",
      compression: "zstd",
      rowGroupBytes: 256 * 1024,
      chunkBytes: 16 * 1024,
    });
    let maxSeen = 0;
    let total = 0;
    const enc = await f.createEncoder(columns, {
      async write(c) {
        total += c.length;
        maxSeen = Math.max(maxSeen, enc.bufferedBytes);
      },
    });
    for (let b = 0; b < 240; b++) {
      await enc.write(Array.from({ length: 500 }, (_, i) => row((b % 80) * 500 + i)));
      maxSeen = Math.max(maxSeen, enc.bufferedBytes);
    }
    await enc.finish();
    expect(total).toBeGreaterThan(3 * 256 * 1024); // the file is several row groups
    expect(enc.peakBufferedBytes).toBeGreaterThan(0);
    expect(maxSeen).toBeLessThanOrEqual(enc.peakBufferedBytes);
    expect(enc.peakBufferedBytes).toBeLessThanOrEqual(enc.boundBytes);
    expect(enc.boundBytes).toBeLessThan(total / 2);
  });

  it("§7.2 CSV gzip encoder buffered bytes never exceed its bound", async () => {
    const f = await createFormat({ format: "csv", compression: "gzip", chunkBytes: 64 * 1024 });
    let total = 0;
    const enc = await f.createEncoder(columns, {
      async write(c) {
        total += c.length;
      },
    });
    for (let b = 0; b < 40; b++)
      await enc.write(Array.from({ length: 500 }, (_, i) => row(b * 500 + i)));
    await enc.finish();
    expect(total).toBeGreaterThan(enc.boundBytes);
    expect(enc.peakBufferedBytes).toBeLessThanOrEqual(enc.boundBytes);
  });
});
