/**
 * One pass over a v1 line that checks it is valid JSON — exactly what `JSON.parse` accepts —
 * and, when it is an object, gives its top-level members as spans of the text, without
 * building any value. Compaction needs a handful of short strings from a line (timestamp,
 * level, message…) and copies `data`, `bindings` and `error` as their original text, so
 * parsing every line into objects (and collecting them) was most of its cost.
 *
 * Invariants:
 * - `scanLine(t)` is not null exactly when `JSON.parse(t)` does not throw (the grammar of
 *   RFC 8259 with JSON.parse's whitespace: space, tab, LF, CR), except that a value nested
 *   deeper than `MAX_DEPTH` is `too-deep` (JSON.parse overflows its stack somewhere past
 *   a few thousand levels, and engines refuse far less: ClickHouse's `max_parser_depth` is 1,000);
 * - for an object, `members[0 … count)` are its top-level members in text order, duplicates
 *   included (the last one is the one `JSON.parse` keeps), keys decoded as `JSON.parse`
 *   decodes them;
 * - the answer and its member objects are reused by the next call (a line is scanned, used
 *   and left before the next: no garbage per member).
 */

export interface ScannedMember {
  key: string;
  /** The value's text is `text.slice(start, end)`. */
  start: number;
  end: number;
  /** A string value holding a backslash escape (it must be decoded, not sliced). */
  escaped: boolean;
}

export type ScannedLine =
  | { kind: "object"; members: readonly ScannedMember[]; count: number }
  | { kind: "other" } // valid JSON, not an object
  | { kind: "too-deep" } // valid JSON nested deeper than MAX_DEPTH
  | null; // not JSON

/** Containers open at once at most (the line's own object counts as one). */
export const MAX_DEPTH = 512;
/** Set by `endOfValue` when it stopped at MAX_DEPTH rather than at a grammar error. */
let tooDeep = false;

const QUOTE = 34;

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;
const isDigit = (c: number) => c >= 48 && c <= 57;

/** A string without escapes; and any valid string (sticky: they match at `lastIndex` only). */
const PLAIN_STRING = /"[^"\\\u0000-\u001f]*"/y;
const ANY_STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

/** Position after the string starting at `i` (a `"`), or -1 when it is not a valid string. */
function endOfString(t: string, i: number, out: { escaped: boolean }): number {
  PLAIN_STRING.lastIndex = i;
  if (PLAIN_STRING.test(t)) {
    out.escaped = false;
    return PLAIN_STRING.lastIndex;
  }
  ANY_STRING.lastIndex = i;
  if (!ANY_STRING.test(t)) return -1;
  out.escaped = true;
  return ANY_STRING.lastIndex;
}

/** Position after the number starting at `i`, or -1. */
function endOfNumber(t: string, i: number): number {
  if (t.charCodeAt(i) === 45 /* - */) i++;
  const first = t.charCodeAt(i);
  if (first === 48 /* 0 */) i++;
  else if (first >= 49 && first <= 57) while (isDigit(t.charCodeAt(++i)));
  else return -1;
  if (t.charCodeAt(i) === 46 /* . */) {
    if (!isDigit(t.charCodeAt(++i))) return -1;
    while (isDigit(t.charCodeAt(++i)));
  }
  const e = t.charCodeAt(i);
  if (e === 101 || e === 69 /* e E */) {
    const s = t.charCodeAt(++i);
    if (s === 43 || s === 45) i++;
    if (!isDigit(t.charCodeAt(i))) return -1;
    while (isDigit(t.charCodeAt(++i)));
  }
  return i;
}

function endOfWord(t: string, i: number, word: string): number {
  return t.startsWith(word, i) ? i + word.length : -1;
}

const scratch = { escaped: false };
/** Open containers of the value being scanned: 1 = array, 2 = object (reused, never reentered). */
const openContainers = new Uint8Array(MAX_DEPTH + 1);

/**
 * Position after the JSON value starting at `i` (no leading space), or -1. Iterative: an
 * explicit stack of open containers, so no depth overflows the call stack.
 */
function endOfValue(t: string, i: number, depthLeft: number): number {
  const n = t.length;
  const stack = openContainers;
  let depth = 0;
  for (;;) {
    // A value starts at i.
    const c = t.charCodeAt(i);
    if (c === QUOTE) i = endOfString(t, i, scratch);
    else if (c === 123 /* { */) {
      if (depth >= depthLeft) return tooDeepAt();
      i++;
      while (i < n && isSpace(t.charCodeAt(i))) i++;
      if (t.charCodeAt(i) === 125) i++;
      else {
        stack[depth++] = 2;
        // a key, a colon, then the member's value at the top of the loop
        if (t.charCodeAt(i) !== QUOTE) return -1;
        i = endOfString(t, i, scratch);
        if (i < 0) return -1;
        while (i < n && isSpace(t.charCodeAt(i))) i++;
        if (t.charCodeAt(i) !== 58 /* : */) return -1;
        i++;
        while (i < n && isSpace(t.charCodeAt(i))) i++;
        continue;
      }
    } else if (c === 91 /* [ */) {
      if (depth >= depthLeft) return tooDeepAt();
      i++;
      while (i < n && isSpace(t.charCodeAt(i))) i++;
      if (t.charCodeAt(i) === 93) i++;
      else {
        stack[depth++] = 1;
        continue;
      }
    } else if (c === 116) i = endOfWord(t, i, "true");
    else if (c === 102) i = endOfWord(t, i, "false");
    else if (c === 110) i = endOfWord(t, i, "null");
    else i = endOfNumber(t, i);
    if (i < 0) return -1;
    // After a value: close containers, or go on to the next element / member.
    for (;;) {
      if (depth === 0) return i;
      while (i < n && isSpace(t.charCodeAt(i))) i++;
      const d = t.charCodeAt(i);
      const top = stack[depth - 1];
      if (d === 44 /* , */) {
        i++;
        while (i < n && isSpace(t.charCodeAt(i))) i++;
        if (top === 2) {
          if (t.charCodeAt(i) !== QUOTE) return -1;
          i = endOfString(t, i, scratch);
          if (i < 0) return -1;
          while (i < n && isSpace(t.charCodeAt(i))) i++;
          if (t.charCodeAt(i) !== 58) return -1;
          i++;
          while (i < n && isSpace(t.charCodeAt(i))) i++;
        }
        break; // the next value
      }
      if ((top === 2 && d === 125) || (top === 1 && d === 93)) {
        depth--;
        i++;
        continue;
      }
      return -1;
    }
  }
}

function tooDeepAt(): number {
  tooDeep = true;
  return -1;
}

function keyOf(t: string, start: number, end: number, escaped: boolean): string {
  return escaped ? (JSON.parse(t.slice(start, end)) as string) : t.slice(start + 1, end - 1);
}

const memberPool: ScannedMember[] = [];
const objectAnswer = { kind: "object" as const, members: memberPool, count: 0 };
const OTHER = Object.freeze({ kind: "other" as const });
const TOO_DEEP = Object.freeze({ kind: "too-deep" as const });

/**
 * @example scanLine('{"a":1,"b":"x"}') // { kind: "object", members: [{ key: "a", start: 5, end: 6, … }, …] }
 * @example scanLine('{"a":') // null
 */
export function scanLine(t: string): ScannedLine {
  const n = t.length;
  let i = 0;
  while (i < n && isSpace(t.charCodeAt(i))) i++;
  if (t.charCodeAt(i) !== 123) {
    if (i >= n) return null;
    tooDeep = false;
    const end = endOfValue(t, i, MAX_DEPTH);
    if (end < 0) return tooDeep ? TOO_DEEP : null;
    let j = end;
    while (j < n && isSpace(t.charCodeAt(j))) j++;
    return j === n ? OTHER : null;
  }
  const members = memberPool;
  let count = 0;
  i++;
  while (i < n && isSpace(t.charCodeAt(i))) i++;
  if (t.charCodeAt(i) === 125) i++;
  else
    for (;;) {
      if (t.charCodeAt(i) !== QUOTE) return null;
      const keyEnd = endOfString(t, i, scratch);
      if (keyEnd < 0) return null;
      const key = keyOf(t, i, keyEnd, scratch.escaped);
      i = keyEnd;
      while (i < n && isSpace(t.charCodeAt(i))) i++;
      if (t.charCodeAt(i) !== 58) return null;
      i++;
      while (i < n && isSpace(t.charCodeAt(i))) i++;
      const start = i;
      scratch.escaped = false;
      tooDeep = false;
      const end = endOfValue(t, i, MAX_DEPTH - 1);
      if (end < 0) return tooDeep ? TOO_DEEP : null;
      const m = (members[count] ??= { key: "", start: 0, end: 0, escaped: false });
      m.key = key;
      m.start = start;
      m.end = end;
      m.escaped = t.charCodeAt(start) === QUOTE && scratch.escaped;
      count++;
      i = end;
      while (i < n && isSpace(t.charCodeAt(i))) i++;
      const d = t.charCodeAt(i);
      i++;
      if (d === 125) break;
      if (d !== 44) return null;
      while (i < n && isSpace(t.charCodeAt(i))) i++;
    }
  while (i < n && isSpace(t.charCodeAt(i))) i++;
  if (i !== n) return null;
  objectAnswer.count = count;
  return objectAnswer;
}

/**
 * A scanned string member's value (decoded only when it holds an escape).
 * @example stringValue('{"a":"x"}', { key: "a", start: 5, end: 8, escaped: false }) // "x"
 */
export function stringValue(t: string, m: ScannedMember): string {
  return m.escaped
    ? (JSON.parse(t.slice(m.start, m.end)) as string)
    : t.slice(m.start + 1, m.end - 1);
}
