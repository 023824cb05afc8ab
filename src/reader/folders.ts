/**
 * The folder tree a range's walk discovers: the months, days and
 * hours of `<prefix>/v1/YYYY/MM/DD/HH/` that overlap the range, newest first,
 * with what is known about each. Pure data; hour-walk.ts sends the LISTs.
 * Invariants:
 * - only folders of the range's UTC hours exist here, so nothing outside them is listed;
 * - a folder's state only moves forward: unknown → discovered; an hour found empty is
 *   `listed` with an empty queue and costs nothing more.
 */
import { hourPrefix } from "../v1-format/object-key.js";
import type { AheadGet } from "./get-ahead.js";
import type { ObjectTarget } from "./object-reader.js";

export interface QueuedObject extends ObjectTarget {
  minMs: number;
  maxMs: number;
  ahead?: AheadGet | undefined;
}

export interface HourState {
  hourMs: number;
  prefix: string;
  day: DayState;
  queue: QueuedObject[];
  startAfter?: string;
  listed: boolean;
  /** A page request in flight (sent ahead or by the walk): resolves false when out of LIST attempts. */
  inflight?: Promise<boolean> | undefined;
}

/**
 * A day folder: `flat` until its one-page listing was tried, then `folders` when
 * that page was cut (the later hours are found with a delimiter LIST), then `known`.
 */
export interface DayState {
  prefix: string;
  month: MonthState;
  /** The range's hours of this day, newest first. */
  hours: HourState[];
  phase: "flat" | "folders" | "known";
  /** For `folders`: the hour folders after this string are still unknown. */
  foldersAfter?: string;
  inflight?: Promise<boolean> | undefined;
}

/** A month folder: `known` from the start when the range touches few of its days. */
export interface MonthState {
  prefix: string;
  days: DayState[];
  known: boolean;
  inflight?: Promise<boolean> | undefined;
}

/** A month is discovered (one delimiter LIST) only when the range spans at least this many of its days. */
export const MONTH_DISCOVERY_MIN_DAYS = 3;

/**
 * Groups the range's hours (newest first) into day and month folders.
 * @example const { hours } = buildFolders("app", hoursNewestFirst(range));
 */
export function buildFolders(prefix: string, hoursNewestFirst: number[]): { hours: HourState[] } {
  const hours: HourState[] = [];
  let day: DayState | undefined;
  let month: MonthState | undefined;
  const months: MonthState[] = [];
  for (const hourMs of hoursNewestFirst) {
    const hp = hourPrefix(prefix, hourMs);
    const dp = hp.slice(0, -3); // "HH/"
    const mp = dp.slice(0, -3); // "DD/"
    if (month?.prefix !== mp) {
      month = { prefix: mp, days: [], known: false };
      months.push(month);
    }
    if (day?.prefix !== dp) {
      day = { prefix: dp, month, hours: [], phase: "flat" };
      month.days.push(day);
    }
    const hour: HourState = { hourMs, prefix: hp, day, queue: [], listed: false };
    day.hours.push(hour);
    hours.push(hour);
  }
  for (const m of months) m.known = m.days.length < MONTH_DISCOVERY_MIN_DAYS;
  return { hours };
}

/**
 * A string that sorts after every key of `folder` ("…/09/") and before the next
 * folder ("…/10/"): "…/090" ('0' > '/').
 * @example after("app/v1/2026/11/24/09/") // "app/v1/2026/11/24/090"
 */
export function afterFolder(folder: string): string {
  return `${folder.slice(0, -1)}0`;
}

/** A string that sorts before every key of `folder` and after the folders before it. */
export function beforeFolder(folder: string): string {
  return folder.slice(0, -1);
}
