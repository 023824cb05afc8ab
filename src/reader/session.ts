/**
 * A query session (SPEC §5.2, §5.3): walks the range's UTC hours newest first,
 * lists each hour's folder (only those), reads the v1 objects that overlap the
 * range newest first, and spends one grant per `load()` / `more()`.
 * Invariants:
 * - the walk order is fixed: hour descending, key ascending (newest batch first,
 *   by the key's reverse-max-ms), line ascending; the cursor (hour, key, line)
 *   only moves forward, so load + more… return every record once, none skipped;
 * - listed-but-unread keys stay queued across grants: no hour is listed twice;
 * - at most `maxGrants` grants per session; `load()` starts the session over.
 * - calls are serialised: a `more()` issued during a `load()` runs after it.
 */
import { hourPrefix, parseObjectKey } from "../batch/object-key.js";
import { classifyError } from "../store/classify-error.js";
import type { ListEntry, ObjectStore } from "../store/object-store.js";
import { sleep, throwIfAborted } from "../shared/abort.js";
import { emptyStats, Grant, type SessionStats } from "./grant.js";
import type { ObjectCache } from "./object-cache.js";
import { readObject, type ObjectTarget } from "./object-reader.js";
import { resolveLimits } from "./limits.js";
import { backoffMs, describeRetry, isRetryable, storageFailure } from "./read-errors.js";
import { hoursNewestFirst, resolveRange, type TimeRange } from "./time-range.js";
import { parseLines } from "./parse-records.js";
import type { LogRecordLike } from "./record-like.js";
import type { GrantLimits, LoadResult, QueryOptions, ReaderCursor, ReaderSession, SkippedObject } from "./types.js";

/** What a session needs from its source. */
export interface SessionContext {
  store(): Promise<ObjectStore>;
  prefix: string;
  cache: ObjectCache;
  retryBackoffMs: number;
  /** Keys per LIST page (S3 caps at 1000). */
  listPageSize: number;
}

interface HourState {
  hourMs: number;
  prefix: string;
  queue: (ObjectTarget & { minMs: number; maxMs: number })[];
  startAfter?: string;
  listed: boolean;
}

/** The session behind `source.query()`; see ReaderSession. */
export class QuerySession implements ReaderSession {
  private readonly range: TimeRange;
  private readonly limits: GrantLimits;
  private hours: number[] = [];
  private hour: HourState | null = null;
  private line = 0;
  private done = false;
  private started = false;
  private current: SessionStats;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ctx: SessionContext,
    private readonly options: QueryOptions,
  ) {
    this.range = resolveRange(options.from, options.to);
    this.limits = resolveLimits(options.limits);
    this.current = emptyStats(this.limits.maxGrants);
  }

  get stats(): SessionStats {
    return { ...this.current };
  }

  /** The first grant; on a session already loaded, starts it over from the newest hour. */
  load(): Promise<LoadResult> {
    return this.serial(() => {
      this.hours = hoursNewestFirst(this.range);
      this.hour = null;
      this.line = 0;
      this.done = false;
      this.started = true;
      this.current = emptyStats(this.limits.maxGrants);
      return this.grant();
    });
  }

  /** One more grant from the cursor; nothing (and no request) once complete or out of grants. */
  more(): Promise<LoadResult> {
    if (!this.started) return this.load();
    return this.serial(async () => {
      if (this.done) return this.result([], [], undefined);
      if (this.current.grantsUsed >= this.limits.maxGrants) {
        this.current.stoppedBy = "maxGrants";
        return this.result([], [], undefined, `all ${this.limits.maxGrants} grants of this session are used; narrow the range or filters, or start a new query`);
      }
      return this.grant();
    });
  }

  private serial(fn: () => Promise<LoadResult>): Promise<LoadResult> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async grant(): Promise<LoadResult> {
    const { signal } = this.options;
    const store = await this.ctx.store();
    const grant = new Grant(this.limits, this.current);
    this.current.grantsUsed++;
    this.current.stoppedBy = null;
    const records: LogRecordLike[] = [];
    const skipped: SkippedObject[] = [];
    let lastError: string | undefined;
    const onRetry = (note: string) => void (lastError = note);
    while (!this.done && grant.stoppedBy === null) {
      throwIfAborted(signal);
      const hour = this.currentHour();
      if (!hour) {
        this.done = true;
        break;
      }
      if (hour.queue.length === 0) {
        if (hour.listed) this.hour = null;
        else if (!(await this.listPage(store, hour, grant, skipped, onRetry))) grant.stop("listAttempts");
        continue;
      }
      if (!grant.has("records")) {
        grant.stop("records");
        break;
      }
      const target = hour.queue[0]!;
      const ctx = { store, cache: this.ctx.cache, grant, retryBackoffMs: this.ctx.retryBackoffMs, onRetry, ...(signal ? { signal } : {}) };
      const out = await readObject(ctx, target, this.line);
      const parsed = parseLines(out.lines, this.range, this.options.filter);
      for (const r of parsed.records) records.push(r);
      this.current.recordsReturned += parsed.records.length;
      if (parsed.bad > 0) {
        skipped.push({ key: target.key, reason: "not-json", detail: `${parsed.bad} lines are not JSON records with a timestamp`, lines: parsed.bad });
      }
      if (out.problem) {
        skipped.push(out.problem);
        this.current.objectsSkipped++;
      }
      if (out.next === null) {
        hour.queue.shift();
        this.line = 0;
        grant.progressed = true;
      } else {
        this.line = out.next;
        grant.stop(out.by ?? "records");
      }
    }
    this.current.stoppedBy = this.done ? null : grant.stoppedBy;
    return this.result(records, skipped, lastError);
  }

  private currentHour(): HourState | null {
    if (this.hour) return this.hour;
    const hourMs = this.hours.shift();
    if (hourMs === undefined) return null;
    this.hour = { hourMs, prefix: hourPrefix(this.ctx.prefix, hourMs), queue: [], listed: false };
    this.line = 0;
    return this.hour;
  }

  /** Lists one page of an hour folder; false when the LIST allowance ran out first. */
  private async listPage(
    store: ObjectStore,
    hour: HourState,
    grant: Grant,
    skipped: SkippedObject[],
    onRetry: (note: string) => void,
  ): Promise<boolean> {
    const { signal } = this.options;
    let entries: ListEntry[];
    let more: boolean;
    for (let attempt = 1; ; attempt++) {
      if (!grant.take("listAttempts")) return false;
      if (attempt > 1) this.current.retries++;
      try {
        const page = await store.list({
          prefix: hour.prefix,
          maxKeys: this.ctx.listPageSize,
          ...(hour.startAfter ? { startAfter: hour.startAfter } : {}),
          ...(signal ? { signal } : {}),
        });
        entries = page.entries;
        more = page.nextContinuationToken !== undefined && entries.length > 0;
        break;
      } catch (err) {
        const c = classifyError(err);
        if (!isRetryable(c)) throw storageFailure(err, `LIST ${hour.prefix}`, store.description);
        onRetry(describeRetry(c, `LIST ${hour.prefix}`));
        await sleep(backoffMs(attempt, this.ctx.retryBackoffMs, c.kind === "throttled"), signal);
      }
    }
    let lastMax = Infinity;
    for (const e of entries) {
      const k = parseObjectKey(e.key, this.ctx.prefix);
      if (!k || k.hourMs !== hour.hourMs) {
        skipped.push({ key: e.key, reason: "foreign-format", detail: "not a format-v1 log object key; ignored" });
        this.current.objectsSkipped++;
        continue;
      }
      lastMax = k.maxMs;
      if (k.maxMs < this.range.fromMs || k.minMs >= this.range.toMs) this.current.objectsPruned++;
      else hour.queue.push({ key: e.key, etag: e.etag, size: e.size, minMs: k.minMs, maxMs: k.maxMs });
    }
    hour.startAfter = entries[entries.length - 1]?.key ?? hour.startAfter;
    // Keys sort by reverse-max-ms: once a key's max is before `from`, every later key's is too.
    hour.listed = !more || lastMax < this.range.fromMs;
    return true;
  }

  private cursor(): ReaderCursor | null {
    if (this.done) return null;
    const hour = this.hour;
    if (hour) return { hourMs: hour.hourMs, key: hour.queue[0]?.key ?? null, line: this.line };
    const next = this.hours[0];
    return next === undefined ? null : { hourMs: next, key: null, line: 0 };
  }

  private result(records: LogRecordLike[], skipped: SkippedObject[], lastError: string | undefined, notice?: string): LoadResult {
    if (!this.done && this.cursor() === null) this.done = true;
    this.current.complete = this.done;
    this.current.partial = !this.done;
    if (this.done) this.current.stoppedBy = null;
    return {
      records,
      stats: this.stats,
      partial: !this.done,
      complete: this.done,
      skipped,
      cursor: this.cursor(),
      ...(lastError ? { lastError } : {}),
      ...(notice ? { notice } : {}),
    };
  }
}
