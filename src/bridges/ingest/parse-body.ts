/**
 * An ingestion body → candidate records: a JSON array, or NDJSON (one record per
 * line). Never throws. The cheap limits come before JSON.parse (issue 31 §1: parsing
 * every line of a hostile 1 MiB body cost 3.25 s of CPU): once `maxRecords` records were
 * taken the rest are `tooMany`, only counted; a record that does not start with `{` is
 * `malformed` unparsed; one over `maxRecordBytes` is `oversized` by its span; one that
 * writes more than `maxFields` keys and array elements (which bounds its nesting too) is
 * `tooManyFields` unparsed. The body is refused whole past `maxMalformed` records that are
 * not JSON objects, or when nothing in it is one. So JSON.parse runs at most `maxRecords`
 * times, on spans within `maxRecordBytes` and `maxFields`, plus at most `maxMalformed + 1`
 * times in vain.
 */
import { fieldsOver, isJsonSpace, overBytes, scanArray } from "./scan-json.js";

export interface BodyLimits {
  maxRecords: number;
  maxRecordBytes: number;
  maxFields: number;
  maxMalformed: number;
}

export interface ParsedBody {
  /** The records to validate, in order, each with its place among the body's records (array elements or non-blank lines), which the answer's `retry` names. */
  records: { value: unknown; index: number }[];
  /** Not a JSON object. */
  malformed: number;
  oversized: number;
  /** Past maxRecords (not read). */
  tooMany: number;
  /** More than maxFields keys and array elements as written (not parsed). */
  tooManyFields: number;
  /** Why the whole body is refused (400), or null. */
  refused: string | null;
}

export const UNREADABLE = "body is neither a JSON array nor NDJSON records";

/** Sorts each record of a body into the counts; shared by text bodies and body-parser values. */
export class BodyTally {
  readonly out: ParsedBody = {
    records: [],
    malformed: 0,
    oversized: 0,
    tooMany: 0,
    tooManyFields: 0,
    refused: null,
  };
  private firstMalformed = -1;

  constructor(readonly limits: BodyLimits) {}

  /** Counts one malformed record; false (and the body refused) once past maxMalformed. */
  malformed(index: number): boolean {
    if (this.firstMalformed < 0) this.firstMalformed = index;
    if (++this.out.malformed <= this.limits.maxMalformed) return true;
    this.out.refused = `more than ${this.limits.maxMalformed} records are not JSON objects (the first is record ${this.firstMalformed}, counting from 0); nothing was accepted`;
    return false;
  }

  /** True once maxRecords records were taken (parsed, or refused for their fields): the rest are `tooMany`, unparsed. */
  full(): boolean {
    return this.out.records.length + this.out.tooManyFields >= this.limits.maxRecords;
  }

  /** The result; a body where nothing but malformed records was found is unreadable. */
  done(): ParsedBody {
    const o = this.out;
    const found = o.records.length + o.oversized + o.tooManyFields;
    if (o.refused === null && o.malformed > 0 && found === 0) o.refused = UNREADABLE;
    return o;
  }
}

/** @example parseBody('{"message":"a"}\n{"message":"b"}\n', limits).records.length // 2 */
export function parseBody(text: string, limits: BodyLimits): ParsedBody {
  let first = 0;
  while (first < text.length && isJsonSpace(text.charCodeAt(first))) first++;
  const tally = new BodyTally(limits);
  return text.charCodeAt(first) === 91 ? parseArray(text, first, tally) : parseLines(text, tally);
}

/**
 * One record's span: false to stop (the body is refused). `inArray`: an element of a JSON
 * array (one that does not parse breaks the array), else an NDJSON line.
 */
function examine(
  tally: BodyTally,
  text: string,
  start: number,
  end: number,
  index: number,
  inArray: boolean,
): boolean {
  const l = tally.limits;
  if (tally.full()) {
    tally.out.tooMany++;
    return true;
  }
  while (start < end && isJsonSpace(text.charCodeAt(start))) start++;
  while (end > start && isJsonSpace(text.charCodeAt(end - 1))) end--;
  if (text.charCodeAt(start) !== 123) return tally.malformed(index);
  if (overBytes(text, start, end, l.maxRecordBytes)) {
    tally.out.oversized++;
    return true;
  }
  if (fieldsOver(text, start, end, l.maxFields)) {
    tally.out.tooManyFields++;
    return true;
  }
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end));
  } catch {
    if (!inArray) return tally.malformed(index);
    tally.out.refused = UNREADABLE;
    return false;
  }
  tally.out.records.push({ value, index });
  return true;
}

function parseArray(text: string, open: number, tally: BodyTally): ParsedBody {
  let index = -1;
  const { how, counted } = scanArray(text, open, (start, end) => {
    if (!examine(tally, text, start, end, ++index, true)) return "stop";
    return tally.full() ? "count" : "next";
  });
  tally.out.tooMany += counted;
  if (how === "bad") tally.out.refused = UNREADABLE;
  return tally.done();
}

function parseLines(text: string, tally: BodyTally): ParsedBody {
  const n = text.length;
  let index = -1;
  let pos = 0;
  while (pos < n && !tally.full()) {
    let end = text.indexOf("\n", pos);
    if (end < 0) end = n;
    let s = pos;
    while (s < end && isJsonSpace(text.charCodeAt(s))) s++;
    pos = end + 1;
    if (s === end) continue; // a blank line is no record
    if (!examine(tally, text, s, end, ++index, false)) return tally.done();
  }
  tally.out.tooMany += countLines(text, pos);
  return tally.done();
}

/** Non-blank lines from `pos` on, in one pass over the characters (no call per line). */
function countLines(text: string, pos: number): number {
  let lines = 0;
  let filled = false;
  for (let i = pos; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      if (filled) lines++;
      filled = false;
    } else if (!filled && c !== 32 && c !== 9 && c !== 13) filled = true;
  }
  return filled ? lines + 1 : lines;
}
