/**
 * The immutable-object cache (SPEC §5.2): decoded lines of v1 objects, keyed by
 * key + ETag, in memory, least recently used evicted first.
 * Invariants:
 * - v1 objects are written once and never changed, so an entry keyed by the
 *   listed ETag is valid for as long as it is kept; a different ETag is a miss;
 * - the sum of entry costs never exceeds `maxBytes`; an entry costing more than a
 *   quarter of the cache is not kept (it would flush everything else);
 * - an entry costs what it holds in memory: its decoded bytes plus
 *   LINE_HEAP_BYTES per line, so objects of very short lines (`{}`) are bounded too.
 */
import type { SkippedObject } from "./types.js";

export interface CachedObject {
  /** Every line of the object, in order (blank lines removed). */
  readonly lines: readonly string[];
  readonly decodedBytes: number;
  /** Set when the object ended badly (truncated/corrupt): the lines are those recovered. */
  readonly problem?: SkippedObject;
  /** Why its records are served unverified (UnverifiedObject), kept with the lines. */
  readonly unverified?: readonly string[];
}

/**
 * Heap a held line costs beyond its characters: V8 string header and padding plus the
 * array slot (~32 B measured for `{}` lines on Node 20; rounded up).
 */
export const LINE_HEAP_BYTES = 40;

/**
 * The most lines one cached object may hold: a writer's batch is far smaller (delivery
 * seals at maxBatchRecords), so only hostile objects of tiny lines reach it, and for those
 * decoding a longer tail into the cache would only make garbage.
 */
export const MAX_CACHED_LINES = 100_000;

/** What holding `lines` lines of `decodedBytes` costs in memory. */
export function heldCost(decodedBytes: number, lines: number): number {
  return decodedBytes + lines * LINE_HEAP_BYTES;
}

/** Default memory bound of a source's cache: 64 MiB of held lines. */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * @example
 * const cache = new ObjectCache(64 << 20);
 * cache.set(entry.key, entry.etag, { lines, decodedBytes });
 * cache.get(entry.key, entry.etag)?.lines;
 */
export class ObjectCache {
  private readonly entries = new Map<string, CachedObject>();
  private bytes = 0;

  constructor(readonly maxBytes: number = DEFAULT_CACHE_BYTES) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  /** The most one entry may cost. */
  get entryBudget(): number {
    return this.enabled ? this.maxBytes / 4 : 0;
  }

  /** True when an object of this cost (decoded bytes, plus per-line heap when known) would be kept. */
  accepts(cost: number): boolean {
    return this.enabled && cost <= this.entryBudget;
  }

  get(key: string, etag: string): CachedObject | undefined {
    const id = cacheId(key, etag);
    const hit = this.entries.get(id);
    if (hit) {
      this.entries.delete(id);
      this.entries.set(id, hit);
    }
    return hit;
  }

  set(key: string, etag: string, entry: CachedObject): void {
    if (!etag || !this.accepts(costOf(entry))) return;
    const id = cacheId(key, etag);
    const old = this.entries.get(id);
    if (old) {
      this.bytes -= costOf(old);
      this.entries.delete(id);
    }
    this.entries.set(id, entry);
    this.bytes += costOf(entry);
    for (const [oldest, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= costOf(value);
    }
  }

  /** Objects held and their cost in bytes (decoded bytes + per-line heap). */
  get size(): { objects: number; bytes: number } {
    return { objects: this.entries.size, bytes: this.bytes };
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

const costOf = (e: CachedObject) => heldCost(e.decodedBytes, e.lines.length);

function cacheId(key: string, etag: string): string {
  return `${etag}\u0000${key}`;
}
