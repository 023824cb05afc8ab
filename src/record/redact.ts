/**
 * Redaction compiled once per logger (§3.3): sensitive keys (defaults + custom,
 * matched after normalising case style), custom dot paths, default and custom
 * value patterns. The result is applied inside the serialising walk.
 */
import { StowageError } from "../shared/errors.js";

export { isCredentialHeaderName, isCredentialQueryParam, redactNamed } from "./redact-names.js";
export {
  createKeyMatcher,
  DEFAULT_REDACT_KEYS,
  normalizeKey,
  SENSITIVE_KEY_TABLE,
  STAYS_CLEAR_EXAMPLES,
} from "./redact-keys.js";
import type { LogRecord } from "./record.js";
import { createKeyMatcher, DEFAULT_REDACT_KEYS, normalizeKey } from "./redact-keys.js";
import { compilePaths } from "./redact-paths.js";
import { createPairNameMatcher, createTextRedactor } from "./redact-text.js";
import { colonNameAt } from "./redact-text-pairs.js";
import { pairedSecretIndexes } from "./redact-arrays.js";
import { cached, isCredentialHeaderKey, isCredentialHeaderName } from "./redact-names.js";
import { redactDefaultPatterns } from "./redact-patterns.js";
import { isPlainClear } from "./plain-string.js";
import { sanitizeRecord } from "./safe-json.js";
import type { RedactionPlan, SanitizeOptions } from "./walk-context.js";

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
  const keyMatcher = keys.length === 0 ? () => false : createKeyMatcher(keys);
  // a logged `req.headers`: keys only a credential header has (`x-functions-key`) count too
  const isSensitiveKey = useDefaults
    ? cached((k) => keyMatcher(k) || isCredentialHeaderKey(k))
    : keyMatcher;
  const redactText =
    keys.length || useDefaults ? createTextRedactor(isSensitiveKey, useDefaults, keys) : null;
  const redactString = (s: string): string => {
    if (useDefaults) s = redactDefaultPatterns(s);
    if (redactText !== null) s = redactText(s);
    for (const re of custom) {
      re.lastIndex = 0;
      if (re.test(s)) s = s.replace(re, "[REDACTED:custom]");
    }
    return s;
  };
  // Names in a header list (rawHeaders, HAR) are header names: `x-functions-key` counts there.
  const isSensitiveName = useDefaults
    ? (name: string) => isSensitiveKey(name) || isCredentialHeaderName(name)
    : isSensitiveKey;
  const plan: RedactionPlan = {
    isSensitiveKey,
    redactString,
    paths: compilePaths(opts.paths ?? []),
    pairedSecrets: (a) => pairedSecretIndexes(a, isSensitiveName),
  };
  // Custom patterns can match anything: only without them can a string be cleared in one pass.
  // A `name: value` colon in it costs one name lookup ("error: refused" stays on the fast path).
  if (custom.length === 0) {
    const pairName =
      redactText === null ? null : createPairNameMatcher(isSensitiveKey, useDefaults, keys);
    // local bindings: under a loader that rewrites imports (jiti: tests, bench) an imported
    // function read per call cost ~20 ns a string here
    const nameAt = colonNameAt;
    const plainCheck = isPlainClear;
    const colonClear = (s: string, i: number) => {
      if (pairName === null || !pairName.mayEndAt(s, i)) return true; // `error: …`: no lookup
      const name = nameAt(s, i);
      return name === undefined || !pairName(name);
    };
    plan.plainClear = (s) => plainCheck(s, colonClear);
  }
  const redactor = ((record: LogRecord, o: Omit<SanitizeOptions, "redact"> = {}) =>
    sanitizeRecord(record, { ...o, redact: { plan } })) as Redactor;
  Object.defineProperty(redactor, "plan", { value: plan, enumerable: true });
  return redactor;
}
