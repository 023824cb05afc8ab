/**
 * The decoder of a text column that keeps its first few short values: columns such as
 * a status, a currency or a country code repeat a handful of strings, and comparing a
 * few bytes costs far less than making each string again (the same string objects also
 * make the Parquet dictionary's lookups cheap).
 */
import { utf8Slice } from "../../../shared/buffer-text.js";

/** Values a column's text cache holds, and the longest value it holds (bytes). */
const TEXT_CACHE_SLOTS = 16;
const TEXT_CACHE_BYTES = 32;
/** Lookups between the text cache's checks of its hit rate. */
const TEXT_CACHE_ROUND = 1024;

/**
 * A text column's decoder (one per column per query) that serves repeated short values
 * from a small cache. When more than half of a round of lookups miss, it stops looking
 * and decodes every value.
 * @example const decode = cachedText(); decode(buf, start, length);
 */
export function cachedText(): (b: Buffer, p: number, len: number) => string {
  const bytes = Buffer.alloc(TEXT_CACHE_SLOTS * TEXT_CACHE_BYTES);
  const lengths = new Int32Array(TEXT_CACHE_SLOTS);
  const strings: string[] = [];
  let lookups = 0;
  let misses = 0;
  let on = true;
  return (b, p, len) => {
    if (!on || len > TEXT_CACHE_BYTES) return utf8Slice(b, p, p + len);
    if (++lookups === TEXT_CACHE_ROUND) {
      on = 2 * misses <= lookups; // this lookup still runs
      lookups = misses = 0;
    }
    const used = strings.length;
    for (let k = 0; k < used; k++) {
      if (lengths[k] !== len) continue;
      const at = k * TEXT_CACHE_BYTES;
      let j = 0;
      while (j < len && bytes[at + j] === b[p + j]) j++;
      if (j === len) return strings[k]!;
    }
    misses++;
    const text = utf8Slice(b, p, p + len);
    if (used < TEXT_CACHE_SLOTS) {
      b.copy(bytes, used * TEXT_CACHE_BYTES, p, p + len);
      lengths[used] = len;
      strings.push(text);
    }
    return text;
  };
}
