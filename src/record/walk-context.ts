/**
 * The record walk's options, context and leaf rules: caps, markers, the
 * redaction plan interface, string repair/redaction/truncation, text fields and
 * safe key setting (shared by the writer, write-json.ts, and the test reference).
 */
import type { CompiledPath } from "./redact-paths.js";

/** What the walk needs from a compiled redaction (see `compileRedaction`). */
export interface RedactionPlan {
  /** True when the value under this object key is replaced by "[REDACTED]". */
  isSensitiveKey(key: string): boolean;
  /** The string with every pattern match replaced (the same string when none). */
  redactString(s: string): string;
  /** Compiled custom paths (empty when none). */
  readonly paths: readonly CompiledPath[];
  /** Indexes of values after a sensitive name in a name/value array (redact-arrays.ts), or null. */
  pairedSecrets?(a: readonly unknown[]): readonly number[] | null;
  /** True only when `s` is plain ASCII (plain-string.ts) and `redactString(s)` is `s` for certain. */
  plainClear?(s: string): boolean;
}

/** Caps and redaction for one walk. Omitted caps take `SANITIZE_DEFAULTS`. */
export interface SanitizeOptions {
  /** Nesting depth below a record field (or below the value given) before "[MaxDepth]". */
  maxDepth?: number;
  /**
   * UTF-16 code units kept per string; the rest becomes "…[truncated N chars]", N being the
   * code units removed (after redaction of the scanned part; the unscanned rest counts as is).
   */
  maxStringLength?: number;
  /** Array elements kept; one "[+N more items]" element marks the rest. */
  maxArrayLength?: number;
  /** Object keys kept; a "…" key marks the rest. */
  maxObjectKeys?: number;
  /** A compiled redaction (a `Redactor` works: it carries its `plan`). */
  redact?: { readonly plan: RedactionPlan } | null;
}

export const SANITIZE_DEFAULTS = Object.freeze({
  maxDepth: 10,
  maxStringLength: 16 * 1024,
  maxArrayLength: 1000,
  maxObjectKeys: 1000,
});

export const REDACTED = "[REDACTED]";
export const CIRCULAR = "[Circular]";
export const UNSERIALIZABLE = "[Unserializable]";
export const MAX_DEPTH = "[MaxDepth]";

/** Object keys longer than this are cut (and end with "…"). */
export const MAX_KEY_LENGTH = 1024;

/** Extra characters scanned for secrets past the cut, so a token straddling it is still caught. */
const REDACT_SLACK = 4096;

/** Strings up to this length take the one-pass plain checks (plain-string.ts) first. */
export const PLAIN_CHECK_MAX = 1024;

interface WellFormed {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/**
 * Replaces lone surrogates with U+FFFD (Node 20 has the ES2024 string methods; lib is ES2023).
 * @example wellFormed("a\uD800") // "a\uFFFD"
 */
export function wellFormed(s: string): string {
  const w = s as unknown as WellFormed;
  return w.isWellFormed() ? s : w.toWellFormed();
}

/** Walk state: caps, the redaction plan and the ancestors (cycle detection). */
export interface WalkContext {
  maxDepth: number;
  maxString: number;
  maxArray: number;
  maxKeys: number;
  plan: RedactionPlan | null;
  stack: object[];
}

/** Builds a walk context; invalid caps fall back to the defaults (config validates earlier). */
export function createContext(opts: SanitizeOptions): WalkContext {
  return {
    maxDepth: cap(opts.maxDepth, SANITIZE_DEFAULTS.maxDepth),
    maxString: cap(opts.maxStringLength, SANITIZE_DEFAULTS.maxStringLength),
    maxArray: cap(opts.maxArrayLength, SANITIZE_DEFAULTS.maxArrayLength),
    maxKeys: cap(opts.maxObjectKeys, SANITIZE_DEFAULTS.maxObjectKeys),
    plan: opts.redact?.plan ?? null,
    stack: [],
  };
}

function cap(v: number | undefined, dflt: number): number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : dflt;
}

/** Caps, repairs surrogates and redacts patterns in one string. */
export function walkString(s: string, ctx: WalkContext): string {
  const max = ctx.maxString;
  if (s.length <= max && s.length <= PLAIN_CHECK_MAX && ctx.plan?.plainClear?.(s) === true)
    return s;
  // Only the first max + REDACT_SLACK units are scanned; the rest is dropped unread and
  // counted in the marker (issue 31 §5: a 1 MiB string once said "[truncated 4096 chars]").
  let dropped = 0;
  if (s.length > max + REDACT_SLACK) {
    dropped = s.length - (max + REDACT_SLACK);
    s = s.slice(0, max + REDACT_SLACK);
  }
  s = wellFormed(s);
  if (ctx.plan !== null) s = ctx.plan.redactString(s);
  if (s.length > max) {
    let cut = max;
    const c = s.charCodeAt(cut - 1);
    if (c >= 0xd800 && c <= 0xdbff) cut--; // never split a surrogate pair
    s = `${s.slice(0, cut)}…[truncated ${s.length - cut + dropped} chars]`;
  } else if (dropped > 0) {
    s = `${s}…[truncated ${dropped} chars]`; // redaction shrank the scanned part below the cap
  }
  return s;
}

/**
 * A record's text field (`message`, `service`, …) as text; anything else is converted
 * without throwing.
 * @example fieldText(42) // "42"
 */
export function fieldText(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === undefined || v === null) return "";
  try {
    return String(v);
  } catch {
    return UNSERIALIZABLE;
  }
}

/**
 * `timestamp`/`level`: text, capped and surrogate-repaired, never pattern-scanned.
 * @example structuralText("info", ctx) // "info"
 */
export function structuralText(v: unknown, ctx: WalkContext): string {
  let s = fieldText(v);
  if (s.length > ctx.maxString) s = s.slice(0, ctx.maxString);
  return wellFormed(s);
}

/** Sets an own enumerable data property, `__proto__` included, without touching the prototype. */
export function setOwn(out: Record<string, unknown>, key: string, v: unknown): void {
  let k = key.length > MAX_KEY_LENGTH ? `${key.slice(0, MAX_KEY_LENGTH)}…` : key;
  k = wellFormed(k);
  if (k === "__proto__") {
    Object.defineProperty(out, k, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else out[k] = v;
}
