/**
 * The immutable-object cache (SPEC §5.2): decoded lines of v1 objects, keyed by
 * key + ETag, in memory, least recently used evicted first.
 * Invariants:
 * - v1 objects are written once and never changed, so an entry keyed by the
 *   listed ETag is valid for as long as it is kept; a different ETag is a miss;
 * - the sum of entry sizes (decoded bytes) never exceeds `maxBytes`; an entry
 *   larger than a quarter of the cache is not kept (it would flush everything else).
 */
import type { SkippedObject } from "./types.js";

export interface CachedObject {
  /** Every line of the object, in order (blank lines removed). */
  readonly lines: readonly string[];
  readonly decodedBytes: number;
  /** Set when the object ended badly (truncated/corrupt): the lines are those recovered. */
  readonly problem?: SkippedObject;
}

/** Default memory bound of a source's cache: 64 MiB of decoded lines. */
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

  /** True when an object of this decoded size would be kept. */
  accepts(decodedBytes: number): boolean {
    return this.enabled && decodedBytes <= this.maxBytes / 4;
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
    if (!etag || !this.accepts(entry.decodedBytes)) return;
    const id = cacheId(key, etag);
    const old = this.entries.get(id);
    if (old) {
      this.bytes -= old.decodedBytes;
      this.entries.delete(id);
    }
    this.entries.set(id, entry);
    this.bytes += entry.decodedBytes;
    for (const [oldest, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= value.decodedBytes;
    }
  }

  get size(): { objects: number; bytes: number } {
    return { objects: this.entries.size, bytes: this.bytes };
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

function cacheId(key: string, etag: string): string {
  return `${etag}\u0000${key}`;
}
