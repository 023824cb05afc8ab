/** Error groups (SPEC §5.4): records grouped by fingerprint with counts, first/last seen and a sparkline. */
import { fingerprint, firstLine, messageTemplate, shortHash, type Row } from "./rows.js";

export interface ErrorGroup {
  /** Short hash of the fingerprint: the `fp:` search term. */
  id: string;
  name: string;
  message: string;
  caller: string;
  level: string;
  count: number;
  firstSeen: number;
  lastSeen: number;
  /** Counts per bucket across `[from, to)` for the sparkline. */
  buckets: number[];
  /** The newest record of the group (for the detail view and AI context). */
  sample: Row;
}

/**
 * @example groupErrors(visibleRows, { from, to, buckets: 24 })[0].count
 */
export function groupErrors(
  rows: Row[],
  range: { from: number; to: number; buckets?: number },
): ErrorGroup[] {
  const n = range.buckets ?? 24;
  const span = Math.max(1, range.to - range.from);
  const groups = new Map<string, ErrorGroup>();
  for (const row of rows) {
    const fp = fingerprint(row.rec);
    if (fp === null) continue;
    let g = groups.get(fp);
    if (!g) {
      g = {
        id: shortHash(fp),
        name: row.rec.error?.name ?? "",
        message: messageTemplate(firstLine(row.rec.error?.message ?? row.rec.message)),
        caller: row.rec.caller ?? "",
        level: row.level,
        count: 0,
        firstSeen: row.ts,
        lastSeen: row.ts,
        buckets: new Array<number>(n).fill(0),
        sample: row,
      };
      groups.set(fp, g);
    }
    g.count++;
    if (row.ts < g.firstSeen) g.firstSeen = row.ts;
    if (row.ts > g.lastSeen) {
      g.lastSeen = row.ts;
      g.sample = row;
    }
    const b = Math.min(n - 1, Math.max(0, Math.floor(((row.ts - range.from) / span) * n)));
    g.buckets[b]!++;
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || b.lastSeen - a.lastSeen);
}
