/**
 * The walk over a range's hour folders (SPEC §5.2): newest hour first,
 * with the folders that hold objects discovered before any hour is listed.
 * - a month the range spans ≥ 3 days of is listed once with delimiter "/" (its non-empty days);
 * - a day is listed flat from its first hour in range, one page: when that page holds
 *   the whole day, every hour of it is known from one LIST; when it was cut, the hours
 *   past the last key are found with one delimiter LIST and listed hour by hour;
 * - empty days and hours cost nothing beyond that discovery.
 * Invariants:
 * - every LIST attempt (discovery included) is charged to the grant before it is sent; retries too;
 * - a page is listed once per session: its unread keys stay queued across grants;
 * - only keys of the range's hours are queued; the rest of a page is counted as pruned;
 * - a LIST sent ahead joins the folder it belongs to; the walk still consumes hours
 *   strictly in order, so the result order never depends on which reply came first.
 */
import { parseObjectKey } from "../v1-format/object-key.js";
import type { ListEntry, ListOptions, ListPage, ObjectStore } from "../store/object-store.js";
import { afterFolder, beforeFolder, buildFolders } from "./folders.js";
import type { DayState, HourState, MonthState } from "./folders.js";
import type { Grant, SessionStats } from "./grant.js";
import { attemptUnderGrant, describeRetry, storageFailure } from "./read-errors.js";
import type { TimeRange } from "./time-range.js";
import type { SkippedObject } from "./types.js";

export type { HourState, QueuedObject } from "./folders.js";

/** What a page fetch needs from the grant in progress. */
export interface WalkEnv {
  store: ObjectStore;
  grant: Grant;
  stats: SessionStats;
  signal: AbortSignal | undefined;
  retryBackoffMs: number;
  onRetry(note: string): void;
  onSkipped(s: SkippedObject): void;
}

/** Folder prefixes per discovery LIST: a month has ≤ 31 days, a day 24 hours. */
const FOLDERS_PER_PAGE = 1000;

export class HourWalk {
  private readonly hours: HourState[];
  private readonly byHour = new Map<number, HourState>();
  private index = 0;

  constructor(
    private readonly prefix: string,
    hoursNewestFirst: number[],
    private readonly range: TimeRange,
    private readonly listPageSize: number,
  ) {
    this.hours = buildFolders(prefix, hoursNewestFirst).hours;
    for (const h of this.hours) this.byHour.set(h.hourMs, h);
  }

  /** The hour being read, or null when the walk is over. */
  current(): HourState | null {
    return this.hours[this.index] ?? null;
  }

  advance(): void {
    this.index++;
  }

  /** Hours after the current one, in walk order. */
  upcoming(): HourState[] {
    return this.hours.slice(this.index + 1);
  }

  /**
   * Sends the next LIST `hour` needs — its month's or day's discovery, or its next
   * page — or joins the one in flight. False when out of LIST attempts.
   */
  fetchPage(hour: HourState, env: WalkEnv): Promise<boolean> {
    const { day } = hour;
    const { month } = day;
    if (!month.known)
      return (month.inflight ??= this.discoverMonth(month, env).finally(
        () => (month.inflight = undefined),
      ));
    if (day.phase !== "known")
      return (day.inflight ??= this.discoverDay(day, env).finally(
        () => (day.inflight = undefined),
      ));
    if (hour.listed) return Promise.resolve(true);
    return (hour.inflight ??= this.listPage(hour, env).finally(() => (hour.inflight = undefined)));
  }

  /** Sends the next LIST of up to `n` upcoming folders (while LIST attempts remain). */
  listAhead(n: number, env: WalkEnv): void {
    let started = 0;
    const units = new Set<HourState | DayState | MonthState>();
    for (const hour of this.upcoming()) {
      if (started >= n || !env.grant.has("listAttempts")) return;
      const { day } = hour;
      const unit = !day.month.known
        ? day.month
        : day.phase !== "known"
          ? day
          : hour.listed || hour.startAfter !== undefined
            ? null
            : hour;
      if (!unit || units.has(unit)) continue;
      units.add(unit);
      if (!unit.inflight) this.fetchPage(hour, env).catch(() => undefined); // an error resurfaces when the walk reaches it
      started++;
    }
  }

  /** Waits for every LIST in flight (errors are left for the walk to meet again). */
  async settle(): Promise<void> {
    const pending = new Set<Promise<boolean> | undefined>();
    for (const h of this.hours) {
      pending.add(h.inflight).add(h.day.inflight).add(h.day.month.inflight);
    }
    await Promise.all([...pending].map((p) => p?.catch(() => undefined)));
  }

  /** One LIST, charged per attempt before it is sent and retried through the retry policy; null when out of attempts. */
  private async send(
    options: ListOptions & { prefix: string },
    env: WalkEnv,
  ): Promise<ListPage | null> {
    const what = `LIST ${options.prefix}`;
    const out = await attemptUnderGrant(() => env.store.list({ ...options, signal: env.signal }), {
      retryBackoffMs: env.retryBackoffMs,
      signal: env.signal,
      stats: env.stats,
      charge: () => (env.grant.take("listAttempts") ? undefined : null),
      onRetry: (c) => env.onRetry(describeRetry(c, what)),
    });
    if (out.ok) return out.value;
    throw storageFailure(out.cause, what, env.store.description);
  }

  /** Queues the entries that overlap the range; returns each hour's last max-ms seen. */
  private queueEntries(entries: ListEntry[], env: WalkEnv): Map<HourState, number> {
    const lastMax = new Map<HourState, number>();
    for (const e of entries) {
      const k = parseObjectKey(e.key, this.prefix);
      if (!k) {
        env.onSkipped({
          key: e.key,
          reason: "foreign-format",
          detail: "not a format-v1 log object key; ignored",
        });
        env.stats.objectsSkipped++;
        continue;
      }
      const hour = this.byHour.get(k.hourMs);
      if (hour) lastMax.set(hour, k.maxMs);
      if (!hour || k.maxMs < this.range.fromMs || k.minMs >= this.range.toMs)
        env.stats.objectsPruned++;
      else
        hour.queue.push({ key: e.key, etag: e.etag, size: e.size, minMs: k.minMs, maxMs: k.maxMs });
    }
    return lastMax;
  }

  private async listPage(hour: HourState, env: WalkEnv): Promise<boolean> {
    const page = await this.send(
      {
        prefix: hour.prefix,
        maxKeys: this.listPageSize,
        startAfter: hour.startAfter,
      },
      env,
    );
    if (!page) return false;
    const more = page.nextContinuationToken !== undefined && page.entries.length > 0;
    const lastMax = this.queueEntries(page.entries, env).get(hour) ?? Infinity;
    hour.startAfter = page.entries[page.entries.length - 1]?.key ?? hour.startAfter ?? "";
    // Keys sort by reverse-max-ms: once a key's max is before `from`, every later key's is too.
    hour.listed = !more || lastMax < this.range.fromMs;
    return true;
  }

  /** The month's non-empty days (one delimiter LIST); days it does not hold are done. */
  private async discoverMonth(month: MonthState, env: WalkEnv): Promise<boolean> {
    const oldest = month.days[month.days.length - 1]!;
    const page = await this.send(
      {
        prefix: month.prefix,
        delimiter: "/",
        maxKeys: FOLDERS_PER_PAGE,
        startAfter: beforeFolder(oldest.prefix),
      },
      env,
    );
    if (!page) return false;
    const absent = absentFolders(page);
    for (const day of month.days) {
      if (!absent(day.prefix)) continue;
      for (const h of day.hours) h.listed = true;
      day.phase = "known";
    }
    month.known = true;
    return true;
  }

  /** One step of a day's discovery: its flat first page, then (when cut) its later hour folders. */
  private async discoverDay(day: DayState, env: WalkEnv): Promise<boolean> {
    if (day.phase === "flat") {
      const oldest = day.hours[day.hours.length - 1]!;
      const page = await this.send(
        { prefix: day.prefix, maxKeys: this.listPageSize, startAfter: beforeFolder(oldest.prefix) },
        env,
      );
      if (!page) return false;
      const lastMax = this.queueEntries(page.entries, env);
      const last = page.entries[page.entries.length - 1]?.key;
      if (page.nextContinuationToken === undefined || last === undefined) {
        for (const h of day.hours) h.listed = true;
        day.phase = "known";
        return true;
      }
      // Cut: folders before the last key's are complete, that one resumes after the key,
      // later ones are still unknown (one delimiter LIST finds them).
      const cutFolder = last.slice(0, day.prefix.length + 3);
      for (const h of day.hours) {
        if (h.prefix < cutFolder) h.listed = true;
        else if (h.prefix === cutFolder) {
          h.startAfter = last;
          h.listed = (lastMax.get(h) ?? Infinity) < this.range.fromMs;
        }
      }
      day.foldersAfter = afterFolder(cutFolder);
      // The folder LIST is needed only when the range has hours of this day past the cut.
      day.phase = day.hours.some((h) => h.prefix > cutFolder) ? "folders" : "known";
      return true;
    }
    const after = day.foldersAfter ?? "";
    const page = await this.send(
      { prefix: day.prefix, delimiter: "/", maxKeys: FOLDERS_PER_PAGE, startAfter: after },
      env,
    );
    if (!page) return false;
    const absent = absentFolders(page);
    for (const h of day.hours) if (h.prefix > after && absent(h.prefix)) h.listed = true;
    day.phase = "known";
    return true;
  }
}

/** From a delimiter LIST: true for a folder the page proves empty (absent, and within what the page covered). */
function absentFolders(page: ListPage): (folder: string) => boolean {
  const found = new Set(page.commonPrefixes ?? []);
  const complete = page.nextContinuationToken === undefined;
  const last = [...(page.commonPrefixes ?? []), ...page.entries.map((e) => e.key)].sort().at(-1);
  return (folder) => !found.has(folder) && (complete || (last !== undefined && folder < last));
}
