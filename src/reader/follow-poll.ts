/**
 * One poll of a follow (follow.ts): the watched hours are listed and their unread objects
 * read under ONE grant of the poll's allowances, oldest hour first, through the reader's
 * own hour walk (hour-walk.ts: discovery, pages, pruning, foreign keys) and object reader
 * (object-reader.ts: cache, GET If-Match, retries, caps, checksums).
 * Invariants:
 * - nothing is charged past the poll's allowances; every LIST/GET attempt is charged
 *   before it is sent, retries included (the grant's rules, grant.ts);
 * - a key the follow has read (memory) is never read again; an object cut by the
 *   `records` allowance resumes at its line in the next poll;
 * - a skipped object is reported and counted once per follow, not once per poll;
 * - the records of a poll are returned in time order (stable: equal times keep their order).
 */
import { throwIfAborted } from "../shared/abort.js";
import type { ObjectStore } from "../store/object-store.js";
import { emptyStats, Grant, type Allowance, type SessionStats } from "./grant.js";
import { HourWalk, type HourState, type QueuedObject, type WalkEnv } from "./hour-walk.js";
import { folderHour, type FollowMemory } from "./follow-memory.js";
import { readObject, type ReadContext } from "./object-reader.js";
import { parseLines } from "./parse-records.js";
import type { LogRecordLike } from "./record-like.js";
import type { SessionContext } from "./session.js";
import type { TimeRange } from "./time-range.js";
import type { GrantLimits, SkippedObject, UnverifiedObject } from "./types.js";

/** What one poll spent and found (counters of this poll only). */
export interface PollSpend {
  listRequests: number;
  getRequests: number;
  /** Observed compressed payload of GETs (not a bill). */
  downloadedBytes: number;
  decodedBytes: number;
  /** Records analysed (what the `records` allowance counts). */
  records: number;
  /** Records returned after the time range and the filter. */
  recordsReturned: number;
  objectsRead: number;
  objectsCached: number;
  /** Objects reported skipped for the first time (each is counted once per follow). */
  objectsSkipped: number;
  objectsUnverified: number;
  /** Repeated attempts (already inside the request counts). */
  retries: number;
}

export interface PollOutcome {
  /** New records, in time order. */
  records: LogRecordLike[];
  skipped: SkippedObject[];
  unverified: UnverifiedObject[];
  spend: PollSpend;
  /** The allowance that stopped this poll before it read everything, if one did. */
  stoppedBy: Allowance | null;
  /** The last retried storage failure of this poll (code and status, never a secret). */
  lastError?: string;
  /**
   * Storage failed this poll: it ended on a LIST or GET that was still failing when its
   * attempts ran out (not on a budget used up by requests that got through).
   */
  failing: boolean;
  /** The UTC hours this poll watched, oldest first. */
  hours: number[];
}

export interface PollOptions {
  limits: GrantLimits;
  /** `[from, ∞)`: a follow has no end. */
  range: TimeRange;
  filter?: ((r: LogRecordLike) => boolean) | undefined;
  signal?: AbortSignal | undefined;
  /** When this poll starts (the follow's clock). */
  now: number;
}

/** Counters a poll reports, all at 0. */
export function emptySpend(): PollSpend {
  return {
    listRequests: 0,
    getRequests: 0,
    downloadedBytes: 0,
    decodedBytes: 0,
    records: 0,
    recordsReturned: 0,
    objectsRead: 0,
    objectsCached: 0,
    objectsSkipped: 0,
    objectsUnverified: 0,
    retries: 0,
  };
}

/**
 * @example const out = await runPoll(ctx, memory, { limits, range, now: Date.now() });
 */
export async function runPoll(
  ctx: SessionContext,
  memory: FollowMemory,
  o: PollOptions,
): Promise<PollOutcome> {
  memory.watch(o.now);
  const walk = new HourWalk(ctx.prefix, memory.hours(), o.range, ctx.listPageSize);
  const hours = [walk.current(), ...walk.upcoming()].filter((h): h is HourState => h !== null);
  memory.restore(hours);
  const stats = emptyStats(1);
  // The walk's own counters: its foreign-key and pruned counts would repeat every poll.
  const walkStats = emptyStats(1);
  const grant = new Grant(o.limits, stats);
  const store = await ctx.store();
  const out: PollOutcome = {
    records: [],
    skipped: [],
    unverified: [],
    spend: emptySpend(),
    stoppedBy: null,
    failing: false,
    hours: hours.map((h) => h.hourMs).reverse(),
  };
  const env: WalkEnv = {
    store,
    grant,
    stats: walkStats,
    signal: o.signal,
    retryBackoffMs: ctx.retryBackoffMs,
    onRetry: (note) => {
      out.lastError = note;
      out.failing = true;
    },
    onSkipped: (s) => report(memory, out, stats, s, folderHour(ctx.prefix, s.key)),
  };
  const poll = new HourPoll(ctx, memory, o, env, store, out, stats);
  for (const hour of [...hours].reverse()) if (!(await poll.hour(walk, hour))) break;
  await walk.settle();
  memory.save(hours, o.now);
  stats.retries += walkStats.retries;
  out.stoppedBy = grant.stoppedBy as Allowance | null;
  out.records.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
  out.spend = {
    listRequests: stats.listRequests,
    getRequests: stats.getRequests,
    downloadedBytes: stats.downloadedBytes,
    decodedBytes: stats.decodedBytes,
    records: stats.records,
    recordsReturned: stats.recordsReturned,
    objectsRead: stats.objectsRead,
    objectsCached: stats.objectsCached,
    objectsSkipped: stats.objectsSkipped,
    objectsUnverified: stats.objectsUnverified,
    retries: stats.retries,
  };
  return out;
}

/** Reads one hour of a poll: its whole listing first, then its unread objects, oldest first. */
class HourPoll {
  private readonly read: ReadContext;

  constructor(
    ctx: SessionContext,
    private readonly memory: FollowMemory,
    private readonly o: PollOptions,
    private readonly env: WalkEnv,
    store: ObjectStore,
    private readonly out: PollOutcome,
    private readonly stats: SessionStats,
  ) {
    this.read = {
      store,
      cache: ctx.cache,
      grant: env.grant,
      retryBackoffMs: ctx.retryBackoffMs,
      signal: o.signal,
      onRetry: env.onRetry,
      prefix: ctx.prefix,
      ...(ctx.verification ? { verification: ctx.verification } : {}),
    };
  }

  /** False when the poll's grant stopped (the remaining hours wait for the next poll). */
  async hour(walk: HourWalk, hour: HourState): Promise<boolean> {
    const { grant } = this.env;
    while (!hour.listed) {
      throwIfAborted(this.o.signal);
      if (!(await walk.fetchPage(hour, this.env))) {
        grant.stop("listAttempts");
        return false; // the pass resumes here in the next poll (follow-memory.ts)
      }
      this.out.failing = false;
    }
    // Keys list newest batch first. Read oldest first, so that a poll its budget stops
    // leaves the newest objects for the next poll and records still come in time order.
    hour.queue.sort(byTime);
    for (;;) {
      throwIfAborted(this.o.signal);
      const target = hour.queue[0];
      if (!target) return true;
      if (this.memory.isRead(target.key)) {
        hour.queue.shift();
        continue;
      }
      if (!grant.has("records")) {
        grant.stop("records");
        return false;
      }
      const startLine = this.memory.resumeLine(target.key);
      this.out.failing = false;
      const got = await readObject(this.read, target, startLine);
      if (got.by !== "getAttempts") this.out.failing = false; // got through, retried or not
      const parsed = parseLines(got.lines, this.o.range, this.o.filter);
      for (const r of parsed.records) this.out.records.push(r);
      this.stats.recordsReturned += parsed.records.length;
      if (got.unverified) {
        this.out.unverified.push({
          key: target.key,
          problems: got.unverified,
          records: parsed.records.length,
        });
        if (startLine === 0) this.stats.objectsUnverified++;
      }
      if (parsed.bad > 0)
        this.out.skipped.push({
          key: target.key,
          reason: "not-json",
          detail: `${parsed.bad} lines are not JSON records with a timestamp`,
          lines: parsed.bad,
        });
      if (got.problem) report(this.memory, this.out, this.stats, got.problem, hour.hourMs);
      if (got.next !== null) {
        this.memory.resumeAt(target.key, got.next, hour.hourMs);
        grant.stop(got.by ?? "records");
        return false;
      }
      hour.queue.shift();
      this.memory.markRead(target.key, hour.hourMs);
      grant.progressed = true;
    }
  }
}

/** Reports a skipped object the first time the follow meets it. */
function report(
  memory: FollowMemory,
  out: PollOutcome,
  stats: SessionStats,
  s: SkippedObject,
  hourMs: number,
): void {
  if (!memory.firstReport(s.key, hourMs)) return;
  out.skipped.push(s);
  stats.objectsSkipped++;
}

/** Oldest batch first: by the key's min-ms, then max-ms, then key (batches of one writer never overlap). */
function byTime(a: QueuedObject, b: QueuedObject): number {
  return a.minMs - b.minMs || a.maxMs - b.maxMs || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}
