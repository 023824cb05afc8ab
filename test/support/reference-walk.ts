/**
 * The reference walk the record writer (src/record/write-json.ts) is held to: any value
 * → plain JSON-safe data with the same caps and redaction, built as a plain copy rather
 * than written as text (once src/record/sanitize.ts, the second walker). It shares the
 * leaf rules (walk-context.ts) and the member lists of errors, Maps and objects
 * (members.ts) with the writer. For every record, `serializeRecord(r, o)` must equal
 * `JSON.stringify(referenceRecord(r, o))` byte for byte (write-json.test.ts). Never
 * throws: cycles → "[Circular]", BigInt → decimal text, functions/symbols/undefined
 * dropped (null in arrays), throwing getters/traps/toJSON → "[Unserializable]", lone
 * surrogates → U+FFFD, `__proto__` kept as an own data key.
 */
import { builtinOf, propMembers, type Builtin, type Members } from "../../src/record/members.js";
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
      const b = builtinOf(o, depth, ctx);
      if (b !== undefined) return walkBuiltin(b, depth, ctx, states);
    }
  }
  if (depth >= ctx.maxDepth) return MAX_DEPTH;
  if (typeof (o as { toJSON?: unknown }).toJSON === "function") {
    return walk((o as { toJSON: () => unknown }).toJSON(), depth + 1, ctx, states);
  }
  if (isArray) return walkArray(o as unknown[], depth, ctx, states);
  return walkMembers(propMembers(o, Object.keys(o), ctx.maxKeys), depth, ctx, states);
}

/** A built-in as a plain value (see builtinOf). */
function walkBuiltin(
  b: Builtin,
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): unknown {
  if (b.kind === "text") return b.text;
  if (b.kind === "value") return walk(b.value, depth, ctx, states);
  if (b.kind === "members") return walkMembers(b.members, depth, ctx, states);
  return walkArray(b.items, depth, ctx, states);
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

/** A plain copy of `members` (members.ts), each through walkMember. */
function walkMembers(
  members: Members,
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  members.each({
    member(k, v) {
      const r = walkMember(k, v, depth + 1, ctx, states);
      if (r !== undefined) setOwn(out, k, r);
    },
    more(count) {
      setOwn(out, "…", `[+${count} more keys]`);
    },
  });
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
