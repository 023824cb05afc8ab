/**
 * The one walk that turns any value into plain JSON-safe data, applying caps and
 * redaction on the way (§3.1, §3.3). It never throws: cycles → "[Circular]",
 * BigInt → decimal text, functions/symbols/undefined dropped (null in arrays),
 * throwing getters/traps/toJSON → "[Unserializable]", lone surrogates → U+FFFD,
 * `__proto__` kept as an own data key (no prototype pollution).
 */
import { PATH_MATCH, stepPaths, type CompiledPath, type PathStates } from "./redact-paths.js";

/** What the walk needs from a compiled redaction (see `compileRedaction`). */
export interface RedactionPlan {
  /** True when the value under this object key is replaced by "[REDACTED]". */
  isSensitiveKey(key: string): boolean;
  /** The string with every pattern match replaced (the same string when none). */
  redactString(s: string): string;
  /** Compiled custom paths (empty when none). */
  readonly paths: readonly CompiledPath[];
}

/** Caps and redaction for one walk. Omitted caps take `SANITIZE_DEFAULTS`. */
export interface SanitizeOptions {
  /** Nesting depth below a record field (or below the value given) before "[MaxDepth]". */
  maxDepth?: number;
  /** UTF-16 code units kept per string; the rest becomes "…[truncated N chars]". */
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

/** Extra characters scanned for secrets past the cut, so a token straddling it is still caught. */
const REDACT_SLACK = 4096;

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

/**
 * Any value → plain JSON-safe data (undefined when the value is dropped).
 * @example sanitizeValue({ n: 1n, f() {} }) // { n: "1" }
 */
export function sanitizeValue(value: unknown, opts: SanitizeOptions = {}): unknown {
  return walk(value, 0, createContext(opts), null);
}

/** Walks one value at `depth`; `states` are the live custom-path matchers (null: none). */
export function walk(v: unknown, depth: number, ctx: WalkContext, states: PathStates | null): unknown {
  switch (typeof v) {
    case "string":
      return walkString(v, ctx);
    case "number":
      return Number.isFinite(v) ? v : null;
    case "boolean":
      return v;
    case "bigint":
      return v.toString();
    case "object":
      return v === null ? null : walkObject(v, depth, ctx, states);
    default:
      return undefined; // undefined, function, symbol
  }
}

/** Caps, repairs surrogates and redacts patterns in one string. */
export function walkString(s: string, ctx: WalkContext): string {
  const max = ctx.maxString;
  const long = s.length > max;
  if (long && s.length > max + REDACT_SLACK) s = s.slice(0, max + REDACT_SLACK);
  s = wellFormed(s);
  if (ctx.plan !== null) s = ctx.plan.redactString(s);
  if (s.length > max) {
    let cut = max;
    const c = s.charCodeAt(cut - 1);
    if (c >= 0xd800 && c <= 0xdbff) cut--; // never split a surrogate pair
    s = `${s.slice(0, cut)}…[truncated ${s.length - cut} chars]`;
  } else if (long) {
    s = `${s}…[truncated]`;
  }
  return s;
}

function walkObject(o: object, depth: number, ctx: WalkContext, states: PathStates | null): unknown {
  if (ctx.stack.includes(o)) return CIRCULAR;
  ctx.stack.push(o);
  try {
    return walkObjectInner(o, depth, ctx, states);
  } catch {
    return UNSERIALIZABLE;
  } finally {
    ctx.stack.pop();
  }
}

function walkObjectInner(o: object, depth: number, ctx: WalkContext, states: PathStates | null): unknown {
  const isArray = Array.isArray(o);
  const proto: unknown = isArray ? Array.prototype : Object.getPrototypeOf(o);
  if (proto !== Object.prototype && proto !== null && proto !== Array.prototype) {
    const leaf = walkSpecial(o, depth, ctx, states);
    if (leaf !== NOT_SPECIAL) return leaf;
  }
  if (depth >= ctx.maxDepth) return MAX_DEPTH;
  if (typeof (o as { toJSON?: unknown }).toJSON === "function") {
    return walk((o as { toJSON: () => unknown }).toJSON(), depth + 1, ctx, states);
  }
  if (isArray) return walkArray(o as unknown[], depth, ctx, states);
  return walkProps(o, Object.keys(o), depth, ctx, states);
}

const NOT_SPECIAL = Symbol("not special");

/** Built-in objects with a meaning of their own: dates, errors, binary, Map/Set, boxed primitives. */
function walkSpecial(o: object, depth: number, ctx: WalkContext, states: PathStates | null): unknown {
  if (o instanceof Date) return Number.isNaN(o.getTime()) ? "Invalid Date" : o.toISOString();
  if (o instanceof Error) return depth >= ctx.maxDepth ? MAX_DEPTH : walkError(o, depth, ctx, states);
  if (ArrayBuffer.isView(o)) {
    const kind = typeof Buffer !== "undefined" && Buffer.isBuffer(o) ? "Buffer" : o.constructor.name;
    return `[${kind} ${o.byteLength} bytes]`;
  }
  if (o instanceof ArrayBuffer || o instanceof SharedArrayBuffer) return `[${o.constructor.name} ${o.byteLength} bytes]`;
  if (o instanceof String || o instanceof Number || o instanceof Boolean || o instanceof BigInt) {
    return walk(o.valueOf(), depth, ctx, states);
  }
  if (o instanceof RegExp) return walkString(String(o), ctx);
  if (depth >= ctx.maxDepth && (o instanceof Map || o instanceof Set)) return MAX_DEPTH;
  if (o instanceof Map) return walkMap(o, depth, ctx, states);
  if (o instanceof Set) return walkArray(Array.from(o), depth, ctx, states);
  return NOT_SPECIAL;
}

/** One property: drops undefined/functions/symbols, applies key and path redaction, recurses. */
export function walkMember(k: string, v: unknown, depth: number, ctx: WalkContext, states: PathStates | null): unknown {
  if (v === undefined || typeof v === "function" || typeof v === "symbol") return undefined;
  const plan = ctx.plan;
  if (plan === null) return walk(v, depth, ctx, null);
  if (plan.isSensitiveKey(k)) return REDACTED;
  if (states === null) return walk(v, depth, ctx, null);
  const next = stepPaths(plan.paths, states, k);
  return next === PATH_MATCH ? REDACTED : walk(v, depth, ctx, next);
}

/** Sets an own enumerable data property, `__proto__` included, without touching the prototype. */
export function setOwn(out: Record<string, unknown>, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  else out[k] = v;
}

function walkProps(o: object, keys: string[], depth: number, ctx: WalkContext, states: PathStates | null) {
  const out: Record<string, unknown> = {};
  const n = Math.min(keys.length, ctx.maxKeys);
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    let v: unknown;
    try {
      v = (o as Record<string, unknown>)[k];
    } catch {
      v = UNSERIALIZABLE;
    }
    const r = walkMember(k, v, depth + 1, ctx, states);
    if (r !== undefined) setOwn(out, k, r);
  }
  if (keys.length > n) setOwn(out, "…", `[+${keys.length - n} more keys]`);
  return out;
}

function walkArray(a: unknown[], depth: number, ctx: WalkContext, states: PathStates | null): unknown[] {
  const len = a.length;
  const n = Math.min(len, ctx.maxArray);
  const out: unknown[] = new Array(n);
  const plan = ctx.plan;
  for (let i = 0; i < n; i++) {
    let v: unknown;
    try {
      v = a[i];
    } catch {
      v = UNSERIALIZABLE;
    }
    let r: unknown;
    if (states !== null && plan !== null) {
      const next = stepPaths(plan.paths, states, String(i));
      r = next === PATH_MATCH ? REDACTED : walk(v, depth + 1, ctx, next);
    } else {
      r = walk(v, depth + 1, ctx, null);
    }
    out[i] = r === undefined ? null : r;
  }
  if (len > n) out.push(`[+${len - n} more items]`);
  return out;
}

function walkMap(m: Map<unknown, unknown>, depth: number, ctx: WalkContext, states: PathStates | null): unknown {
  let primitiveKeys = true;
  for (const k of m.keys()) {
    if (typeof k === "object" ? k !== null : typeof k === "function" || typeof k === "symbol") {
      primitiveKeys = false;
      break;
    }
  }
  if (!primitiveKeys) return walkArray(Array.from(m.entries()), depth, ctx, states);
  const out: Record<string, unknown> = {};
  let i = 0;
  for (const [k, v] of m) {
    if (i++ >= ctx.maxKeys) {
      setOwn(out, "…", `[+${m.size - ctx.maxKeys} more keys]`);
      break;
    }
    const key = wellFormed(String(k));
    const r = walkMember(key, v, depth + 1, ctx, states);
    if (r !== undefined) setOwn(out, key, r);
  }
  return out;
}

const ERROR_FIELDS = new Set(["name", "message", "stack", "code", "status", "cause", "errors"]);

/** Error → {name, message, stack?, code?, status?, cause?, errors?, ...own enumerable props}. */
function walkError(e: Error, depth: number, ctx: WalkContext, states: PathStates | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const get = (k: string): unknown => {
    try {
      return (e as unknown as Record<string, unknown>)[k];
    } catch {
      return UNSERIALIZABLE;
    }
  };
  const name = get("name");
  const message = get("message");
  out.name = walkMember("name", typeof name === "string" ? name : "Error", depth + 1, ctx, states);
  out.message = walkMember("message", typeof message === "string" ? message : String(message ?? ""), depth + 1, ctx, states);
  const put = (k: string, v: unknown) => {
    const r = walkMember(k, v, depth + 1, ctx, states);
    if (r !== undefined) setOwn(out, k, r);
  };
  const stack = get("stack");
  if (typeof stack === "string") put("stack", stack);
  put("code", get("code"));
  let status = get("status") ?? get("statusCode");
  if (status === undefined) {
    const meta = get("$metadata");
    if (meta !== null && typeof meta === "object") status = (meta as { httpStatusCode?: unknown }).httpStatusCode;
  }
  put("status", status);
  put("cause", get("cause"));
  const errors = get("errors");
  if (Array.isArray(errors)) put("errors", errors);
  const keys = Object.keys(e);
  const n = Math.min(keys.length, ctx.maxKeys);
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    if (!ERROR_FIELDS.has(k)) put(k, get(k));
  }
  return out;
}
