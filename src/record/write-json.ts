/**
 * The one record walk (§3.1, §3.3): any value straight to JSON text, caps and
 * redaction applied on the way. It never throws: cycles → "[Circular]", BigInt →
 * decimal text, functions/symbols/undefined dropped (null in arrays), throwing
 * getters/traps/toJSON → "[Unserializable]", lone surrogates → U+FFFD, `__proto__`
 * an ordinary key. The text is what `JSON.stringify` makes of the walk's plain copy
 * (test/support/reference-walk.ts, held to it by a property test); callers that
 * need a plain object parse it (safe-json.ts).
 *
 * Plain objects, arrays and strings take the hot path. Built-ins with a meaning of
 * their own (dates, errors, Map/Set, binary) are written here too; the members of
 * errors, Maps and objects whose keys a plain object would reorder or merge
 * (integer-like, over-long or malformed keys, a literal "…") come from members.ts and
 * are written in the order a plain copy has them (membersJson).
 */
import { PATH_MATCH, stepPaths, type PathStates } from "./redact-paths.js";
import { builtinOf, propMembers, type Builtin, type Members } from "./members.js";
import { isPlainAscii } from "./plain-string.js";
import {
  lastShapeKeys as importedLastShapeKeys,
  membersText,
  shapeOf as importedShapeOf,
} from "./write-json-keys.js";
import {
  CIRCULAR,
  MAX_DEPTH,
  PLAIN_CHECK_MAX,
  REDACTED,
  UNSERIALIZABLE,
  walkString,
  type WalkContext,
} from "./walk-context.js";

const REDACTED_JSON = JSON.stringify(REDACTED);
const CIRCULAR_JSON = JSON.stringify(CIRCULAR);
const UNSERIALIZABLE_JSON = JSON.stringify(UNSERIALIZABLE);
const MAX_DEPTH_JSON = JSON.stringify(MAX_DEPTH);
// a local binding: under a loader that rewrites imports (jiti: tests, bench) an imported
// function read per call costs ~20 ns, and this one runs for every object
const shapeOf = importedShapeOf;
const lastShapeKeys = importedLastShapeKeys;

/**
 * JSON text of `v` at `depth` (`states`: the live custom-path matchers, null when none),
 * or undefined when the walk drops `v`.
 * @example writeJson({ n: 1n, token: "x" }, 0, ctx, null) // '{"n":"1","token":"[REDACTED]"}'
 */
export function writeJson(
  v: unknown,
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): string | undefined {
  switch (typeof v) {
    case "string":
      return stringJson(v, ctx);
    case "number":
      return Number.isFinite(v) ? String(v) : "null"; // the same digits as JSON.stringify
    case "boolean":
      return v ? "true" : "false";
    case "bigint":
      return `"${v.toString()}"`;
    case "object":
      return v === null ? "null" : objectJson(v, depth, ctx, states);
    default:
      return undefined; // undefined, function, symbol
  }
}

/**
 * JSON text of `walkString(s, ctx)`. A short string that is plain ASCII and
 * that redaction cannot change is quoted as is.
 */
export function stringJson(s: string, ctx: WalkContext): string {
  if (s.length <= ctx.maxString && s.length <= PLAIN_CHECK_MAX) {
    const plan = ctx.plan;
    if (plan === null ? isPlainAscii(s) : plan.plainClear?.(s) === true) return `"${s}"`;
  }
  return JSON.stringify(walkString(s, ctx));
}

function objectJson(
  o: object,
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): string | undefined {
  if (ctx.stack.includes(o)) return CIRCULAR_JSON;
  ctx.stack.push(o);
  try {
    return objectJsonInner(o, depth, ctx, states);
  } catch {
    return UNSERIALIZABLE_JSON;
  } finally {
    ctx.stack.pop();
  }
}

function objectJsonInner(
  o: object,
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): string | undefined {
  const isArray = Array.isArray(o);
  if (!isArray) {
    const proto: unknown = Object.getPrototypeOf(o);
    if (proto !== Object.prototype && proto !== null && proto !== Array.prototype) {
      const b = builtinOf(o, depth, ctx);
      if (b !== undefined) return builtinJson(b, depth, ctx, states);
    }
  }
  if (depth >= ctx.maxDepth) return MAX_DEPTH_JSON;
  if (typeof (o as { toJSON?: unknown }).toJSON === "function") {
    return writeJson((o as { toJSON: () => unknown }).toJSON(), depth + 1, ctx, states);
  }
  if (isArray) return arrayJson(o as unknown[], depth, ctx, states);
  return propsJson(o, lastShapeKeys(o) ?? Object.keys(o), depth, ctx, states);
}

/** An ordinary object's first maxObjectKeys `keys`, each through memberJson. */
function propsJson(
  o: object,
  keys: string[],
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): string {
  const n = Math.min(keys.length, ctx.maxKeys);
  const plan = ctx.plan;
  const shape = shapeOf(keys, n, plan);
  if (shape === undefined)
    return membersJson(propMembers(o, keys, ctx.maxKeys), depth, ctx, states);
  const { names, commaNames, namesQ, commaNamesQ, quoteCommaNames, quoteCommaNamesQ } = shape;
  const sensitive = shape.sensitive;
  let out = "{";
  let first = true;
  // A plain string value's closing quote is written with what follows it (the next name, or
  // the closing brace): one append less per string member.
  let quote = false;
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    let v: unknown;
    try {
      v = (o as Record<string, unknown>)[k];
    } catch {
      v = UNSERIALIZABLE;
    }
    if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
    // The common member, a short plain string under no key or path rule, is appended in
    // place (stringJson's fast case without its quoted copy): fewer strings per record.
    if (
      typeof v === "string" &&
      (plan === null || (states === null && !sensitive![i])) &&
      v.length <= ctx.maxString &&
      v.length <= PLAIN_CHECK_MAX &&
      (plan === null ? isPlainAscii(v) : plan.plainClear?.(v) === true)
    ) {
      out += first ? namesQ[i]! : quote ? quoteCommaNamesQ[i]! : commaNamesQ[i]!;
      out += v;
      first = false;
      quote = true;
      continue;
    }
    const r = memberJson(k, v, sensitive !== null && sensitive[i]!, depth + 1, ctx, states);
    if (r !== undefined) {
      out += first ? names[i]! : quote ? quoteCommaNames[i]! : commaNames[i]!;
      out += r;
      first = false;
      quote = false;
    }
  }
  if (keys.length > n) {
    out += `${quote ? '"' : ""}${first ? "" : ","}"…":"[+${keys.length - n} more keys]"`;
    quote = false;
  }
  return quote ? `${out}"}` : `${out}}`;
}

/**
 * JSON text of one member's value under key `k` (the caller drops undefined, functions
 * and symbols): "[REDACTED]" when its key is `sensitive` or a custom path ends at it.
 */
function memberJson(
  k: string,
  v: unknown,
  sensitive: boolean,
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): string | undefined {
  if (sensitive) return REDACTED_JSON;
  if (states === null) return writeJson(v, depth, ctx, null);
  const next = stepPaths(ctx.plan!.paths, states, k);
  return next === PATH_MATCH ? REDACTED_JSON : writeJson(v, depth, ctx, next);
}

/**
 * An array's first maxArrayLength elements (a hole or a dropped value → null), values
 * after a sensitive name in a name/value list redacted (rawHeaders, HAR).
 */
function arrayJson(
  a: unknown[],
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): string {
  const len = a.length;
  const n = Math.min(len, ctx.maxArray);
  const plan = ctx.plan;
  const secrets = plan?.pairedSecrets?.(a) ?? null; // rawHeaders, [name, value] pairs (ascending)
  let nextSecret = 0;
  let out = "[";
  for (let i = 0; i < n; i++) {
    let v: unknown;
    try {
      v = a[i];
    } catch {
      v = UNSERIALIZABLE;
    }
    let r: string | undefined;
    if (secrets !== null && secrets[nextSecret] === i) {
      r = REDACTED_JSON;
      nextSecret++;
    } else if (states !== null && plan !== null) {
      const next = stepPaths(plan.paths, states, String(i));
      r = next === PATH_MATCH ? REDACTED_JSON : writeJson(v, depth + 1, ctx, next);
    } else {
      r = writeJson(v, depth + 1, ctx, null);
    }
    if (i > 0) out += ",";
    out += r === undefined ? "null" : r;
  }
  if (len > n) out += `${n > 0 ? "," : ""}"[+${len - n} more items]"`;
  return `${out}]`;
}

/** JSON text of a built-in (see builtinOf). */
function builtinJson(
  b: Builtin,
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): string | undefined {
  if (b.kind === "text") return JSON.stringify(b.text);
  if (b.kind === "value") return writeJson(b.value, depth, ctx, states);
  if (b.kind === "members") return membersJson(b.members, depth, ctx, states);
  return arrayJson(b.items, depth, ctx, states);
}

/** `{…}` of `members` (errors, Maps, objects whose keys a plain copy reorders). */
function membersJson(
  members: Members,
  depth: number,
  ctx: WalkContext,
  states: PathStates | null,
): string {
  const keys: string[] = [];
  const texts: string[] = [];
  let more = 0;
  members.each({
    member(k, v) {
      if (v === undefined || typeof v === "function" || typeof v === "symbol") return;
      const sensitive = ctx.plan !== null && ctx.plan.isSensitiveKey(k);
      const r = memberJson(k, v, sensitive, depth + 1, ctx, states);
      if (r === undefined) return;
      keys.push(k);
      texts.push(r);
    },
    more(count) {
      more = count;
    },
  });
  return membersText(keys, texts, members.distinct, more > 0 ? more : undefined);
}
