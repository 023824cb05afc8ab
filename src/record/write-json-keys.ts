/**
 * How the writer (write-json.ts) writes an object's keys: `"key":` per key, cached, and
 * the last object shape, so consecutive records of one shape cost one comparison a key;
 * and the members of errors, Maps and objects with keys a plain object would change or
 * move, in the order the plain copy has them.
 */
import type { RedactionPlan } from "./walk-context.js";
import { MAX_KEY_LENGTH, setOwn } from "./walk-context.js";

/** The first `n` keys of an object as written: each `"key":` and whether the plan redacts its value. */
export interface Shape {
  keys: readonly string[];
  n: number;
  plan: RedactionPlan | null;
  names: string[];
  /** `,"key":`, for every member after the first. */
  commaNames: string[];
  /**
   * The same with the opening quote of a string value (`"key":"`, `,"key":"`), and after a
   * string value whose closing quote is still to write (`","key":`, `","key":"`): a member
   * that is a plain string costs two appends, not four (fewer strings per record).
   */
  namesQ: string[];
  commaNamesQ: string[];
  quoteCommaNames: string[];
  quoteCommaNamesQ: string[];
  sensitive: boolean[] | null;
}

/** Consecutive records mostly log objects of one shape: the last one is kept. */
let lastShape: Shape | null = null;

/**
 * The shape of `keys`, or undefined when a plain object would change a key or its place.
 * @example shapeOf(["a", "b"], 2, null)?.names // ['"a":', '"b":']
 */
export function shapeOf(keys: string[], n: number, plan: RedactionPlan | null): Shape | undefined {
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
  lastShape = {
    keys,
    n,
    plan,
    names,
    commaNames: names.map((x) => `,${x}`),
    namesQ: names.map((x) => `${x}"`),
    commaNamesQ: names.map((x) => `,${x}"`),
    quoteCommaNames: names.map((x) => `",${x}`),
    quoteCommaNamesQ: names.map((x) => `",${x}"`),
    sensitive,
  };
  return lastShape;
}

/**
 * The last shape's keys when they are exactly `o`'s own enumerable string keys, in order
 * (what `Object.keys(o)` returns), else undefined. Compared in a for-in walk, which reads
 * the engine's cached key list without allocating the array `Object.keys` makes (that copy
 * was ~100 ns of each record's data object in bench/log.ts profiles).
 * @example lastShapeKeys({ a: 1 }) // ["a"] right after shapeOf(["a"], 1, plan)
 */
export function lastShapeKeys(o: object): string[] | undefined {
  const last = lastShape;
  if (last === null) return undefined;
  const keys = last.keys;
  const len = keys.length;
  let i = 0;
  for (const k in o) {
    if (i === len || k !== keys[i]) return undefined;
    i++;
  }
  if (i !== len) return undefined;
  // for-in lists inherited enumerable keys after every own one: the last key being own
  // means none of them was inherited.
  return len === 0 || hasOwn(o, keys[len - 1]!) ? (keys as string[]) : undefined;
}
const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

const KEY_CACHE_MAX = 4096;
/** Key → `"key":` for keys the plain copy keeps unchanged and in place. */
const keyCache = new Map<string, string>();

/**
 * `"key":`, or undefined when the plain copy would change the key or its place:
 * integer-like keys (objects list them first), keys setOwn cuts or repairs
 * (two could become one), and "…" (the more-keys marker).
 * @example keyJson("requestId") // '"requestId":'
 */
export function keyJson(k: string): string | undefined {
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

/**
 * `{…}` of members' `keys` and JSON `texts` as a plain copy has them: in this order when
 * the keys are `distinct` and each is kept as is (keyJson), else in the order of the plain
 * object setOwn fills (integer-like keys first, a key seen again keeps its place and takes
 * the last value). `more`: how many keys were left out (a last "…" member says so).
 * @example membersText(["b", "1"], ["1", "2"], true) // '{"1":2,"b":1}'
 */
export function membersText(
  keys: string[],
  texts: string[],
  distinct: boolean,
  more?: number,
): string {
  const marker = more === undefined ? undefined : `"[+${more} more keys]"`;
  return (distinct ? inOrder(keys, texts, marker) : undefined) ?? copyOrder(keys, texts, marker);
}

/**
 * `{…}` in this order, or undefined when a plain object would order or write a key
 * otherwise: it lists array indexes first, ascending ({2: …, 1: …} becomes {"1", "2"}).
 */
function inOrder(keys: string[], texts: string[], marker?: string): string | undefined {
  let json = "{";
  let lastIndex = -1; // -2 once a named key is written: no index may follow
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    let name = keyJson(k);
    if (name !== undefined) lastIndex = -2;
    else {
      const index = arrayIndex(k);
      if (index <= lastIndex || lastIndex === -2) return undefined;
      lastIndex = index;
      name = `"${k}":`;
    }
    json += i === 0 ? name : `,${name}`;
    json += texts[i]!;
  }
  if (marker !== undefined) json += `${keys.length === 0 ? "" : ","}"…":${marker}`;
  return `${json}}`;
}

/** The array index `k` names (0 to 2³² − 2, canonical digits), or -1. */
function arrayIndex(k: string): number {
  if (k.length === 0 || k.length > 10 || (k.length > 1 && k.charCodeAt(0) === 0x30)) return -1;
  for (let i = 0; i < k.length; i++) {
    const c = k.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return -1;
  }
  const n = Number(k);
  return n <= 4294967294 ? n : -1;
}

function copyOrder(keys: string[], texts: string[], marker?: string): string {
  const out: Record<string, string> = {};
  for (let i = 0; i < keys.length; i++) setOwn(out, keys[i]!, texts[i]!);
  if (marker !== undefined) setOwn(out, "…", marker);
  let json = "{";
  for (const k of Object.keys(out)) {
    if (json.length > 1) json += ",";
    json += `${JSON.stringify(k)}:${out[k]}`;
  }
  return `${json}}`;
}
