import { describe, expect, it, vi } from "vitest";
import { HourBatcher, type HourBatch, type HourBatcherOptions } from "./hour-batcher.js";

const H10 = Date.UTC(2026, 2, 1, 10);
const H11 = H10 + 3_600_000;

function setup(over: Partial<HourBatcherOptions> = {}) {
  const sealed: HourBatch[] = [];
  let now = 1_000_000;
  const b = new HourBatcher({
    maxBatchBytes: 1000,
    maxBatchRecords: 100,
    flushIntervalMs: 30_000,
    onSeal: (x) => sealed.push(x),
    now: () => now,
    ...over,
  });
  return { b, sealed, advance: (ms: number) => (now += ms) };
}

describe("hour batcher", () => {
  it("§3.4 records at 10:59:59.999 and 11:00:00.000 go to two hour batches", () => {
    const { b, sealed } = setup();
    b.add('{"a":1}', H11 - 1);
    b.add('{"a":2}', H11);
    b.add('{"a":3}', H11 - 500);
    expect(b.openBatches).toBe(2);
    expect(b.sealAll()).toBe(2);
    expect(sealed.map((s) => [s.hourMs, s.records, s.minMs, s.maxMs, s.reason])).toEqual([
      [H10, 2, H11 - 500, H11 - 1, "flush"],
      [H11, 1, H11, H11, "flush"],
    ]);
    expect(sealed[0]!.lines).toEqual(['{"a":1}', '{"a":3}']);
  });

  it("§3.4 seals at maxBatchRecords", () => {
    const { b, sealed } = setup({ maxBatchRecords: 3 });
    for (let i = 0; i < 7; i++) b.add(`{"i":${i}}`, H10 + i);
    expect(sealed.map((s) => [s.records, s.reason])).toEqual([
      [3, "records"],
      [3, "records"],
    ]);
    expect(b.openRecords).toBe(1);
  });

  it("§3.4 seals at maxBatchBytes of decoded NDJSON (newline and UTF-8 included), never above it", () => {
    const { b, sealed } = setup({ maxBatchBytes: 20 });
    b.add("é".repeat(4), H10); // 8 bytes + newline = 9
    b.add("abcdefghi", H10); // 10 → 19 total
    expect(sealed).toHaveLength(0);
    b.add("xy", H10); // 3 more would be 22 > 20: the open batch seals first
    expect(sealed.map((s) => [s.records, s.decodedBytes, s.reason])).toEqual([[2, 19, "bytes"]]);
    b.add("0123456789abcdefg", H10); // 3 + 18 = 21 > 20: [xy] seals, this line opens a new batch (18)
    expect(sealed.map((s) => s.decodedBytes)).toEqual([19, 3]);
    b.add("z", H10); // 18 + 2 = 20 → reaches the cap exactly: sealed at once
    expect(sealed.map((s) => [s.decodedBytes, s.reason])).toEqual([
      [19, "bytes"],
      [3, "bytes"],
      [20, "bytes"],
    ]);
    b.add("w".repeat(50), H10); // larger than the cap: a batch of its own
    expect(sealed.at(-1)).toMatchObject({ records: 1, decodedBytes: 51, reason: "bytes" });
    expect(b.openBatches).toBe(0);
  });

  it("§3.4 seals at flushIntervalMs since the batch opened, via tick() and nextDeadlineMs()", () => {
    const { b, sealed, advance } = setup();
    b.add("a", H10);
    const deadline = b.nextDeadlineMs()!;
    advance(10_000);
    b.add("b", H11); // opens 10 s later: its own deadline
    expect(b.nextDeadlineMs()).toBe(deadline);
    advance(19_999);
    expect(b.tick()).toBe(0);
    advance(1);
    expect(b.tick()).toBe(1);
    expect(sealed.map((s) => [s.hourMs, s.reason])).toEqual([[H10, "interval"]]);
    expect(b.nextDeadlineMs()).toBe(deadline + 10_000);
    advance(10_000);
    expect(b.tick()).toBe(1);
    expect(b.nextDeadlineMs()).toBeNull();
  });

  it("§3.4 an optional unref'd timer seals by itself and is released by close()", () => {
    vi.useFakeTimers();
    try {
      const sealed: HourBatch[] = [];
      const b = new HourBatcher({
        maxBatchBytes: 1000,
        maxBatchRecords: 10,
        flushIntervalMs: 20,
        onSeal: (x) => sealed.push(x),
        timer: true,
      });
      b.add("a", H10);
      vi.advanceTimersByTime(10);
      b.add("b", H11); // opens later: needs its own deadline after the first fires
      vi.advanceTimersByTime(10);
      expect(sealed.map((s) => [s.hourMs, s.reason])).toEqual([[H10, "interval"]]);
      vi.advanceTimersByTime(10);
      expect(sealed.map((s) => [s.hourMs, s.reason])).toEqual([
        [H10, "interval"],
        [H11, "interval"],
      ]);
      expect(vi.getTimerCount()).toBe(0);
      b.add("c", H10);
      expect(vi.getTimerCount()).toBe(1);
      expect(b.close()).toBe(1);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("§3.4 onSeal may add re-entrantly; bad input is refused without touching open batches", () => {
    const { b, sealed } = setup({ maxBatchRecords: 1 });
    const b2 = new HourBatcher({
      maxBatchBytes: 1000,
      maxBatchRecords: 1,
      flushIntervalMs: 1000,
      onSeal: (x) => {
        sealed.push(x);
        if (x.lines[0] === "first") b2.add("second", H10);
      },
    });
    b2.add("first", H10);
    expect(sealed.map((s) => s.lines[0])).toEqual(["first", "second"]);
    expect(() => b.add("a\nb", H10)).toThrow(/newline/);
    expect(() => b.add("a", -1)).toThrow(/outside/);
    expect(() => b.add("a", NaN)).toThrow(/outside/);
    expect(
      () =>
        new HourBatcher({ maxBatchBytes: 0, maxBatchRecords: 1, flushIntervalMs: 1, onSeal() {} }),
    ).toThrow(/maxBatchBytes/);
  });
});

describe("pooled NDJSON buffers", () => {
  it("lines written into a pooled buffer give byte-identical bodies to lines.join, across seals and reuse", async () => {
    const { BufferPool } = await import("./buffer-pool.js");
    const { encodeBatch } = await import("./encoder.js");
    const pool = new BufferPool(1000, 2);
    const pooled = setup({ pool });
    const plain = setup();
    const lines = Array.from({ length: 60 }, (_, i) =>
      JSON.stringify({ i, s: "é€😀".repeat(i % 7), pad: "x".repeat(i * 3) }),
    );
    for (const [k, l] of lines.entries()) {
      const size = Buffer.byteLength(l) + 1;
      pooled.b.add(l, H10 + k, size);
      plain.b.add(l, H10 + k, size);
      // Return sealed buffers at once: the next batch reuses (and overwrites) them.
      for (const s of pooled.sealed.splice(0)) {
        const want = plain.sealed.shift()!;
        expect(s.lines).toEqual([]);
        expect(encodeBatch(s).body.equals(encodeBatch(want).body)).toBe(true);
        expect(s.ndjson!.subarray(0, s.decodedBytes).toString()).toBe(want.lines.join("\n") + "\n");
        pool.release(s.ndjson!);
      }
    }
    pooled.b.sealAll();
    plain.b.sealAll();
    expect(pooled.sealed.map((s) => s.records)).toEqual(plain.sealed.map((s) => s.records));
  });
});

describe("pooled buffers grow from a small start", () => {
  it("a batch far larger than the first buffer, and a wrong `bytes` hint, still give exact NDJSON", async () => {
    const { BufferPool } = await import("./buffer-pool.js");
    const pool = new BufferPool(200_000, 2);
    const { b, sealed } = setup({ pool, maxBatchBytes: 200_000, maxBatchRecords: 10_000 });
    const lines = Array.from({ length: 600 }, (_, i) => JSON.stringify({ i, s: "ü".repeat(150) }));
    for (const [k, l] of lines.entries()) b.add(l, H10 + k, k === 5 ? 3 : undefined);
    b.sealAll();
    const text = sealed.map((s) => s.ndjson!.subarray(0, s.decodedBytes).toString()).join("");
    expect(text).toBe(lines.join("\n") + "\n");
    expect(sealed.reduce((n, s) => n + s.decodedBytes, 0)).toBe(Buffer.byteLength(text));
  });
});

describe("pooled buffers: lines added unmeasured", () => {
  it("§3.4 multi-byte lines without a size are written whole, counted exactly, and batches seal at maxBatchBytes, never above", async () => {
    const { BufferPool } = await import("./buffer-pool.js");
    // Buffers start at 64 KiB and grow: 1 to 4 bytes a character (ASCII, 2-byte, 3-byte, and
    // surrogate pairs: 4 bytes for 2 units), at lengths that reach buffer ends mid-character.
    const pool = new BufferPool(100_000, 2);
    const { b, sealed } = setup({ pool, maxBatchBytes: 100_000, maxBatchRecords: 10_000 });
    const alphabet = ["a", "é", "€", "😀"];
    const lines = Array.from({ length: 2000 }, (_, i) =>
      JSON.stringify({ i, s: alphabet[i % 4]!.repeat((i * 7) % 97) }),
    );
    let counted = 0;
    for (const [k, l] of lines.entries()) {
      const kept = b.add(l, H10 + k);
      expect(kept).toBe(Buffer.byteLength(l) + 1);
      counted += kept;
    }
    b.sealAll();
    const text = sealed.map((s) => s.ndjson!.subarray(0, s.decodedBytes).toString()).join("");
    expect(text).toBe(lines.join("\n") + "\n");
    expect(sealed.reduce((n, s) => n + s.decodedBytes, 0)).toBe(counted);
    expect(sealed.length).toBeGreaterThanOrEqual(3);
    for (const s of sealed) expect(s.decodedBytes).toBeLessThanOrEqual(100_000);
  });

  it("§3.4 an unmeasured line whose characters pass the end of the buffer is not cut there", async () => {
    const { BufferPool } = await import("./buffer-pool.js");
    const pool = new BufferPool(200_000, 2);
    const { b, sealed } = setup({ pool, maxBatchBytes: 200_000, maxBatchRecords: 10_000 });
    const wide = JSON.stringify({ s: "é".repeat(100) }); // 1 UTF-16 unit, 2 bytes a character
    // An ASCII line that leaves exactly wide.length + 1 bytes of the first 64 KiB buffer.
    const fill = "x".repeat(64 * 1024 - (wide.length + 1) - 1);
    expect(b.add(fill, H10)).toBe(fill.length + 1);
    expect(b.add(wide, H10)).toBe(Buffer.byteLength(wide) + 1);
    b.sealAll();
    expect(sealed[0]!.ndjson!.subarray(0, sealed[0]!.decodedBytes).toString()).toBe(
      `${fill}\n${wide}\n`,
    );
  });
});

describe("pooled buffers: a busy hour's next buffer starts at its expected size", () => {
  it("after a batch of an hour seals full, that hour's next buffer is capacity-sized; other hours start small", async () => {
    const { BufferPool } = await import("./buffer-pool.js");
    const pool = new BufferPool(200_000, 2);
    const { b, sealed } = setup({ pool, maxBatchBytes: 200_000, maxBatchRecords: 10_000 });
    const line = JSON.stringify({ s: "x".repeat(991) }); // 1000 bytes with its newline
    for (let i = 0; i < 200; i++) b.add(line, H10);
    expect(sealed.map((s) => s.reason)).toEqual(["bytes"]);
    expect(sealed[0]!.ndjson!.length).toBeGreaterThanOrEqual(200_000); // grew from a small start
    b.add(line, H10);
    b.add(line, H11);
    b.sealAll();
    const [h10, h11] = sealed.slice(1);
    expect(h10!.ndjson!.length).toBe(200_000);
    expect(h11!.ndjson!.length).toBeLessThan(200_000);
    expect(h10!.ndjson!.subarray(0, h10!.decodedBytes).toString()).toBe(`${line}\n`);
  });

  it("after a batch seals at maxBatchRecords: twice its size, at most the capacity", async () => {
    const { BufferPool } = await import("./buffer-pool.js");
    const pool = new BufferPool(200_000, 2);
    const { b, sealed } = setup({ pool, maxBatchBytes: 200_000, maxBatchRecords: 100 });
    const line = JSON.stringify({ s: "x".repeat(991) }); // 1000 bytes with its newline
    for (let i = 0; i < 101; i++) b.add(line, H10);
    for (let i = 0; i < 100; i++) b.add('{"a":1}', H10); // fills the second batch by records
    b.add('{"a":1}', H10);
    b.sealAll();
    expect(sealed.map((s) => [s.reason, s.ndjson!.length])).toEqual([
      ["records", 128 * 1024], // grew from a small start
      ["records", 200_000], // 2 × 100,000 bytes
      ["flush", 64 * 1024], // 2 × 800 bytes: the small start
    ]);
  });
});
