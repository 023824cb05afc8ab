import { describe, expect, it } from "vitest";
import { ArenaPool, LineArena } from "./line-arena.js";

/** A seeded generator (mulberry32): the same cases every run. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("§1 compaction holds lines as bytes (line-arena)", () => {
  it("keeps every pushed line's exact bytes: merged copies, gaps, other Buffers, growth while a copy is pending", () => {
    const rnd = random(7);
    for (let round = 0; round < 200; round++) {
      const arena = new LineArena(Math.floor(rnd() * 64), 1 + Math.floor(rnd() * 4));
      const want: Buffer[] = [];
      const lineNos: number[] = [];
      for (let b = 0; b < 1 + Math.floor(rnd() * 5); b++) {
        const src = Buffer.from(Array.from({ length: 2000 }, () => Math.floor(rnd() * 256)));
        let at = Math.floor(rnd() * 10);
        while (at < src.length) {
          const end = Math.min(src.length, at + Math.floor(rnd() * 90));
          if (rnd() < 0.8) {
            arena.push(src, at, end, want.length + 1, want.length, want.length / 2);
            want.push(Buffer.from(src.subarray(at, end)));
            lineNos.push(want.length);
          }
          at = end + Math.floor(rnd() * 100); // gaps below and above the merge distance
        }
        if (rnd() < 0.3) {
          arena.seal();
          src.fill(0); // its owner reuses the chunk: allowed once the arena is sealed
        }
      }
      arena.seal();
      expect(arena.count).toBe(want.length);
      for (let k = 0; k < want.length; k++) {
        expect(arena.bytes.subarray(arena.starts[k], arena.ends[k])).toEqual(want[k]);
        expect(arena.lineNos[k]).toBe(lineNos[k]);
        expect(arena.tags[k]).toBe(k);
        expect(arena.ms[k]).toBe(k / 2);
      }
    }
  });

  it("decodes a line as Buffer#toString does; clear() forgets lines and keeps its memory", () => {
    const arena = new LineArena(4);
    const src = Buffer.from('{"a":"é"}\n\xff\n', "latin1");
    const utf8 = Buffer.concat([Buffer.from('{"a":"é"}\n'), Buffer.from([0xff])]);
    arena.push(utf8, 0, 10, 1);
    arena.push(utf8, 11, 12, 2);
    expect(arena.text(0)).toBe('{"a":"é"}');
    expect(arena.text(1)).toBe("\ufffd");
    const bytes = arena.bytes;
    arena.clear();
    expect(arena.count).toBe(0);
    arena.push(src, 0, 2, 9);
    expect(arena.text(0)).toBe('{"');
    expect(arena.bytes).toBe(bytes);
  });

  it("a pool hands arenas back empty, keeps at most `keep`, and none larger than its cap", () => {
    const pool = new ArenaPool(1, 1024);
    const a = pool.take(16);
    a.push(Buffer.from("abc"), 0, 3, 1);
    a.seal();
    pool.give(a);
    const b = pool.take(16);
    expect(b).toBe(a);
    expect(b.count).toBe(0);
    pool.give(new LineArena(4096)); // over the cap: dropped
    pool.give(b);
    pool.give(new LineArena(16)); // over `keep`: dropped
    expect(pool.take(1)).toBe(b);
    expect(pool.take(1)).not.toBe(b);
  });
});
