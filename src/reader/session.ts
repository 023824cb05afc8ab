/**
 * A query session (SPEC §5.2, §5.3): walks the range's UTC hours newest first,
 * reads the v1 objects that overlap the range newest first, and spends one grant
 * per `load()` / `more()`.
 * Invariants:
 * - the walk order is fixed: hour descending, key ascending (newest batch first,
 *   by the key's reverse-max-ms), line ascending; the cursor (hour, key, line)
 *   only moves forward, so load + more… return every record once, none skipped;
 * - work sent ahead (LISTs of later hours, GETs of the next objects, at most
 *   `concurrency` of each) is charged when sent and settled before the grant
 *   returns, so a result's stats hold everything its grant cost; GETs the grant
 *   did not reach are finished into the object cache (get-ahead.ts), so the next
 *   grant does not pay for them again;
 * - at most `maxGrants` grants per session; `load()` starts the session over;
 * - calls are serialised: a `more()` issued during a `load()` runs after it;
 * - an aborted grant (query signal or the call's) stops its LISTs/GETs at once and keeps
 *   the attempts it sent charged; its records are dropped, so only `load()` may follow.
 */
import type { ObjectStore } from "../store/object-store.js";
import { throwIfAborted } from "../shared/abort.js";
import { StowageError } from "../shared/errors.js";
import { dropAhead, finishAhead, startAhead, type AheadGet } from "./get-ahead.js";
import { emptyStats, Grant, type SessionStats } from "./grant.js";
import { HourWalk, type QueuedObject, type WalkEnv } from "./hour-walk.js";
import type { ObjectCache } from "./object-cache.js";
import { readObject, type ObjectTarget, type ReadContext } from "./object-reader.js";
import { resolveLimits } from "./limits.js";
import { parseLines } from "./parse-records.js";
import type { LogRecordLike } from "./record-like.js";
import { hoursNewestFirst, resolveRange, type TimeRange } from "./time-range.js";
import type {
  GrantCallOptions,
  GrantLimits,
  LoadResult,
  QueryOptions,
  ReaderCursor,
  ReaderSession,
  SkippedObject,
  UnverifiedObject,
  VerificationOptions,
} from "./types.js";

/** What a session needs from its source. */
export interface SessionContext {
  store(): Promise<ObjectStore>;
  prefix: string;
  cache: ObjectCache;
  retryBackoffMs: number;
  /** Keys per LIST page (S3 caps at 1000). */
  listPageSize: number;
  /** LISTs and GETs in flight ahead of the walk (1 = strictly one request at a time). */
  concurrency: number;
  /** What objects are checked against besides their checksum (unverified marks). */
  verification?: VerificationOptions;
  /** Called when the walk is done with an object (read to its end, or reported): follow.ts remembers it. */
  onObjectDone?: (obj: QueuedObject) => void;
}

/** The session behind `source.query()`; see ReaderSession. */
export class QuerySession implements ReaderSession {
  private readonly range: TimeRange;
  private readonly limits: GrantLimits;
  private walk: HourWalk | null = null;
  private line = 0;
  private done = false;
  private current: SessionStats;
  private chain: Promise<unknown> = Promise.resolve();
  /** Set when a grant was aborted: its records were never returned, so only load() may follow. */
  private interrupted = false;

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
  load(call: GrantCallOptions = {}): Promise<LoadResult> {
    return this.serial(() => {
      this.interrupted = false;
      this.walk = new HourWalk(
        this.ctx.prefix,
        hoursNewestFirst(this.range),
        this.range,
        this.ctx.listPageSize,
      );
      this.line = 0;
      this.done = false;
      this.current = emptyStats(this.limits.maxGrants);
      return this.grant(call.signal);
    });
  }

  /** One more grant from the cursor; nothing (and no request) once complete or out of grants. */
  more(call: GrantCallOptions = {}): Promise<LoadResult> {
    if (!this.walk) return this.load(call);
    return this.serial(async () => {
      if (this.interrupted)
        throw new StowageError(
          "aborted",
          "the previous grant of this session was aborted, so its cursor is lost; call load() to start over",
        );
      if (this.done) return this.result([], [], [], undefined);
      if (this.current.grantsUsed >= this.limits.maxGrants) {
        this.current.stoppedBy = "maxGrants";
        return this.result(
          [],
          [],
          [],
          undefined,
          `all ${this.limits.maxGrants} grants of this session are used; narrow the range or filters, or start a new query`,
        );
      }
      return this.grant(call.signal);
    });
  }

  private serial(fn: () => Promise<LoadResult>): Promise<LoadResult> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async grant(callSignal: AbortSignal | undefined): Promise<LoadResult> {
    const walk = this.walk!;
    const signal = anySignal(this.options.signal, callSignal);
    const store = await this.ctx.store();
    const grant = new Grant(this.limits, this.current);
    this.current.grantsUsed++;
    this.current.stoppedBy = null;
    const records: LogRecordLike[] = [];
    const skipped: SkippedObject[] = [];
    const unverified: UnverifiedObject[] = [];
    let lastError: string | undefined;
    const env: WalkEnv = {
      store,
      grant,
      stats: this.current,
      signal,
      retryBackoffMs: this.ctx.retryBackoffMs,
      onRetry: (note) => void (lastError = note),
      onSkipped: (s) => void skipped.push(s),
    };
    const ahead = this.ctx.concurrency - 1;
    let ended = false;
    try {
      while (!this.done && grant.stoppedBy === null) {
        throwIfAborted(signal);
        const hour = walk.current();
        if (!hour) {
          this.done = true;
          break;
        }
        if (hour.queue.length === 0) {
          if (hour.listed) {
            walk.advance();
            this.line = 0;
            continue;
          }
          const page = walk.fetchPage(hour, env); // the walk's own LIST goes first, then the ones ahead
          if (ahead > 0) walk.listAhead(ahead, env);
          if (!(await page)) grant.stop("listAttempts");
          continue;
        }
        if (!grant.has("records")) {
          grant.stop("records");
          break;
        }
        const target = hour.queue[0]!;
        if (ahead > 0) {
          // The object about to be read is requested first, so work ahead never starves it.
          if (!target.ahead && !this.ctx.cache.get(target.key, target.etag))
            target.ahead = startAhead(store, target, grant, signal) ?? undefined;
          this.getAhead(store, grant, ahead, signal);
          walk.listAhead(ahead, env);
        }
        let taken = target.ahead;
        delete target.ahead;
        if (taken && this.ctx.cache.get(target.key, target.etag)) {
          await dropAhead(taken, grant); // filled meanwhile by another session of this source
          taken = undefined;
        }
        const startLine = this.line;
        const out = await readObject(this.readContext(env), target, startLine, taken);
        const parsed = parseLines(out.lines, this.range, this.options.filter);
        for (const r of parsed.records) records.push(r);
        this.current.recordsReturned += parsed.records.length;
        if (out.unverified) {
          unverified.push({
            key: target.key,
            problems: out.unverified,
            records: parsed.records.length,
          });
          if (startLine === 0) this.current.objectsUnverified++;
        }
        if (parsed.bad > 0) {
          skipped.push({
            key: target.key,
            reason: "not-json",
            detail: `${parsed.bad} lines are not JSON records with a timestamp`,
            lines: parsed.bad,
          });
        }
        if (out.problem) {
          skipped.push(out.problem);
          this.current.objectsSkipped++;
        }
        if (out.next === null) {
          hour.queue.shift();
          this.ctx.onObjectDone?.(target);
          this.line = 0;
          grant.progressed = true;
        } else {
          this.line = out.next;
          grant.stop(out.by ?? "records");
        }
      }
      ended = true;
    } catch (err) {
      if (signal?.aborted) this.interrupted = true; // records read by this grant are dropped with it
      throw err;
    } finally {
      await this.settle(grant, ended && !signal?.aborted ? this.readContext(env) : null);
    }
    this.current.stoppedBy = this.done ? null : grant.stoppedBy;
    return this.result(records, skipped, unverified, lastError);
  }

  /** What reading one object needs: the walk's environment, the cache, and the checks. */
  private readContext(env: WalkEnv): ReadContext {
    return {
      ...env,
      cache: this.ctx.cache,
      prefix: this.ctx.prefix,
      ...(this.ctx.verification ? { verification: this.ctx.verification } : {}),
    };
  }

  /** Sends GETs for the next objects of the walk (after the one being read), across hours already listed. */
  private getAhead(
    store: ObjectStore,
    grant: Grant,
    n: number,
    signal: AbortSignal | undefined,
  ): void {
    const walk = this.walk!;
    // Decoded bytes per downloaded byte seen so far: GETs ahead stop where the grant's
    // decoded allowance would likely run out first (they would be dropped, then paid again).
    const { decodedBytes, downloadedBytes } = this.current;
    const ratio = downloadedBytes > 0 ? decodedBytes / downloadedBytes : 0;
    let expected = ratio * (walk.current()!.queue[0]?.size ?? 0);
    let seen = 0;
    for (const hour of [walk.current()!, ...walk.upcoming()]) {
      for (const obj of hour === walk.current() ? hour.queue.slice(1) : hour.queue) {
        if (seen++ >= n) return;
        expected += ratio * obj.size;
        if (expected > grant.remaining("decodedBytes")) return;
        if (obj.ahead || this.ctx.cache.get(obj.key, obj.etag)) continue;
        const sent = startAhead(store, obj, grant, signal);
        if (!sent) return;
        obj.ahead = sent;
      }
      if (!hour.listed) return; // keys of later pages come first in the walk
    }
  }

  /**
   * Waits for LISTs in flight, then settles the GETs sent ahead that this grant did not
   * reach: finished into the cache in walk order when the grant ended normally (`finish`),
   * dropped when it threw or was aborted.
   */
  private async settle(grant: Grant, finish: ReadContext | null): Promise<void> {
    const walk = this.walk!;
    await walk.settle();
    const pending: { obj: ObjectTarget; ahead: AheadGet }[] = [];
    for (const hour of [walk.current(), ...walk.upcoming()]) {
      for (const obj of hour?.queue ?? []) {
        if (obj.ahead) pending.push({ obj, ahead: obj.ahead });
        delete obj.ahead;
      }
    }
    if (!finish) {
      await Promise.all(pending.map((p) => dropAhead(p.ahead, grant)));
      return;
    }
    // One at a time, in walk order: the objects the next grant reads first get the decoded allowance first.
    for (const p of pending) await finishAhead(finish, p.obj, p.ahead);
  }

  private cursor(): ReaderCursor | null {
    const hour = this.done ? null : this.walk?.current();
    return hour ? { hourMs: hour.hourMs, key: hour.queue[0]?.key ?? null, line: this.line } : null;
  }

  private result(
    records: LogRecordLike[],
    skipped: SkippedObject[],
    unverified: UnverifiedObject[],
    lastError: string | undefined,
    notice?: string,
  ): LoadResult {
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
      unverified,
      cursor: this.cursor(),
      ...(lastError ? { lastError } : {}),
      ...(notice ? { notice } : {}),
    };
  }
}

/** The query's signal and the call's, as one (either aborts the grant). */
function anySignal(
  a: AbortSignal | undefined,
  b: AbortSignal | undefined,
): AbortSignal | undefined {
  return a && b ? AbortSignal.any([a, b]) : (a ?? b);
}
