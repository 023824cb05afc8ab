/**
 * Secrets inside free text that the key table cannot see: query
 * parameters and `key=value` pairs with a sensitive name (URLs and their `#fragment`,
 * query strings, connection strings like `Server=db;Password=…` or `host=db password=…`),
 * `Basic <base64 user:password>` credentials, and `name: value` pairs
 * (redact-text-pairs.ts: JSON text, `password: x`, `Authorization: Token …` header
 * lines). Built once per redaction.
 */
import {
  cached,
  isCredentialHeaderName,
  isCredentialQueryParam,
  SECRET_PARAMS,
} from "./redact-names.js";
import { normalizeKey } from "./redact-keys.js";
import { redactColonPairs } from "./redact-text-pairs.js";

// `name=value` after a start, `?`, `&`, `#`, `;`, `,` or whitespace; the value is quoted or runs
// to the next separator. Every run is bounded so a hostile string cannot make the scan quadratic.
const PARAM =
  /(^|[?&#;,\s])([A-Za-z_][A-Za-z0-9_.[\]-]{0,63})=("[^"]{0,4096}"|'[^']{0,4096}'|[^&;#\s"',]{1,4096})/g;
const BASIC = /\b(?:[Bb]asic|BASIC)\s+([A-Za-z0-9+/]{4,1024}={0,2})(?![A-Za-z0-9+/=])/g;

/** True when `b64` decodes to printable `user:password` (so "Basic information" stays). */
function isBasicCredential(b64: string): boolean {
  if (b64.length % 4 !== 0) return false;
  const text = Buffer.from(b64, "base64").toString("latin1");
  return text.includes(":") && /^[\x20-\x7e]+$/.test(text);
}

/**
 * Returns a string redactor for parameters and `name: value` pairs named by
 * `isSensitiveKey` and, when `defaults`, the parameters of redact-names.ts (signatures
 * anywhere; `key`, `code`, `t`, … after `?`, `&` or `#`), credential header names and
 * Basic auth.
 * @example createTextRedactor((k) => k === "token", true)("GET /a?token=abc&x=1") // "GET /a?token=[REDACTED]&x=1"
 */
export function createTextRedactor(
  isSensitiveKey: (key: string) => boolean,
  defaults: boolean,
  keys?: readonly string[],
): (s: string) => string {
  const sensitive = (pre: string, name: string) =>
    isSensitiveKey(name) ||
    (defaults &&
      (SECRET_PARAMS.has(name.toLowerCase()) ||
        ((pre === "?" || pre === "&" || pre === "#") && isCredentialQueryParam(name))));
  const param = (m: string, pre: string, name: string, value: string) =>
    sensitive(pre, name) && value !== '""' && value !== "''" ? `${pre}${name}=[REDACTED]` : m;
  const basic = (m: string, b64: string) =>
    isBasicCredential(b64) ? "Basic [REDACTED:basic-auth]" : m;
  const pairName = createPairNameMatcher(isSensitiveKey, defaults, keys);
  const colonPairs = redactColonPairs; // a local binding: see compileRedaction's plainClear
  return (s) => {
    if (s.includes("=")) s = s.replace(PARAM, param);
    if (defaults && (s.includes("asic") || s.includes("ASIC"))) s = s.replace(BASIC, basic);
    if (s.includes(":")) s = colonPairs(s, pairName);
    return s;
  };
}

/**
 * The last `len` (2 or 3) letters of `name` before `end` as one number (lower-cased, tagged
 * with `len`), or -1 when they are not all letters.
 */
function ending(name: string, end: number, len: number): number {
  if (end < len) return -1;
  let code = len;
  for (let k = end - len; k < end; k++) {
    const c = name.charCodeAt(k) | 0x20;
    if (c < 0x61 || c > 0x7a) return -1;
    code = (code << 8) | c;
  }
  return code;
}

/**
 * The endings a sensitive name can have: the last three letters (two for `id`) of the
 * listed keys' last words and, with the defaults, of the credential header words. A word
 * ending in a digit adds none (such names are always looked up); null when a word is too
 * short or mixed to filter by.
 */
function endingsOf(keys: readonly string[], defaults: boolean): Set<number> | null {
  const words = keys.map((k) => normalizeKey(k).split(" ").pop() ?? "");
  if (defaults) words.push("key", "signature", "sig");
  const out = new Set<number>();
  for (const w of words) {
    if (/\d$/.test(w)) continue;
    const e = ending(w, w.length, Math.min(3, w.length));
    if (e === -1 || w.length < 2) return null;
    out.add(e);
  }
  return out;
}

/** True when `name` (or its singular) may end with a listed word: only those are looked up. */
function mayEnd(endings: ReadonlySet<number>, name: string, end: number): boolean {
  return endings.has(ending(name, end, 3)) || endings.has(ending(name, end, 2));
}

/** False only when no name ending at `end` in `s` (nor its singular) can end a listed word. */
function mayEndAt(endings: ReadonlySet<number>, s: string, end: number): boolean {
  const last = s.charCodeAt(end - 1) | 0x20;
  // digits or separators at the end (`x-hub-signature-256`): looked up
  if (last < 0x61 || last > 0x7a) return true;
  if (mayEnd(endings, s, end)) return true;
  if (last !== 0x73) return false;
  // `passwords`, `apiKeys` through their singular; `cvv2s` is looked up
  const prev = s.charCodeAt(end - 2) | 0x20;
  return prev < 0x61 || prev > 0x7a || mayEnd(endings, s, end - 1);
}

/** A pair-name matcher and its pre-check on the characters before a colon. */
export interface PairNameMatcher {
  (name: string): boolean;
  /** False only when no name ending at `end` in `s` can be sensitive: no slice, no lookup. */
  mayEndAt(s: string, end: number): boolean;
}

/**
 * The names whose `name: value` pairs are redacted: the key table's, and with the
 * defaults the credential header names (`x-functions-key: …`). Given the listed `keys`,
 * a name whose ending (its singular's too) ends no listed word is cleared without a
 * lookup (`error`, `user`, `cache`); the others take one cached lookup.
 * @example createPairNameMatcher((k) => k === "password", true)("x-upstream-key") // true
 */
export function createPairNameMatcher(
  isSensitiveKey: (key: string) => boolean,
  defaults: boolean,
  keys?: readonly string[],
): PairNameMatcher {
  const lookup = defaults
    ? cached((name) => isSensitiveKey(name) || isCredentialHeaderName(name))
    : isSensitiveKey;
  const endings = keys === undefined ? null : endingsOf(keys, defaults);
  const may = endings === null ? () => true : (s: string, end: number) => mayEndAt(endings, s, end);
  const matcher = ((name: string) => may(name, name.length) && lookup(name)) as PairNameMatcher;
  matcher.mayEndAt = may;
  return matcher;
}
