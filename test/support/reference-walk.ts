/**
 * The reference walk the record writer (src/record/write-json.ts) is held to: any value
 * → plain JSON-safe data with the same caps and redaction, written as a second, plain
 * implementation of every rule (once src/record/sanitize.ts). For every record,
 * `serializeRecord(r, o)` must equal `JSON.stringify(referenceRecord(r, o))` byte for
 * byte (write-json.test.ts). Never throws: cycles → "[Circular]", BigInt → decimal text,
 * functions/symbols/undefined dropped (null in arrays), throwing getters/traps/toJSON →
 * "[Unserializable]", lone surrogates → U+FFFD, `__proto__` kept as an own data key.
 */
import type { LogRecord } from "../../src/record/record.js";
import {
  initialStates,
  PATH_MATCH,
  stepPaths,
  type PathStates,
} from "../../src/record/redact-paths.js";
import {
  CIRCULAR,
  createContext,
  fieldText,
  MAX_DEPTH,
  REDACTED,
  setOwn,
  structuralText,
  UNSERIALIZABLE,
  walkString,
  type SanitizeOptions,
  type WalkContext,
} from "../../src/record/walk-context.js";

/**
 * A redacted, plain copy of `record` in canonical field order; unknown fields are
 * dropped. `timestamp` and `level` are copied as text and never pattern-scanned.
 * @example JSON.stringify(referenceRecord(record, { redact })) // serializeRecord's line
 */
export function referenceRecord(record: LogRecord, opts: SanitizeOptions = {}): LogRecord {
  const ctx = createContext(opts);
  const states = ctx.plan === null ? null : initialStates(ctx.plan.paths);
  const out = {
    timestamp: structuralText(record.timestamp, ctx),
    level: structuralText(record.level, ctx),
    message: field("message", fieldText(record.message), ctx, states),
  } as Record<string, unknown>;
  put(out, "service", record.service, ctx, states, true);
  put(out, "caller", record.caller, ctx, states, true);
  put(out, "data", record.data, ctx, states, false);
  put(out, "bindings", record.bindings, ctx, states, false);
  put(out, "error", record.error, ctx, states, false);
  put(out, "traceId", record.traceId, ctx, states, true);
  put(out, "spanId", record.spanId, ctx, states, true);
  return out as unknown as LogRecord;
}

/**
 * One record field's value on its own, with the paths that apply to that field.
 * @example JSON.stringify(referenceField("bindings", b, { redact })) // serializeField's text
 */
export function referenceField(name: string, value: unknown, opts: SanitizeOptions = {}): unknown {
  const ctx = createContext(opts);
  return field(name, value, ctx, ctx.plan === null ? null : initialStates(ctx.plan.paths));
}

function put(
  out: Record<string, unknown>,
  name: string,
  v: unknown,
  ctx: WalkContext,
  states: PathStates | null,
  asText: boolean,
): void {
  if (v === undefined) return;
  const r = field(name, asText ? fieldText(v) : v, ctx, states);
  if (r !== undefined) out[name] = r;
}

function field(name: string, v: unknown, ctx: WalkContext, states: PathStates | null): unknown {
  if (states === null || ctx.plan === null) return walk(v, 0, ctx, null);
  const next = stepPaths(ctx.plan.paths, states, name);
  return next === PATH_MATCH ? REDACTED : walk(v, 0, ctx, next);
}

/** Walks one value at `depth`; `states` are the live custom-path matchers (null: none). */
function walk(v: unknown, depth: number, ctx: WalkContext, states: PathStates | null): unknown {
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

function walkObject(
  o: object,
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): unknown {
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

function walkObjectInner(
  o: object,
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): unknown {
  const isArray = Array.isArray(o);
  if (!isArray) {
    const proto: unknown = Object.getPrototypeOf(o);
    if (proto !== Object.prototype && proto !== null && proto !== Array.prototype) {
      const leaf = walkSpecial(o, depth, ctx, states);
      if (leaf !== NOT_SPECIAL) return leaf;
    }
  }
  if (depth >= ctx.maxDepth) return MAX_DEPTH;
  if (typeof (o as { toJSON?: unknown }).toJSON === "function") {
    return walk((o as { toJSON: () => unknown }).toJSON(), depth + 1, ctx, states);
  }
  if (isArray) return walkArray(o as unknown[], depth, ctx, states);
  return walkProps(o, Object.keys(o), depth, ctx, states);
}

/** Returned by walkSpecial for objects without a meaning of their own (walked as plain objects). */
const NOT_SPECIAL = Symbol("not special");

/** Built-in objects with a meaning of their own: dates, errors, binary, Map/Set, boxed primitives. */
function walkSpecial(
  o: object,
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): unknown {
  if (o instanceof Date) return Number.isNaN(o.getTime()) ? "Invalid Date" : o.toISOString();
  if (o instanceof Error)
    return depth >= ctx.maxDepth ? MAX_DEPTH : walkError(o, depth, ctx, states);
  if (ArrayBuffer.isView(o)) {
    const kind =
      typeof Buffer !== "undefined" && Buffer.isBuffer(o) ? "Buffer" : o.constructor.name;
    return `[${kind} ${o.byteLength} bytes]`;
  }
  if (o instanceof ArrayBuffer || o instanceof SharedArrayBuffer)
    return `[${o.constructor.name} ${o.byteLength} bytes]`;
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
function walkMember(
  k: string,
  v: unknown,
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): unknown {
  if (v === undefined || typeof v === "function" || typeof v === "symbol") return undefined;
  const plan = ctx.plan;
  if (plan === null) return walk(v, depth, ctx, null);
  if (plan.isSensitiveKey(k)) return REDACTED;
  if (states === null) return walk(v, depth, ctx, null);
  const next = stepPaths(plan.paths, states, k);
  return next === PATH_MATCH ? REDACTED : walk(v, depth, ctx, next);
}

/** An ordinary object's first maxObjectKeys `keys`, each through walkMember, as a plain copy. */
function walkProps(
  o: object,
  keys: string[],
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
) {
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

function walkArray(
  a: unknown[],
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): unknown[] {
  const len = a.length;
  const n = Math.min(len, ctx.maxArray);
  const out: unknown[] = new Array(n);
  const plan = ctx.plan;
  const secrets = plan?.pairedSecrets?.(a) ?? null; // rawHeaders, [name, value] pairs (ascending)
  let nextSecret = 0;
  for (let i = 0; i < n; i++) {
    let v: unknown;
    try {
      v = a[i];
    } catch {
      v = UNSERIALIZABLE;
    }
    let r: unknown;
    if (secrets !== null && secrets[nextSecret] === i) {
      r = REDACTED;
      nextSecret++;
    } else if (states !== null && plan !== null) {
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

function walkMap(
  m: Map<unknown, unknown>,
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): unknown {
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
    const key = String(k);
    const r = walkMember(key, v, depth + 1, ctx, states);
    if (r !== undefined) setOwn(out, key, r);
  }
  return out;
}

const ERROR_FIELDS = new Set(["name", "message", "stack", "code", "status", "cause", "errors"]);

/** Error → {name, message, stack?, code?, status?, cause?, errors?, ...own enumerable props}. */
function walkError(
  e: Error,
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): Record<string, unknown> {
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
  out.message = walkMember(
    "message",
    typeof message === "string" ? message : String(message ?? ""),
    depth + 1,
    ctx,
    states,
  );
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
    if (meta !== null && typeof meta === "object")
      status = (meta as { httpStatusCode?: unknown }).httpStatusCode;
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
