/**
 * The members of a JSON object text as spans of the original text, so `data`, `bindings`,
 * `error` and unknown fields are copied exactly as written (JSON.parse + JSON.stringify would
 * round 64-bit integers and rewrite numbers such as `1.0` or `1e3`). The text must be valid
 * JSON: callers parse it first, this only finds where each value starts and ends.
 */

export interface Member {
  key: string;
  /** The value's text is `text.slice(start, end)`. */
  start: number;
  end: number;
}

const QUOTE = 34;
const BACKSLASH = 92;

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

function skipSpace(t: string, i: number, end: number): number {
  while (i < end && isSpace(t.charCodeAt(i))) i++;
  return i;
}

/** Index after the string starting at `i` (a `"`). */
function skipString(t: string, i: number): number {
  for (let q = t.indexOf('"', i + 1); q !== -1; q = t.indexOf('"', q + 1)) {
    // The quote ends the string unless an odd number of backslashes escapes it.
    let back = 0;
    while (t.charCodeAt(q - 1 - back) === BACKSLASH) back++;
    if ((back & 1) === 0) return q + 1;
  }
  return t.length;
}

/** Index after the value starting at `i`. */
function skipValue(t: string, i: number, end: number): number {
  const c = t.charCodeAt(i);
  if (c === QUOTE) return skipString(t, i);
  if (c === 123 /* { */ || c === 91 /* [ */) {
    let depth = 0;
    for (; i < end; i++) {
      const d = t.charCodeAt(i);
      if (d === QUOTE) i = skipString(t, i) - 1;
      else if (d === 123 || d === 91) depth++;
      else if (d === 125 || d === 93) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return i;
  }
  while (i < end) {
    const d = t.charCodeAt(i);
    if (d === 44 /* , */ || d === 125 /* } */ || d === 93 || isSpace(d)) break;
    i++;
  }
  return i;
}

/**
 * Members of the object text in `text[from, to)`; null when it is not an object.
 * @example objectMembers('{"a":1,"b":{"c":2}}') // [{key:"a",start:5,end:6},{key:"b",start:11,end:18}]
 */
export function objectMembers(text: string, from = 0, to = text.length): Member[] | null {
  let i = skipSpace(text, from, to);
  if (text.charCodeAt(i) !== 123) return null;
  const out: Member[] = [];
  i = skipSpace(text, i + 1, to);
  if (text.charCodeAt(i) === 125) return out;
  while (i < to) {
    if (text.charCodeAt(i) !== QUOTE) return null;
    const keyEnd = skipString(text, i);
    const raw = text.slice(i + 1, keyEnd - 1);
    const key = raw.includes("\\") ? (JSON.parse(text.slice(i, keyEnd)) as string) : raw;
    i = skipSpace(text, keyEnd, to);
    if (text.charCodeAt(i) !== 58 /* : */) return null;
    const start = skipSpace(text, i + 1, to);
    const end = skipValue(text, start, to);
    out.push({ key, start, end });
    i = skipSpace(text, end, to);
    const c = text.charCodeAt(i);
    if (c === 125) return out;
    if (c !== 44) return null;
    i = skipSpace(text, i + 1, to);
  }
  return null;
}

/** The span of the value at `path` inside the object text `text[from, to)`; null if absent. */
export function pathSpan(
  text: string,
  path: readonly string[],
  from = 0,
  to = text.length,
): { start: number; end: number } | null {
  let span: { start: number; end: number } = { start: from, end: to };
  for (const key of path) {
    const members = objectMembers(text, span.start, span.end);
    if (!members) return null;
    let found: Member | undefined;
    for (const m of members) if (m.key === key) found = m; // the last one wins, as in JSON.parse
    if (!found) return null;
    span = found;
  }
  return span;
}
