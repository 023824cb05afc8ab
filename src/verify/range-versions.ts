/**
 * Every version of every key in a time range's hour folders, from ONE paginated
 * ListObjectVersions walk: the hour folders `<prefix>/v1/YYYY/MM/DD/HH/` sort in time
 * order, so the walk starts just before the first folder of the range (S3 `KeyMarker`)
 * and stops at the first key past the last one. Its cost is one LIST per 1,000
 * versions in the range — a 30-day range of 2 objects is 1 LIST, where a LIST per
 * hour folder was 721 (issue 31 §2). Versions, not keys: an overwrite (a second
 * version) or a deletion (a delete marker) is visible here and nowhere else.
 */
import { hourPrefix, utcHourStart } from "../v1-format/object-key.js";
import type { ListVersionsOptions, VersionEntry, VersionsPage } from "../store/object-store.js";

/** One key of the range and its versions and delete markers, newest first. */
export interface KeyVersions {
  key: string;
  versions: VersionEntry[];
}

/** Where the walk lists: the folder both ends share, from just before the first hour folder to the end of the last. */
export interface RangeListing {
  /** The deepest folder holding every hour folder of the range (`<prefix>/v1/2026/11/`). */
  prefix: string;
  /** The first hour folder without its `/`: every key of the range sorts after it. */
  startAfter: string;
  /** The first key past the range: the last hour folder with its `/` raised to `0`. */
  endBefore: string;
}

/**
 * @example rangeListing("app", Date.UTC(2026, 10, 1), Date.UTC(2026, 10, 30, 23))
 * // { prefix: "app/v1/2026/11/", startAfter: "app/v1/2026/11/01/00", endBefore: "app/v1/2026/11/30/230" }
 */
export function rangeListing(prefix: string, fromMs: number, toMs: number): RangeListing {
  const first = hourPrefix(prefix, utcHourStart(fromMs));
  const last = hourPrefix(prefix, utcHourStart(toMs));
  let common = 0;
  while (common < first.length && first[common] === last[common]) common++;
  const shared = first.slice(0, first.lastIndexOf("/", common - 1) + 1);
  return { prefix: shared, startAfter: first.slice(0, -1), endBefore: `${last.slice(0, -1)}0` };
}

/**
 * Yields each key of the range with all its versions (a key's versions may span pages).
 * `list` sends one LIST page (the caller counts and retries it).
 * @example for await (const { key, versions } of rangeVersions(page => store.listVersions(page), listing)) …
 */
export async function* rangeVersions(
  list: (page: ListVersionsOptions) => Promise<VersionsPage>,
  listing: RangeListing,
): AsyncGenerator<KeyVersions> {
  let token: string | undefined;
  let current: KeyVersions | undefined;
  do {
    const page = await list({
      prefix: listing.prefix,
      ...(token ? { continuationToken: token } : { startAfter: listing.startAfter }),
    });
    token = page.nextContinuationToken;
    for (const v of page.versions) {
      if (v.key >= listing.endBefore) {
        token = undefined; // past the last hour folder: the rest of the listing is outside the range
        break;
      }
      if (current && current.key !== v.key) {
        yield current;
        current = undefined;
      }
      current ??= { key: v.key, versions: [] };
      current.versions.push(v);
    }
  } while (token);
  if (current) yield current;
}
