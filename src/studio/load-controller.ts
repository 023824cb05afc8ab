/**
 * The one reader session behind Studio: `load` starts a session for a range,
 * `more` adds a grant to it, `refresh` re-reads the current hour as one more
 * grant of the same allowance (auto-refresh).
 *
 * Invariants: no storage request happens before the first `load`; at most one
 * reader call runs at a time (a second one is refused as busy); `more` and
 * `refresh` must name the current load id (a stale page is refused); refreshes
 * count against the session's `maxGrants`; a range is at most 7 days.
 */
import type { GrantLimits, ReaderSession, ReadStats, Source } from "../reader/types.js";
import { MAX_RANGE_MS, type GrantUsage, type LoadResponse } from "./api-types.js";
import { apiError, type MappedError } from "./api-errors.js";

/** Thrown (as a value) for refusals that map to an API error without touching storage. */
export class Refusal extends Error {
  /** True when the answer must close the connection (a request body left unread). */
  readonly closeConnection: boolean;
  constructor(
    readonly mapped: MappedError,
    options: { closeConnection?: boolean } = {},
  ) {
    super(mapped.body.error.message);
    this.closeConnection = options.closeConnection ?? false;
  }
}

const HOUR = 3600_000;
/** Refreshes also re-read the previous hour for this long after the hour turns (late batches). */
const REFRESH_LOOKBACK_MS = 2 * 60_000;

interface Current {
  id: number;
  from: number;
  to: number;
  session: ReaderSession;
  refreshes: ReadStats[];
}

function parseTime(value: unknown, name: string): number {
  const ms =
    typeof value === "number" ? value : typeof value === "string" ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) {
    throw new Refusal(
      apiError(400, "range", `\`${name}\` must be an ISO-8601 time or epoch milliseconds`),
    );
  }
  return ms;
}

/** Validates a requested range; > 7 days is refused with the reason. */
export function checkRange(fromIn: unknown, toIn: unknown): { from: number; to: number } {
  const from = parseTime(fromIn, "from");
  const to = parseTime(toIn, "to");
  if (to <= from)
    throw new Refusal(apiError(400, "range", "the range is empty: `to` must be after `from`"));
  if (to - from > MAX_RANGE_MS) {
    const days = ((to - from) / (24 * HOUR)).toFixed(1);
    throw new Refusal(
      apiError(
        400,
        "range",
        `the range covers ${days} days; one load covers at most 7 days`,
        "narrow the range; for longer spans query the hour folders with DuckDB or Athena (docs/reader.md)",
      ),
    );
  }
  return { from, to };
}

function sum(a: ReadStats, b: ReadStats): ReadStats {
  return {
    ...a,
    listRequests: a.listRequests + b.listRequests,
    getRequests: a.getRequests + b.getRequests,
    downloadedBytes: a.downloadedBytes + b.downloadedBytes,
    decodedBytes: a.decodedBytes + b.decodedBytes,
    records: a.records + b.records,
    objectsRead: a.objectsRead + b.objectsRead,
    objectsSkipped: a.objectsSkipped + b.objectsSkipped,
    objectsCached: a.objectsCached + b.objectsCached,
    grantsUsed: a.grantsUsed + b.grantsUsed,
    retries: (a.retries ?? 0) + (b.retries ?? 0),
    objectsPruned: (a.objectsPruned ?? 0) + (b.objectsPruned ?? 0),
    objectsUnverified: (a.objectsUnverified ?? 0) + (b.objectsUnverified ?? 0),
  };
}

function usage(before: ReadStats | null, after: ReadStats): GrantUsage {
  const d = (k: keyof GrantUsage) =>
    (after[k] as number) - ((before?.[k] as number | undefined) ?? 0);
  return {
    listRequests: d("listRequests"),
    getRequests: d("getRequests"),
    downloadedBytes: d("downloadedBytes"),
    decodedBytes: d("decodedBytes"),
    records: d("records"),
  };
}

export class LoadController {
  private current: Current | null = null;
  private busy = false;
  private nextId = 1;

  constructor(
    private readonly source: Source,
    private readonly limits: GrantLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts a new session over `[from, to)` and runs its first grant. */
  async load(fromIn: unknown, toIn: unknown, signal?: AbortSignal): Promise<LoadResponse> {
    const { from, to } = checkRange(fromIn, toIn);
    return this.exclusive(signal, async () => {
      const session = this.source.query({ from, to, limits: this.limits });
      const current: Current = { id: this.nextId++, from, to, session, refreshes: [] };
      this.current = current;
      const result = await session.load({ signal });
      return this.response(current, "load", result.records, null, result.stats, result);
    });
  }

  /** Resumes the current session exactly where its last grant stopped. */
  async more(loadId: unknown, signal?: AbortSignal): Promise<LoadResponse> {
    const current = this.currentFor(loadId);
    if (current.session.stats.complete) {
      throw new Refusal(apiError(409, "allowance", "everything in this range is already loaded"));
    }
    this.checkGrants(current);
    return this.exclusive(signal, async () => {
      const before = { ...current.session.stats };
      const result = await current.session.more({ signal });
      return this.response(current, "more", result.records, before, result.stats, result);
    });
  }

  /** Re-reads the current hour (one grant) for auto-refresh; only after the range is complete. */
  async refresh(loadId: unknown, signal?: AbortSignal): Promise<LoadResponse> {
    const current = this.currentFor(loadId);
    if (!current.session.stats.complete) {
      throw new Refusal(
        apiError(
          409,
          "allowance",
          "the range is not fully loaded yet",
          "choose Load more first; auto-refresh starts once the range is complete",
        ),
      );
    }
    this.checkGrants(current);
    return this.exclusive(signal, async () => {
      const to = Math.max(this.now() + 1, current.to);
      const from = Math.max(current.from, Math.floor((to - REFRESH_LOOKBACK_MS) / HOUR) * HOUR);
      const session = this.source.query({ from, to, limits: { ...this.limits, maxGrants: 1 } });
      const result = await session.load({ signal });
      current.refreshes.push(result.stats);
      current.to = to;
      const res = this.response(current, "refresh", result.records, null, result.stats, result);
      res.lastGrant = usage(null, result.stats);
      res.window = { from, to };
      return res;
    });
  }

  private currentFor(loadId: unknown): Current {
    const current = this.current;
    if (!current)
      throw new Refusal(apiError(409, "stale", "nothing is loaded yet", "choose Load logs first"));
    if (loadId !== current.id) {
      throw new Refusal(
        apiError(409, "stale", "this page shows an older load", "choose Load logs again"),
      );
    }
    return current;
  }

  private checkGrants(current: Current): void {
    const used = this.totals(current).grantsUsed;
    if (used >= this.limits.maxGrants) {
      throw new Refusal(
        apiError(
          409,
          "allowance",
          `all ${this.limits.maxGrants} grants of this session are used`,
          "choose Load logs to start a new session, or narrow the range",
        ),
      );
    }
  }

  private totals(current: Current): ReadStats {
    return current.refreshes.reduce(sum, {
      ...current.session.stats,
      maxGrants: this.limits.maxGrants,
    });
  }

  private response(
    current: Current,
    kind: LoadResponse["kind"],
    records: LoadResponse["records"],
    before: ReadStats | null,
    after: ReadStats,
    result: {
      partial: boolean;
      complete: boolean;
      skipped: LoadResponse["skipped"];
      unverified: LoadResponse["unverified"];
      cursor: LoadResponse["cursor"];
      lastError?: string | undefined;
      notice?: string | undefined;
    },
  ): LoadResponse {
    const stats = this.totals(current);
    return {
      loadId: current.id,
      kind,
      from: current.from,
      to: current.to,
      records,
      stats,
      lastGrant: usage(before, after),
      partial: kind === "refresh" ? result.partial : stats.partial,
      complete: kind === "refresh" ? result.complete : stats.complete,
      stoppedBy: after.stoppedBy,
      skipped: result.skipped,
      unverified: result.unverified,
      cursor: result.cursor,
      ...(result.lastError ? { lastError: result.lastError } : {}),
      ...(result.notice ? { notice: result.notice } : {}),
    };
  }

  /**
   * Runs one grant at a time. A grant aborted by its request (the tab closed) ends at once and
   * frees the controller; its session lost the records it read, so the page must load again.
   */
  private async exclusive<T>(signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    if (this.busy)
      throw new Refusal(
        apiError(409, "busy", "a load is already running", "wait for it to finish"),
      );
    this.busy = true;
    try {
      return await fn();
    } catch (err) {
      if (signal?.aborted) this.current = null;
      throw err;
    } finally {
      this.busy = false;
    }
  }
}
