/**
 * Cheap looks at JSON text before anything is parsed (issue 31 §1): where the elements
 * of a top-level array begin and end, how many fields a span writes (which bounds its
 * nesting), and its UTF-8 size — each one pass over the characters, jumping over strings. JSON.parse of a hostile body is the
 * expensive part (a throwing parse ~6 µs; 1 MiB of `[]` ~60 ms), so the limits on
 * records, bytes and nesting are applied to the spans these find, and only spans that
 * pass are parsed.
 *
 * Limits: the scanner checks brackets and string quoting, not full JSON syntax; a span it
 * accepts may still fail JSON.parse.
 */

/** JSON whitespace: space, tab, line feed, carriage return. */
export function isJsonSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/**
 * The index just past the string whose opening quote is at `at`, or -1 when it is not
 * closed before `end`. Jumps quote to quote (indexOf), counting the backslashes before each.
 */
export function skipString(text: string, at: number, end: number): number {
  let j = at;
  for (;;) {
    j = text.indexOf('"', j + 1);
    if (j < 0 || j >= end) return -1;
    let k = j - 1;
    while (text.charCodeAt(k) === 92) k--;
    if ((j - 1 - k) % 2 === 0) return j + 1;
  }
}

/**
 * True when the span [start, end) writes more than `limit` fields: object keys (each has
 * its `:`) and array elements, nested ones included, duplicates as written. Each nesting
 * level is a field of its parent, so the container stack never grows past `limit + 1`,
 * and a span of at most `2 × limit` characters cannot hold more (one field needs two).
 * @example fieldsOver('{"a":[1,2]}', 0, 11, 2) // true (a, 1, 2)
 */
export function fieldsOver(text: string, start: number, end: number, limit: number): boolean {
  if (end - start <= 2 * limit) return false;
  const arrays: boolean[] = []; // the open containers, innermost last: true for an array
  let fields = 0;
  let opened = false; // just after `[`: the next token, unless `]`, is an element
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (isJsonSpace(c)) continue;
    if (opened) {
      opened = false;
      if (c !== 93 && ++fields > limit) return true;
    }
    if (c === 34) {
      const j = skipString(text, i, end);
      if (j < 0) return false; // not JSON: JSON.parse says so
      i = j - 1;
    } else if (c === 91 || c === 123) {
      arrays.push(c === 91);
      opened = c === 91;
    } else if (c === 93 || c === 125) arrays.pop();
    else if ((c === 58 || (c === 44 && arrays[arrays.length - 1] === true)) && ++fields > limit)
      return true;
  }
  return false;
}

/** What a scanArray visitor wants next: more elements, stop, or only their number. */
export type Visit = "next" | "stop" | "count";

/**
 * Visits each element of the JSON array whose `[` is at `open`: `visit(start, end)` with
 * the element's span (whitespace included). Once `visit` answers "count", the elements
 * after are only counted (`counted`). `how` is "bad" when the text is not one
 * well-bracketed array (unclosed, a stray closer, an empty element, text after it).
 * @example scanArray('[{"a":1}, 2]', 0, () => "next").how // "ok" (visits two spans)
 */
export function scanArray(
  text: string,
  open: number,
  visit: (start: number, end: number) => Visit,
): { how: "ok" | "bad" | "stopped"; counted: number } {
  const n = text.length;
  let depth = 1;
  let start = open + 1;
  let filled = false;
  let commas = 0;
  let counting = -1; // the index of the element visit answered "count" to; -1 while visiting
  const element = (end: number): boolean => {
    if (counting >= 0) return true;
    const v = visit(start, end);
    if (v === "count") counting = commas;
    return v !== "stop";
  };
  const done = (how: "ok" | "bad" | "stopped", last: boolean) => ({
    how,
    // Elements are `commas` (+ 1 for the one the closing `]` ends); those after `counting`.
    counted: counting < 0 ? 0 : commas + (last ? 1 : 0) - counting - 1,
  });
  for (let i = open + 1; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const j = skipString(text, i, n);
      if (j < 0) return done("bad", false);
      i = j - 1;
      filled = true;
    } else if (c === 91 || c === 123) {
      depth++;
      filled = true;
    } else if (c === 93 || c === 125) {
      if (--depth > 0) continue;
      if (c !== 93 || (!filled && commas > 0)) return done("bad", false);
      if (filled && !element(i)) return done("stopped", false);
      for (let k = i + 1; k < n; k++)
        if (!isJsonSpace(text.charCodeAt(k))) return done("bad", false);
      return done("ok", filled);
    } else if (c === 44 && depth === 1) {
      if (!filled) return done("bad", false);
      if (!element(i)) return done("stopped", false);
      start = i + 1;
      filled = false;
      commas++;
    } else if (!isJsonSpace(c)) filled = true;
  }
  return done("bad", false);
}

/**
 * UTF-8 bytes of text[start, end) without encoding it (a lone surrogate counts 3, as
 * TextEncoder writes U+FFFD).
 */
export function utf8Length(text: string, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/**
 * Whether text[start, end) is over `max` UTF-8 bytes, counting only when its length
 * cannot decide (each UTF-16 unit is 1 to 3 bytes).
 */
export function overBytes(text: string, start: number, end: number, max: number): boolean {
  const units = end - start;
  if (units > max) return true;
  if (units * 3 <= max) return false;
  return utf8Length(text, start, end) > max;
}
