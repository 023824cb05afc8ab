/**
 * `name: value` pairs in text whose name is sensitive (issue 31 §3): JSON members
 * (`{"password":"…"}` in an axios error's `config.data` or a logged body, also once
 * escaped inside another JSON string: `{\"token\":\"…\"}`), and `name: value` as YAML,
 * util.inspect and header lines write it (`password: x`, `{ apiKey: 'x' }`,
 * `Authorization: Token …`, `Cookie: connect.sid=…`).
 *
 * One pass over the colons of the string; each looks back at most 16 + 64 characters
 * for a name and forward at most 16 + 4,096 for a value, so the scan stays linear.
 * Only a sensitive name's value is parsed. The `name: value` form needs the name right
 * before the colon and a space, tab or quote right after it: plain-string.ts clears
 * every other short ASCII string without a call here.
 */
import { normalizeKey } from "./redact-keys.js";

const MAX_GAP = 16;
const MAX_NAME = 64;
const MAX_VALUE = 4096;
const REDACTED = "[REDACTED]";

const QUOTE = 0x22;
const APOS = 0x27;
const BACKSLASH = 0x5c;

/** a–z A–Z 0–9 _ : the last character of a name before its colon. */
function isWordChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f
  );
}

/** A name's characters: word characters, `-` and `.` (`x-api-key`, `connect.sid`). */
function isNameChar(c: number): boolean {
  return isWordChar(c) || c === 0x2d || c === 0x2e;
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** `\t`, `\n` or `\r` at `k`: whitespace in JSON text that is itself inside a JSON string. */
function isEscapedSpace(s: string, k: number): boolean {
  if (s.charCodeAt(k) !== BACKSLASH) return false;
  const c = s.charCodeAt(k + 1);
  return c === 0x74 || c === 0x6e || c === 0x72;
}

/** Header lines whose whole value is the credential: `Authorization: Digest a="…", b="…"`. */
function takesLineRest(name: string): boolean {
  const n = normalizeKey(name);
  return /(?:^| )(?:authorization|cookies?)$/.test(n);
}

/** A name predicate, optionally with a pre-check on the characters before a name's end. */
type NameTest = ((name: string) => boolean) & {
  mayEndAt?: (s: string, end: number) => boolean;
};

interface Replacement {
  start: number;
  end: number;
  text: string;
}

/**
 * Returns `s` with the value of every pair named by `isSecretName` replaced by "[REDACTED]".
 * @example redactColonPairs('{"user":"bob","password":"hunter2"}', (n) => n === "password") // '{"user":"bob","password":"[REDACTED]"}'
 */
export function redactColonPairs(s: string, isSecretName: NameTest): string {
  let out = "";
  let copied = 0;
  let changed = false;
  for (let i = s.indexOf(":"); i !== -1;) {
    const r = jsonMember(s, i, isSecretName) ?? namedValue(s, i, isSecretName);
    if (r === null || r.start < copied) {
      i = s.indexOf(":", i + 1);
      continue;
    }
    out += s.slice(copied, r.start) + r.text;
    copied = r.end;
    changed = true;
    i = s.indexOf(":", r.end);
  }
  return changed ? out + s.slice(copied) : s;
}

/** `"name" : value` or `\"name\":\"value\"` (JSON text inside a JSON string) at the colon `i`. */
function jsonMember(s: string, i: number, isSecretName: NameTest) {
  let e = i;
  while (e > 0 && i - e < MAX_GAP) {
    if (isJsonSpace(s.charCodeAt(e - 1))) e--;
    else if (isEscapedSpace(s, e - 2)) e -= 2;
    else break;
  }
  if (s.charCodeAt(e - 1) !== QUOTE) return null;
  const escaped = s.charCodeAt(e - 2) === BACKSLASH;
  const nameEnd = escaped ? e - 2 : e - 1;
  let b = nameEnd;
  while (b > 0 && nameEnd - b < MAX_NAME) {
    const c = s.charCodeAt(b - 1);
    if (c === QUOTE || c === BACKSLASH || c < 0x20) break;
    b--;
  }
  if (isSecretName.mayEndAt?.(s, nameEnd) === false) return null; // no slice, no lookup
  if (b === nameEnd || s.charCodeAt(b - 1) !== QUOTE) return null;
  if (escaped && s.charCodeAt(b - 2) !== BACKSLASH) return null;
  if (!isSecretName(s.slice(b, nameEnd))) return null;
  let j = i + 1;
  while (j < s.length && j - i <= MAX_GAP) {
    if (isJsonSpace(s.charCodeAt(j))) j++;
    else if (escaped && isEscapedSpace(s, j)) j += 2;
    else break;
  }
  const end = escaped ? escapedStringEnd(s, j) : jsonValueEnd(s, j);
  if (end === -1) return null;
  const value = s.slice(j, end);
  if (/^(?:true|false|null)$|^\\?""$|^\\?"\[REDACTED/.test(value)) return null;
  return { start: j, end, text: escaped ? `\\"${REDACTED}\\"` : `"${REDACTED}"` };
}

/** End of the JSON value at `j`: a string, a number, or a flat `[…]` / `{…}`; -1 when none. */
function jsonValueEnd(s: string, j: number): number {
  const c = s.charCodeAt(j);
  const limit = Math.min(s.length, j + MAX_VALUE);
  if (c === QUOTE) {
    for (let k = j + 1; k < limit; k++) {
      const d = s.charCodeAt(k);
      if (d === BACKSLASH) k++;
      else if (d === QUOTE) return k + 1;
    }
    return -1;
  }
  if (c === 0x5b || c === 0x7b) {
    const close = c === 0x5b ? 0x5d : 0x7d;
    for (let k = j + 1; k < limit; k++) {
      const d = s.charCodeAt(k);
      if (d === close) return k + 1;
      if (d === 0x5b || d === 0x7b) return -1; // nested: left to the key table when it is data
    }
    return -1;
  }
  let k = j;
  while (k < limit && /[-+.\deE]/.test(s[k]!)) k++;
  return k > j && /\d/.test(s.slice(j, k)) ? k : -1;
}

/** End of `\"…\"` at `j` (a string inside JSON text inside a JSON string); -1 when none. */
function escapedStringEnd(s: string, j: number): number {
  if (s.charCodeAt(j) !== BACKSLASH || s.charCodeAt(j + 1) !== QUOTE) return -1;
  const limit = Math.min(s.length - 1, j + MAX_VALUE);
  let innerEscape = false;
  for (let k = j + 2; k < limit; k++) {
    let d = s.charCodeAt(k);
    if (d === QUOTE) return -1; // the outer string ended first
    if (d === BACKSLASH) d = s.charCodeAt(++k); // one level decoded
    if (innerEscape) innerEscape = false;
    else if (d === BACKSLASH) innerEscape = true;
    else if (d === QUOTE) return k + 1;
  }
  return -1;
}

/**
 * The name of a `name: value` pair whose colon is at `i` (`password` in `password: x`),
 * or undefined when the colon starts no such pair. plain-string.ts asks it too, so a
 * short plain string is cleared in its one pass unless the name is sensitive.
 * @example colonNameAt("user: bob", 4) // "user"
 */
export function colonNameAt(s: string, i: number): string | undefined {
  if (i === 0 || !isWordChar(s.charCodeAt(i - 1))) return undefined;
  const after = s.charCodeAt(i + 1);
  if (after !== 0x20 && after !== 0x09 && after !== APOS && after !== QUOTE) return undefined;
  let b = i;
  while (b > 0 && i - b < MAX_NAME && isNameChar(s.charCodeAt(b - 1))) b--;
  if (b > 0 && isNameChar(s.charCodeAt(b - 1))) return undefined; // longer than any name
  const first = s.charCodeAt(b);
  if (!isWordChar(first) || (first >= 0x30 && first <= 0x39)) return undefined;
  return s.slice(b, i);
}

/** `name: value`, `name: 'value'`, `Authorization: Token …` at the colon `i`. */
function namedValue(s: string, i: number, isSecretName: NameTest): Replacement | null {
  if (isSecretName.mayEndAt?.(s, i) === false) return null;
  const name = colonNameAt(s, i);
  if (name === undefined || !isSecretName(name)) return null;
  const b = i - name.length;
  let j = i + 1;
  while (j < s.length && j - i <= MAX_GAP && (s[j] === " " || s[j] === "\t")) j++;
  if (s.startsWith("//", j)) return null; // a URL scheme
  const limit = Math.min(s.length, j + MAX_VALUE);
  const q = s.charCodeAt(j);
  let end = j;
  if (q === QUOTE || q === APOS) {
    for (let k = j + 1; k < limit && s[k] !== "\n"; k++) {
      const d = s.charCodeAt(k);
      if (d === BACKSLASH) k++;
      else if (d === q) {
        end = k + 1;
        break;
      }
    }
    if (end > j) return { start: j, end, text: `${s[j]}${REDACTED}${s[j]}` };
    end = j + 1; // unclosed: the rest of the token
  }
  if (takesLineRest(name)) {
    const opener = s.charCodeAt(b - 1); // `-H 'Authorization: Token …'` ends at its quote
    while (end < limit && s[end] !== "\n" && s[end] !== "\r") {
      const d = s.charCodeAt(end);
      if ((opener === APOS || opener === QUOTE) && d === opener) break;
      end++;
    }
  } else {
    while (end < limit && !/[\s,;)}\]'"]/.test(s[end]!)) end++;
  }
  const value = s.slice(j, end);
  if (value.trim() === "" || value.startsWith("[REDACTED")) return null;
  return { start: j, end, text: REDACTED };
}
