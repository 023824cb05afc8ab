/**
 * SPEC §7.2: the binary COPY parser gives the same rows however the stream is cut
 * into messages (header, rows and trailer split anywhere), and refuses a stream that
 * is not binary COPY with a clear source error.
 */
import { describe, expect, it } from "vitest";
import { csvRenderer } from "../../../encoders/csv.js";
import { CsvBatcher, ValueBatcher } from "./batcher.js";
import { copyDecoders, copyTarget } from "./codecs.js";
import { BinaryCopyParser } from "./parser.js";
import type { CsvLines, Row } from "../source.js";
import { safeInteger } from "../../../encoders/values.js";

/** A binary COPY stream of (int4, text, int8) rows; null fields are NULL. */
function stream(rows: (readonly [number | null, string | null, bigint | null])[]): Buffer {
  const parts: Buffer[] = [Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(8)];
  const field = (b: Buffer | null) => {
    const len = Buffer.alloc(4);
    len.writeInt32BE(b === null ? -1 : b.length);
    parts.push(len);
    if (b) parts.push(b);
  };
  for (const [i, s, l] of rows) {
    const count = Buffer.alloc(2);
    count.writeInt16BE(3);
    parts.push(count);
    field(i === null ? null : Buffer.from([i >>> 24, (i >>> 16) & 255, (i >>> 8) & 255, i & 255]));
    field(s === null ? null : Buffer.from(s, "utf8"));
    const b8 = Buffer.alloc(8);
    if (l !== null) b8.writeBigInt64BE(l);
    field(l === null ? null : b8);
  }
  parts.push(Buffer.from([0xff, 0xff]));
  return Buffer.concat(parts);
}

const FIELDS = [
  { name: "i", dataTypeID: 23 },
  { name: "s", dataTypeID: 25 },
  { name: "l", dataTypeID: 20 },
];

function parse(chunks: Buffer[]): { rows: Row[]; ended: boolean } {
  const rows: Row[] = [];
  const batcher = new ValueBatcher(copyDecoders(FIELDS, false, [])!, 7, (b) => rows.push(...b));
  const parser = new BinaryCopyParser(FIELDS.length, batcher);
  for (const c of chunks) parser.push(c);
  batcher.flush();
  return { rows, ended: parser.ended };
}

/** The same stream as CSV lines (batches of 7 rows), joined. */
function parseCsv(chunks: Buffer[]): string {
  const out: Buffer[] = [];
  const target = copyTarget(FIELDS, { batchSize: 7, csvLines: true });
  if (!target || !("csv" in target)) throw new Error("expected a CSV target");
  const batcher = new CsvBatcher(target.csv, 7, (b: CsvLines) => out.push(Buffer.from(b.bytes)));
  const parser = new BinaryCopyParser(FIELDS.length, batcher);
  for (const c of chunks) parser.push(c);
  batcher.flush();
  return Buffer.concat(out).toString("utf8");
}

describe("binary COPY parser", () => {
  const data = Array.from(
    { length: 200 },
    (_, k) =>
      [
        k % 7 === 0 ? null : k * 1000 - 50_000,
        k % 5 === 0 ? null : "ü✓".repeat(k % 9) + String(k),
        k % 3 === 0 ? null : BigInt(k) * 9_007_199_254_741n - 1n,
      ] as const,
  );
  const whole = stream(data);
  // int64 values: a number when safe, else a bigint.
  const expected = data.map(([i, s, l]) => [i, s, l === null ? null : safeInteger(l)]);

  it("one message, or every cut point, or random cuts: the same rows, and the trailer seen", () => {
    expect(parse([whole])).toEqual({ rows: expected, ended: true });
    for (let cut = 1; cut < 120; cut++)
      expect(parse([whole.subarray(0, cut), whole.subarray(cut)])).toEqual({
        rows: expected,
        ended: true,
      });
    for (let round = 0; round < 50; round++) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < whole.length;) {
        const size = 1 + Math.floor(Math.random() * 40);
        chunks.push(Buffer.from(whole.subarray(at, at + size)));
        at += size;
      }
      expect(parse(chunks)).toEqual({ rows: expected, ended: true });
    }
  });

  it("CSV lines from the bytes equal the CSV renderer's lines of the decoded text values, at every cut", () => {
    const render = csvRenderer([
      { name: "i", kind: "int32", sourceType: "integer" },
      { name: "s", kind: "string", sourceType: "text" },
      { name: "l", kind: "int64", sourceType: "bigint" },
    ]);
    const rows: Row[] = [];
    const batcher = new ValueBatcher(copyDecoders(FIELDS, true, [])!, 1000, (b) => rows.push(...b));
    new BinaryCopyParser(FIELDS.length, batcher).push(whole);
    batcher.flush();
    const expectedCsv = rows.map(render).join("");
    expect(expectedCsv.split("\r\n").length).toBe(201);
    expect(parseCsv([whole])).toBe(expectedCsv);
    for (let cut = 1; cut < 120; cut += 7)
      expect(parseCsv([whole.subarray(0, cut), whole.subarray(cut)])).toBe(expectedCsv);
  });

  it("text values are their bytes' text whatever the column's text cache holds", () => {
    // A column that repeats a few values (the cache serves them), values that differ only
    // in their last byte or in length, non-ASCII text, values longer than the cache keeps,
    // more distinct values than it has room for, then a run of unique values long enough
    // to turn it off, and the first values again after that.
    const texts = [
      ...Array.from(
        { length: 3000 },
        (_, g) => ["paid", "new", "shipped", "ne", "neu", "pa"][g % 6]!,
      ),
      ...["héllo ✓", "héllo ✗", "😀", "", "x".repeat(40), "x".repeat(41), "x".repeat(32)],
      ...Array.from({ length: 40 }, (_, g) => `slot-${g % 20}`),
      ...Array.from({ length: 5000 }, (_, g) => `unique-${g}`),
      ...["paid", "new", "héllo ✓", "slot-3"],
    ];
    const rows = texts.map((t, g) => [g, t, null] as const);
    const expected = rows.map(([i, t]) => [i, t, null]);
    expect(parse([stream(rows)]).rows).toEqual(expected);
    // Every cut point of the same stream reads the same values (a fresh cache per query).
    const whole = stream(rows.slice(0, 200));
    for (let cut = 1; cut < whole.length; cut += 97)
      expect(parse([whole.subarray(0, cut), whole.subarray(cut)]).rows).toEqual(
        expected.slice(0, 200),
      );
  });

  it("a stream without the PGCOPY signature is a source error", () => {
    const bad = Buffer.from(whole);
    bad[0] = 0x51;
    expect(() => parse([bad])).toThrow(/malformed binary COPY stream \(no PGCOPY signature\)/);
  });

  it("a row with the wrong field count is a source error", () => {
    const bad = Buffer.from(whole);
    bad.writeInt16BE(4, 19); // the first row's field count
    expect(() => parse([bad])).toThrow(/a row of 4 fields, expected 3/);
  });
});
