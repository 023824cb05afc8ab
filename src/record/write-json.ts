/**
 * The sanitising walk (sanitize.ts) written straight to JSON text: the same
 * rules, caps and redaction, without building the plain copy first and
 * stringifying it after. For every value, `writeJson(v, …)` is exactly
 * `JSON.stringify(walk(v, …))` (undefined when the walk drops the value).
 *
 * Plain objects, arrays and primitives are written here; built-ins with a
 * meaning of their own (dates, errors, Map/Set, binary) and objects whose keys
 * the plain copy would reorder or merge (integer-like, over-long or malformed
 * keys, a literal "…" key) are walked by sanitize.ts and stringified, so
 * both paths share one definition of every rule.
 */
import { PATH_MATCH, stepPaths, type PathStates } from "./redact-paths.js";
import { NOT_SPECIAL, specialLeaf, walkProps } from "./sanitize.js";
import { isPlainAscii } from "./plain-string.js";
import {
  CIRCULAR,
  MAX_DEPTH,
  MAX_KEY_LENGTH,
  PLAIN_CHECK_MAX,
  REDACTED,
  UNSERIALIZABLE,
  walkString,
  type RedactionPlan,
  type WalkContext,
} from "./walk-context.js";

const REDACTED_JSON = JSON.stringify(REDACTED);
const CIRCULAR_JSON = JSON.stringify(CIRCULAR);
const UNSERIALIZABLE_JSON = JSON.stringify(UNSERIALIZABLE);
const MAX_DEPTH_JSON = JSON.stringify(MAX_DEPTH);

/**
 * JSON text of `walk(v, depth, ctx, states)`, or undefined when the walk drops `v`.
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
  // The same guard as sanitize.ts walkObject, kept inline: a generic guard shared by
  // both walkers measured slower on this hot path (one call site for two walkers).
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
  const leaf = specialLeaf(o, isArray, depth, ctx, states);
  if (leaf !== NOT_SPECIAL) return leaf === undefined ? undefined : JSON.stringify(leaf);
  if (depth >= ctx.maxDepth) return MAX_DEPTH_JSON;
  if (typeof (o as { toJSON?: unknown }).toJSON === "function") {
    return writeJson((o as { toJSON: () => unknown }).toJSON(), depth + 1, ctx, states);
  }
  if (isArray) return arrayJson(o as unknown[], depth, ctx, states);
  return propsJson(o, Object.keys(o), depth, ctx, states);
}

/** Mirrors walkProps (walkMember for each key), for keys the plain copy keeps as they are and in this order. */
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
  if (shape === undefined) return JSON.stringify(walkProps(o, keys, depth, ctx, states));
  const { names, commaNames, sensitive } = shape;
  let out = "{";
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
      out += out.length === 1 ? names[i]! : commaNames[i]!;
      out += '"';
      out += v;
      out += '"';
      continue;
    }
    let r: string | undefined;
    if (plan === null) r = writeJson(v, depth + 1, ctx, null);
    else if (sensitive![i]) r = REDACTED_JSON;
    else if (states === null) r = writeJson(v, depth + 1, ctx, null);
    else {
      const next = stepPaths(plan.paths, states, k);
      r = next === PATH_MATCH ? REDACTED_JSON : writeJson(v, depth + 1, ctx, next);
    }
    if (r !== undefined) {
      out += out.length === 1 ? names[i]! : commaNames[i]!;
      out += r;
    }
  }
  if (keys.length > n) {
    out += `${out.length === 1 ? "" : ","}"…":"[+${keys.length - n} more keys]"`;
  }
  return `${out}}`;
}

/** The first `n` keys of an object as written: each `"key":` and whether the plan redacts its value. */
interface Shape {
  keys: readonly string[];
  n: number;
  plan: RedactionPlan | null;
  names: string[];
  /** `,"key":`, for every member after the first. */
  commaNames: string[];
  sensitive: boolean[] | null;
}

/** Consecutive records mostly log objects of one shape: the last one is kept. */
let lastShape: Shape | null = null;

/** The shape of `keys`, or undefined when the plain copy would change a key or its place. */
function shapeOf(keys: string[], n: number, plan: RedactionPlan | null): Shape | undefined {
  const last = lastShape;
  if (last !== null && last.n === n && last.plan === plan) {
    let i = 0;
    while (i < n && last.keys[i] === keys[i]) i++;
    if (i === n) return last;
  }
  const names: string[] = [];
  const sensitive: boolean[] | null = plan === null ? null : [];
  for (let i = 0; i < n; i++) {
    const name = keyJson(keys[i]!);
    if (name === undefined) return undefined;
    names.push(name);
    sensitive?.push(plan!.isSensitiveKey(keys[i]!));
  }
  lastShape = { keys, n, plan, names, commaNames: names.map((x) => `,${x}`), sensitive };
  return lastShape;
}

/** Mirrors walkArray. */
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

const KEY_CACHE_MAX = 4096;
/** Key → `"key":` for keys the plain copy keeps unchanged and in place. */
const keyCache = new Map<string, string>();

/**
 * `"key":`, or undefined when the plain copy would change the key or its place:
 * integer-like keys (objects list them first), keys setOwn cuts or repairs
 * (two could become one), and "…" (the more-keys marker).
 */
function keyJson(k: string): string | undefined {
  const hit = keyCache.get(k);
  if (hit !== undefined) return hit;
  const c = k.charCodeAt(0);
  if ((c >= 0x30 && c <= 0x39) || k.length > MAX_KEY_LENGTH || k === "…") return undefined;
  if (!(k as unknown as { isWellFormed(): boolean }).isWellFormed()) return undefined;
  const json = `${JSON.stringify(k)}:`;
  if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
  keyCache.set(k, json);
  return json;
}
