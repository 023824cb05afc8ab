/**
 * What a follow (follow.ts) remembers between polls: the UTC hours it still watches,
 * the keys it has read, where an object cut by a poll's budget resumes, the skipped
 * objects already reported, and each watched hour's listing pass in progress.
 * Invariants:
 * - v1 objects are immutable and their keys unique, so "key read" is exact: a key read
 *   once (or reported as skipped once) is never read or reported again;
 * - a listing pass over an hour runs to the end of the hour's listing before a new pass
 *   starts from its top, even across polls (its position and its listed-but-unread keys
 *   are kept), so an hour with more keys than one poll can list is still read whole;
 * - an hour is watched from the moment the clock reaches it (hours a suspended machine
 *   skipped included, up to 7 days) until a pass that STARTED at least `lateMs` after the
 *   hour's end has listed and read it completely: an object a writer delivered late into
 *   it within that time is still shown;
 * - memory is bounded by the watched hours: what is known of an hour goes with it.
 */
import { HOUR_MS, utcHourStart } from "../v1-format/object-key.js";
import type { HourState, QueuedObject } from "./hour-walk.js";
import { MAX_RANGE_MS } from "./limits.js";

/** An hour's listing pass that a poll left unfinished. */
interface Pass {
  startedAt: number;
  startAfter: string | undefined;
  listed: boolean;
  queue: QueuedObject[];
}

export class FollowMemory {
  private readonly watched = new Set<number>();
  private newest = -Infinity;
  private readonly read = new Map<string, number>();
  /** key → [line, hourMs] */
  private readonly resume = new Map<string, [number, number]>();
  private readonly reported = new Map<string, number>();
  private readonly passes = new Map<number, Pass>();

  constructor(
    private readonly fromMs: number,
    private readonly lateMs: number,
  ) {}

  /** Watches the hours from the newest watched one up to `now`'s (and `now`'s previous hour while it is late). */
  watch(now: number): void {
    const current = utcHourStart(now);
    const first = Math.max(
      this.newest + HOUR_MS,
      current - (now - current < this.lateMs ? HOUR_MS : 0),
      utcHourStart(now - MAX_RANGE_MS),
    );
    for (let h = first; h <= current; h += HOUR_MS)
      if (h + HOUR_MS > this.fromMs) this.watched.add(h);
    this.newest = Math.max(this.newest, current);
  }

  /** The watched hours, newest first (the order an HourWalk takes). */
  hours(): number[] {
    return [...this.watched].sort((a, b) => b - a);
  }

  isRead(key: string): boolean {
    return this.read.has(key) || this.reported.has(key);
  }

  markRead(key: string, hourMs: number): void {
    this.read.set(key, hourMs);
    this.resume.delete(key);
  }

  /** The line an object cut by an earlier poll (or the first read) resumes at. */
  resumeLine(key: string): number {
    return this.resume.get(key)?.[0] ?? 0;
  }

  resumeAt(key: string, line: number, hourMs: number): void {
    this.resume.set(key, [line, hourMs]);
  }

  /** True the first time a skipped key is reported (each is shown and counted once). */
  firstReport(key: string, hourMs: number): boolean {
    if (this.reported.has(key)) return false;
    this.reported.set(key, hourMs);
    return true;
  }

  /** Puts back the passes earlier polls left unfinished into a new walk's hours. */
  restore(hours: HourState[]): void {
    for (const hour of hours) {
      const pass = this.passes.get(hour.hourMs);
      if (!pass) continue;
      hour.queue = pass.queue.slice();
      if (pass.startAfter !== undefined) hour.startAfter = pass.startAfter;
      hour.listed = pass.listed;
      // The day's and month's discovery LISTs would list the hour from its top again.
      hour.day.phase = "known";
      hour.day.month.known = true;
    }
  }

  /**
   * Keeps each hour's unfinished pass after a poll that started at `startedAt`; retires the
   * hours a late-enough pass finished, and forgets what was known of them.
   */
  save(hours: HourState[], startedAt: number): void {
    for (const hour of hours) {
      const h = hour.hourMs;
      const queue = hour.queue.filter((o) => !this.isRead(o.key)).map(({ ahead: _, ...o }) => o);
      const passStart = this.passes.get(h)?.startedAt ?? startedAt;
      if (hour.listed && queue.length === 0) {
        this.passes.delete(h);
        if (passStart >= h + HOUR_MS + this.lateMs) this.retire(h);
      } else if (hour.listed || hour.startAfter !== undefined || queue.length > 0) {
        this.passes.set(h, {
          startedAt: passStart,
          startAfter: hour.startAfter,
          listed: hour.listed,
          queue,
        });
      } else this.passes.delete(h); // nothing of this pass was listed: the next starts afresh
    }
  }

  private retire(hourMs: number): void {
    this.watched.delete(hourMs);
    for (const map of [this.read, this.reported])
      for (const [key, h] of map) if (h === hourMs) map.delete(key);
    for (const [key, [, h]] of this.resume) if (h === hourMs) this.resume.delete(key);
  }
}

/**
 * The UTC hour of the `<prefix>/v1/YYYY/MM/DD/HH/` folder holding `key` (a foreign key has
 * no hour of its own), or NaN when it is in none.
 * @example folderHour("app", "app/v1/2026/11/03/10/notes.txt") // Date.UTC(2026, 10, 3, 10)
 */
export function folderHour(prefix: string, key: string): number {
  const head = prefix ? `${prefix}/` : "";
  if (!key.startsWith(head)) return NaN;
  const m = /^v1\/(\d{4})\/(\d{2})\/(\d{2})\/(\d{2})\//.exec(key.slice(head.length));
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4])) : NaN;
}
