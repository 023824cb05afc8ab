/**
 * Follow mode (SPEC §5.6, `stowage logs --follow`): the first read of a query (one grant,
 * or up to `more` further ones), then polls of the newest UTC hours for objects not read
 * yet, each under its own budget (follow-poll.ts), yielding new records in time order.
 * It ends when its signal aborts; a permanent storage failure throws, as a load does.
 * Invariants:
 * - each record of an object delivered into a watched hour is yielded once: the first read
 *   covers [from, end of the current UTC hour) — an object never straddles an hour (its
 *   key's min and max lie in one), so none is half inside it — and the keys it finished are
 *   remembered; polls read only keys not read yet (follow-memory.ts);
 * - polls are `intervalMs` apart. A poll that storage failed (its LIST or GET attempts used
 *   up on retries) is followed by a longer wait from the one retry policy
 *   (store/retry-policy.ts), growing with each consecutive failed poll up to `maxBackoffMs`;
 *   an `outage` event says so once, a `recovered` event when a poll gets through again;
 * - waits hold the process open (shared/abort.ts `sleep`): following is the work itself.
 */
import { HOUR_MS, utcHourStart } from "../v1-format/object-key.js";
import { sleep } from "../shared/abort.js";
import { isStowageError, StowageError } from "../shared/errors.js";
import { retryDelayMs, type RetryPolicyOptions } from "../store/retry-policy.js";
import { folderHour, FollowMemory } from "./follow-memory.js";
import { emptySpend, runPoll, type PollOutcome, type PollSpend } from "./follow-poll.js";
import { MAX_RANGE_MS, resolveLimits } from "./limits.js";
import type { LogRecordLike } from "./record-like.js";
import { QuerySession, type SessionContext } from "./session.js";
import { toEpochMs, type TimeRange } from "./time-range.js";
import type { GrantLimits, LoadResult, ReadStats } from "./types.js";

export type { PollOutcome, PollSpend } from "./follow-poll.js";

/** The allowances of one poll: a grant's, without `maxGrants` (a follow polls until stopped). */
export type PollLimits = Omit<GrantLimits, "maxGrants">;

const MiB = 1024 * 1024;

/**
 * Per-poll allowances when nothing overrides them. Bytes as a grant's, so any object a
 * grant can read a poll can too; fewer requests: a quiet poll costs one LIST per UTC day watched.
 */
export const DEFAULT_POLL_LIMITS: Readonly<PollLimits> = Object.freeze({
  downloadBytes: 16 * MiB,
  listAttempts: 8,
  getAttempts: 32,
  records: 20_000,
  decodedBytes: 25 * MiB,
});

/** Default wait between polls. */
export const DEFAULT_FOLLOW_INTERVAL_MS = 2_000;
/** How long after an hour ends its folder is still watched for objects delivered late. */
export const DEFAULT_FOLLOW_LATE_MS = 10 * 60_000;

export interface FollowOptions {
  /** Where the first read starts (Date, epoch ms or ISO); it runs to the end of the current UTC hour. */
  from: Date | number | string;
  /** Runs on loaded records only; never widens what is fetched. */
  filter?: ((record: LogRecordLike) => boolean) | undefined;
  /** Allowances of the first read's grants. */
  limits?: Partial<GrantLimits> | undefined;
  /** Further grants the first read may spend when one is not enough. Default 0. */
  more?: number | undefined;
  /** Allowances of each poll. Default DEFAULT_POLL_LIMITS. */
  pollLimits?: Partial<PollLimits> | undefined;
  /** Wait between polls. Default 2,000 ms. */
  intervalMs?: number | undefined;
  /** An hour is watched this long after it ends (late deliveries). Default 10 min. */
  lateMs?: number | undefined;
  /** Ceiling of the wait after failed polls. Default 30,000 ms. */
  maxBackoffMs?: number | undefined;
  /** Stops the follow: the read in flight and the wait end at once, the iteration ends. */
  signal?: AbortSignal | undefined;
  /** The clock (tests). Default Date.now. */
  now?: (() => number) | undefined;
}

/** What a follow has spent so far. */
export interface FollowStats {
  /** The first read's session stats (null before it started). */
  first: ReadStats | null;
  polls: number;
  /** Polls that storage failed (retries used up). */
  failedPolls: number;
  /** All polls together. */
  spent: PollSpend;
  /** Records yielded: the first read's and every poll's. */
  recordsShown: number;
}

export type FollowEvent =
  /** The first read: its records in time order (all its grants), its last result's stats and cursor. */
  | { type: "first"; result: LoadResult }
  /** One poll: its new records in time order and what it spent. */
  | ({ type: "poll"; poll: number } & PollOutcome)
  /** Storage failed a poll: the follow waits `retryInMs`, then longer, until a poll gets through. */
  | { type: "outage"; error: string; retryInMs: number }
  /** A poll got through after `failedPolls` failed ones. */
  | { type: "recovered"; failedPolls: number };

/**
 * A follow: iterate it (once) for its events; `stats` is what it spent so far.
 * @example
 * const ac = new AbortController();
 * for await (const ev of source.follow({ from: "-10m", signal: ac.signal }))
 *   if (ev.type !== "outage" && ev.type !== "recovered")
 *     for (const r of ev.type === "first" ? ev.result.records : ev.records) console.log(r.message);
 */
export interface Follow extends AsyncIterable<FollowEvent> {
  readonly stats: FollowStats;
  readonly pollLimits: Readonly<PollLimits>;
  readonly intervalMs: number;
}

/**
 * Defaults overlaid with `overrides` (positive integers). Throws StowageError("usage").
 * @example resolvePollLimits({ getAttempts: 8 }).getAttempts // 8
 */
export function resolvePollLimits(overrides?: Partial<PollLimits>): PollLimits {
  if (overrides && "maxGrants" in overrides)
    throw new StowageError(
      "usage",
      "maxGrants is not a poll limit: a follow polls until it is stopped",
    );
  const given = Object.fromEntries(
    Object.entries(overrides ?? {}).filter(([, v]) => v !== undefined),
  );
  const { maxGrants: _, ...limits } = resolveLimits({ ...DEFAULT_POLL_LIMITS, ...given });
  return limits;
}

/** The follow behind `source.follow()`; see Follow. */
export class FollowSession implements Follow {
  readonly pollLimits: Readonly<PollLimits>;
  readonly intervalMs: number;
  private readonly fromMs: number;
  private readonly range: TimeRange;
  private readonly memory: FollowMemory;
  private readonly backoff: RetryPolicyOptions;
  private readonly now: () => number;
  private started = false;
  private first: QuerySession | null = null;
  private polls = 0;
  private failedPolls = 0;
  private recordsShown = 0;
  private readonly spent = emptySpend();

  constructor(
    private readonly ctx: SessionContext,
    private readonly options: FollowOptions,
  ) {
    this.fromMs = toEpochMs(options.from, "from");
    this.range = { fromMs: this.fromMs, toMs: Number.POSITIVE_INFINITY };
    this.pollLimits = Object.freeze(resolvePollLimits(options.pollLimits));
    this.intervalMs = positive(options.intervalMs, DEFAULT_FOLLOW_INTERVAL_MS, "intervalMs");
    const lateMs = positive(options.lateMs, DEFAULT_FOLLOW_LATE_MS, "lateMs");
    this.memory = new FollowMemory(this.fromMs, lateMs);
    this.backoff = {
      maxAttempts: Number.POSITIVE_INFINITY,
      initialBackoffMs: this.intervalMs,
      maxBackoffMs: Math.max(
        this.intervalMs,
        positive(options.maxBackoffMs, 30_000, "maxBackoffMs"),
      ),
    };
    this.now = options.now ?? Date.now;
  }

  get stats(): FollowStats {
    return {
      first: this.first?.stats ?? null,
      polls: this.polls,
      failedPolls: this.failedPolls,
      spent: { ...this.spent },
      recordsShown: this.recordsShown,
    };
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<FollowEvent, void, undefined> {
    if (this.started)
      throw new StowageError("usage", "a follow is iterated once; call source.follow() again");
    this.started = true;
    const signal = this.options.signal;
    try {
      yield await this.firstRead();
      let failures = 0;
      let wait = this.intervalMs;
      for (;;) {
        await sleep(wait, signal);
        const out = await runPoll(this.ctx, this.memory, {
          limits: { ...this.pollLimits, maxGrants: 1 },
          range: this.range,
          filter: this.options.filter,
          signal,
          now: this.now(),
        });
        this.count(out);
        const failed = out.failing;
        if (!failed && failures > 0) {
          yield { type: "recovered", failedPolls: failures };
          failures = 0;
        }
        if (failed) this.failedPolls++;
        wait = failed
          ? Math.max(this.intervalMs, retryDelayMs(this.backoff, ++failures))
          : this.intervalMs;
        yield { type: "poll", poll: this.polls, ...out };
        if (failed && failures === 1)
          yield { type: "outage", error: out.lastError ?? "storage failed", retryInMs: wait };
      }
    } catch (err) {
      if (signal?.aborted && isStowageError(err, "aborted")) return;
      throw err;
    }
  }

  /** The first read: [from, end of the current UTC hour), as a query session reads it. */
  private async firstRead(): Promise<FollowEvent> {
    const now = this.now();
    const to = utcHourStart(now) + HOUR_MS;
    if (to - this.fromMs > MAX_RANGE_MS)
      throw new StowageError(
        "usage",
        `a follow first reads from \`from\` (${new Date(this.fromMs).toISOString()}) to the end of the current UTC hour (${new Date(to).toISOString()}), at most 7 days; use a later \`from\``,
      );
    this.memory.watch(now);
    const session = new QuerySession(
      {
        ...this.ctx,
        onObjectDone: (obj) => this.memory.markRead(obj.key, utcHourStart(obj.minMs)),
      },
      {
        from: this.fromMs,
        to,
        ...(this.options.limits ? { limits: this.options.limits } : {}),
        ...(this.options.filter ? { filter: this.options.filter } : {}),
        signal: this.options.signal,
      },
    );
    this.first = session;
    let result = await session.load();
    const all = { records: [...result.records], skipped: [...result.skipped] };
    const unverified = [...result.unverified];
    const more = Math.max(0, Math.floor(this.options.more ?? 0));
    for (
      let i = 0;
      i < more && result.partial && result.stats.grantsUsed < result.stats.maxGrants;
      i++
    ) {
      result = await session.more();
      all.records.push(...result.records);
      all.skipped.push(...result.skipped);
      unverified.push(...result.unverified);
    }
    // Foreign keys are met again by every poll's LIST: each is shown and counted once.
    for (const s of all.skipped)
      if (s.reason !== "not-json")
        this.memory.firstReport(s.key, folderHour(this.ctx.prefix, s.key));
    const c = result.cursor;
    if (c?.key && c.line > 0) this.memory.resumeAt(c.key, c.line, c.hourMs);
    this.recordsShown += all.records.length;
    all.records.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
    return { type: "first", result: { ...result, ...all, unverified } };
  }

  private count(out: PollOutcome): void {
    this.polls++;
    this.recordsShown += out.records.length;
    for (const k of Object.keys(this.spent) as (keyof PollSpend)[]) this.spent[k] += out.spend[k];
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new StowageError("usage", `follow ${name} must be a positive number of ms, got ${value}`);
  return value;
}
