/**
 * Redaction compiled once per logger (§3.3): sensitive keys (defaults + custom,
 * matched after normalising case style), custom dot paths, default and custom
 * value patterns. The result is applied inside the serialising walk.
 */
import { StowageError } from "../shared/errors.js";
import type { LogRecord } from "./record.js";
import { compilePaths } from "./redact-paths.js";
import { redactDefaultPatterns } from "./redact-patterns.js";
import { sanitizeRecord } from "./safe-json.js";
import type { RedactionPlan, SanitizeOptions } from "./sanitize.js";

/** The `redact` config block. */
export interface RedactOptions {
  /** Extra sensitive key names (any case style), matched like the defaults. */
  keys?: readonly string[];
  /** Dot paths from the record root with `*` and `**`: `data.user.email`, `**.ssn`. */
  paths?: readonly string[];
  /** Extra value patterns (a string is a regular-expression source) → "[REDACTED:custom]". */
  patterns?: readonly (RegExp | string)[];
  /** Turn off the default keys and default patterns (custom ones still apply). */
  disableDefaults?: boolean;
}

/** A compiled redaction: call it on a record for a redacted, sanitised copy. */
export interface Redactor {
  (record: LogRecord, opts?: Omit<SanitizeOptions, "redact">): LogRecord;
  readonly plan: RedactionPlan;
}

/** Default sensitive keys (normalised form), §3.3 plus a few documented extras. */
export const DEFAULT_REDACT_KEYS: readonly string[] = Object.freeze([
  "password",
  "passwd",
  "pwd",
  "secret",
  "token",
  "access token",
  "refresh token",
  "id token",
  "api key",
  "api secret",
  "authorization",
  "auth",
  "cookie",
  "set cookie",
  "session",
  "private key",
  "client secret",
  "ssn",
  "credit card",
  "card number",
  "cvv",
  "cvc",
  "otp",
  "pin",
  // extras: common spellings the list above misses
  "passphrase",
  "secret key",
  "secret access key",
  "session id",
]);

const KEY_CACHE_MAX = 4096;
const KEY_CACHE_MAX_LENGTH = 256;

/**
 * `accessToken`, `access-token`, `ACCESS_TOKEN`, `AccessToken` → `access token`.
 * @example normalizeKey("X-API-Key") // "x api key"
 */
export function normalizeKey(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/**
 * Builds the key matcher. A key is sensitive when its normalised form equals a
 * listed key, or ends with one on a word boundary (`dbPassword`, `x-api-key`),
 * or equals one with the spaces removed (`apikey`, `accesstoken`).
 */
export function createKeyMatcher(keys: readonly string[]): (key: string) => boolean {
  const spaced = new Set(keys.map(normalizeKey).filter((k) => k !== ""));
  const joined = new Set([...spaced].map((k) => k.replaceAll(" ", "")));
  const cache = new Map<string, boolean>();
  const decide = (key: string): boolean => {
    const n = normalizeKey(key);
    if (spaced.has(n) || joined.has(n)) return true;
    for (let i = n.indexOf(" "); i !== -1; i = n.indexOf(" ", i + 1)) {
      const tail = n.slice(i + 1);
      if (spaced.has(tail) || joined.has(tail)) return true;
    }
    return false;
  };
  return (key) => {
    if (key.length > KEY_CACHE_MAX_LENGTH) return decide(key); // never cache huge keys
    let hit = cache.get(key);
    if (hit === undefined) {
      if (cache.size >= KEY_CACHE_MAX) cache.clear();
      hit = decide(key);
      cache.set(key, hit);
    }
    return hit;
  };
}

function compilePattern(p: RegExp | string, n: number): RegExp {
  try {
    if (p instanceof RegExp)
      return new RegExp(p.source, p.flags.includes("g") ? p.flags : `${p.flags}g`);
    if (typeof p === "string" && p !== "") return new RegExp(p, "g");
  } catch (cause) {
    throw new StowageError(
      "config",
      `redact.patterns[${n}] is not a valid regular expression; fix its syntax`,
      {
        cause,
      },
    );
  }
  throw new StowageError("config", `redact.patterns[${n}] must be a RegExp or a non-empty string`);
}

/**
 * Compiles a redaction once; use the result as `serializeRecord(r, { redact })`
 * (one walk) or call it directly for a redacted, sanitised copy of a record.
 * @example
 * const redact = compileRedaction({ keys: ["email"], paths: ["data.*.token"] });
 * serializeRecord(record, { redact });
 */
export function compileRedaction(opts: RedactOptions = {}): Redactor {
  const useDefaults = opts.disableDefaults !== true;
  const keys = [...(useDefaults ? DEFAULT_REDACT_KEYS : []), ...(opts.keys ?? [])];
  for (const [n, k] of (opts.keys ?? []).entries()) {
    if (typeof k !== "string" || normalizeKey(k) === "") {
      throw new StowageError("config", `redact.keys[${n}] must be a key name such as "email"`);
    }
  }
  const custom = (opts.patterns ?? []).map(compilePattern);
  const isSensitiveKey = keys.length === 0 ? () => false : createKeyMatcher(keys);
  const redactString = (s: string): string => {
    if (useDefaults) s = redactDefaultPatterns(s);
    for (const re of custom) {
      re.lastIndex = 0;
      if (re.test(s)) s = s.replace(re, "[REDACTED:custom]");
    }
    return s;
  };
  const plan: RedactionPlan = {
    isSensitiveKey,
    redactString,
    paths: compilePaths(opts.paths ?? []),
  };
  const redactor = ((record: LogRecord, o: Omit<SanitizeOptions, "redact"> = {}) =>
    sanitizeRecord(record, { ...o, redact: { plan } })) as Redactor;
  Object.defineProperty(redactor, "plan", { value: plan, enumerable: true });
  return redactor;
}
