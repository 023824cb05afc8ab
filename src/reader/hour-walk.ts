/**
 * The walk over a range's hour folders (SPEC §5.2): newest hour first, each
 * listed page by page (only `<prefix>/v1/YYYY/MM/DD/HH/`), keys parsed and
 * pruned by their [min-ms, max-ms], LISTs of the next hours sent ahead.
 * Invariants:
 * - every LIST attempt is charged to the grant before it is sent; retries too;
 * - a page is listed once per session: its unread keys stay queued across grants;
 * - a LIST sent ahead joins the hour it belongs to; the walk still consumes hours
 *   strictly in order, so the result order never depends on which reply came first.
 */
import { hourPrefix, parseObjectKey } from "../batch/object-key.js";
import { classifyError } from "../store/classify-error.js";
import type { ListEntry, ObjectStore } from "../store/object-store.js";
import { sleep } from "../shared/abort.js";
import type { AheadGet } from "./get-ahead.js";
import type { Grant, SessionStats } from "./grant.js";
import type { ObjectTarget } from "./object-reader.js";
import { backoffMs, describeRetry, isRetryable, storageFailure } from "./read-errors.js";
import type { TimeRange } from "./time-range.js";
import type { SkippedObject } from "./types.js";

export interface QueuedObject extends ObjectTarget {
  minMs: number;
  maxMs: number;
  ahead?: AheadGet;
}

export interface HourState {
  hourMs: number;
  prefix: string;
  queue: QueuedObject[];
  startAfter?: string;
  listed: boolean;
  /** A page request in flight (sent ahead or by the walk): resolves false when out of LIST attempts. */
  inflight?: Promise<boolean>;
}

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

export class HourWalk {
  private readonly hours: HourState[];
  private index = 0;

  constructor(
    private readonly prefix: string,
    hoursNewestFirst: number[],
    private readonly range: TimeRange,
    private readonly listPageSize: number,
  ) {
    this.hours = hoursNewestFirst.map((hourMs) => ({
      hourMs,
      prefix: hourPrefix(prefix, hourMs),
      queue: [],
      listed: false,
    }));
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

  /** Fetches the next page of `hour`, or joins the request already in flight. False when out of LIST attempts. */
  fetchPage(hour: HourState, env: WalkEnv): Promise<boolean> {
    hour.inflight ??= this.listPage(hour, env).finally(() => (hour.inflight = undefined));
    return hour.inflight;
  }

  /** Sends first-page LISTs for up to `n` upcoming hours (while LIST attempts remain). */
  listAhead(n: number, env: WalkEnv): void {
    let started = 0;
    for (const hour of this.upcoming()) {
      if (started >= n || !env.grant.has("listAttempts")) return;
      if (hour.listed || hour.startAfter !== undefined) continue;
      if (!hour.inflight) this.fetchPage(hour, env).catch(() => undefined); // an error resurfaces when the walk reaches the hour
      started++;
    }
  }

  /** Waits for every LIST in flight (errors are left for the walk to meet again). */
  async settle(): Promise<void> {
    await Promise.all(this.hours.map((h) => h.inflight?.catch(() => undefined)));
  }

  private async listPage(hour: HourState, env: WalkEnv): Promise<boolean> {
    let entries: ListEntry[];
    let more: boolean;
    for (let attempt = 1; ; attempt++) {
      if (!env.grant.take("listAttempts")) return false;
      if (attempt > 1) env.stats.retries++;
      try {
        const page = await env.store.list({
          prefix: hour.prefix,
          maxKeys: this.listPageSize,
          ...(hour.startAfter ? { startAfter: hour.startAfter } : {}),
          ...(env.signal ? { signal: env.signal } : {}),
        });
        entries = page.entries;
        more = page.nextContinuationToken !== undefined && entries.length > 0;
        break;
      } catch (err) {
        const c = classifyError(err);
        if (!isRetryable(c))
          throw storageFailure(err, `LIST ${hour.prefix}`, env.store.description);
        env.onRetry(describeRetry(c, `LIST ${hour.prefix}`));
        await sleep(backoffMs(attempt, env.retryBackoffMs, c.kind === "throttled"), env.signal);
      }
    }
    let lastMax = Infinity;
    for (const e of entries) {
      const k = parseObjectKey(e.key, this.prefix);
      if (!k || k.hourMs !== hour.hourMs) {
        env.onSkipped({
          key: e.key,
          reason: "foreign-format",
          detail: "not a format-v1 log object key; ignored",
        });
        env.stats.objectsSkipped++;
        continue;
      }
      lastMax = k.maxMs;
      if (k.maxMs < this.range.fromMs || k.minMs >= this.range.toMs) env.stats.objectsPruned++;
      else
        hour.queue.push({ key: e.key, etag: e.etag, size: e.size, minMs: k.minMs, maxMs: k.maxMs });
    }
    hour.startAfter = entries[entries.length - 1]?.key ?? hour.startAfter ?? "";
    // Keys sort by reverse-max-ms: once a key's max is before `from`, every later key's is too.
    hour.listed = !more || lastMax < this.range.fromMs;
    return true;
  }
}
