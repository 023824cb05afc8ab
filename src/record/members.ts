/**
 * What the record walk makes of an object before writing it: what a built-in becomes
 * (builtinOf), and the `[key, value]` members of errors, Maps and ordinary objects in the
 * order it reads them (each getter runs when its member is reached). One definition for
 * the writer (write-json.ts) and the test's reference walk (test/support/reference-walk.ts).
 * A member list cut at maxObjectKeys ends with `[MORE_KEYS, count]`.
 */
import { MAX_DEPTH, UNSERIALIZABLE, type WalkContext } from "./walk-context.js";

/** The key of a cut list's last member; its value is how many keys were left out. */
export const MORE_KEYS = Symbol("more keys");

/** One member: a key and its value as read, or the more-keys count of a cut list. */
export type Member = [key: string, value: unknown] | [key: typeof MORE_KEYS, count: number];

/** A built-in object as the walk writes it. */
export type Builtin =
  /** Written as this string, as is: a date, a binary summary, "[MaxDepth]". */
  | { kind: "text"; text: string }
  /** Walked in its place at the same depth: a boxed primitive, a RegExp's source text. */
  | { kind: "value"; value: unknown }
  /** Written as an object: an error's fields, a Map with primitive keys. */
  | { kind: "members"; members: Iterable<Member> }
  /** Written as an array: a Set, a Map with other keys (as `[key, value]` pairs). */
  | { kind: "items"; items: unknown[] };

/**
 * What built-in `o` (not a plain object or array) is written as at `depth`, or undefined
 * when it has no meaning of its own (a class instance: walked by its own keys).
 * @example builtinOf(new Date(0), 0, ctx) // { kind: "text", text: "1970-01-01T00:00:00.000Z" }
 */
export function builtinOf(o: object, depth: number, ctx: WalkContext): Builtin | undefined {
  if (o instanceof Date)
    return { kind: "text", text: Number.isNaN(o.getTime()) ? "Invalid Date" : o.toISOString() };
  if (o instanceof Error) {
    if (depth >= ctx.maxDepth) return { kind: "text", text: MAX_DEPTH };
    return { kind: "members", members: errorMembers(o, ctx.maxKeys) };
  }
  if (ArrayBuffer.isView(o)) {
    const kind =
      typeof Buffer !== "undefined" && Buffer.isBuffer(o) ? "Buffer" : o.constructor.name;
    return { kind: "text", text: `[${kind} ${o.byteLength} bytes]` };
  }
  if (o instanceof ArrayBuffer || o instanceof SharedArrayBuffer)
    return { kind: "text", text: `[${o.constructor.name} ${o.byteLength} bytes]` };
  if (o instanceof String || o instanceof Number || o instanceof Boolean || o instanceof BigInt)
    return { kind: "value", value: o.valueOf() };
  if (o instanceof RegExp) return { kind: "value", value: String(o) };
  if (!(o instanceof Map || o instanceof Set)) return undefined;
  if (depth >= ctx.maxDepth) return { kind: "text", text: MAX_DEPTH };
  if (o instanceof Map) {
    const members = mapMembers(o, ctx.maxKeys);
    if (members !== null) return { kind: "members", members };
    return { kind: "items", items: Array.from(o.entries()) };
  }
  return { kind: "items", items: Array.from(o) };
}

/**
 * `o[k]`, or "[Unserializable]" when a getter or a Proxy trap throws.
 * @example readMember({ get x() { throw new Error(); } }, "x") // "[Unserializable]"
 */
function readMember(o: object, k: string): unknown {
  try {
    return (o as Record<string, unknown>)[k];
  } catch {
    return UNSERIALIZABLE;
  }
}

/**
 * An object's first `maxKeys` of `keys` (its own enumerable keys).
 * @example [...propMembers({ a: 1, b: 2 }, ["a", "b"], 1)] // [["a", 1], [MORE_KEYS, 1]]
 */
export function* propMembers(o: object, keys: string[], maxKeys: number): Generator<Member> {
  const n = Math.min(keys.length, maxKeys);
  for (let i = 0; i < n; i++) yield [keys[i]!, readMember(o, keys[i]!)];
  if (keys.length > n) yield [MORE_KEYS, keys.length - n];
}

/**
 * A Map's entries keyed by `String(key)`, or null when a key is an object, a function or
 * a symbol (such a Map is written as an array of `[key, value]` pairs).
 * @example [...mapMembers(new Map([[1, "a"]]), 10)!] // [["1", "a"]]
 */
function mapMembers(m: Map<unknown, unknown>, maxKeys: number): Iterable<Member> | null {
  for (const k of m.keys()) {
    if (typeof k === "object" ? k !== null : typeof k === "function" || typeof k === "symbol")
      return null;
  }
  return primitiveKeyed(m, maxKeys);
}

function* primitiveKeyed(m: Map<unknown, unknown>, maxKeys: number): Generator<Member> {
  let i = 0;
  for (const [k, v] of m) {
    if (i++ >= maxKeys) {
      yield [MORE_KEYS, m.size - maxKeys];
      return;
    }
    yield [String(k), v];
  }
}

const ERROR_FIELDS = new Set(["name", "message", "stack", "code", "status", "cause", "errors"]);

/**
 * An error's members (docs/records.md#errors): name, message, stack when a string, code,
 * status (from `status`, `statusCode` or the AWS SDK's `$metadata.httpStatusCode`), cause,
 * AggregateError's errors, then its other own enumerable properties (the first `maxKeys`
 * keys looked at; no more-keys member).
 * @example [...errorMembers(new Error("x"), 10)][1] // ["message", "x"]
 */
function* errorMembers(e: Error, maxKeys: number): Generator<Member> {
  const name = readMember(e, "name");
  const message = readMember(e, "message");
  yield ["name", typeof name === "string" ? name : "Error"];
  yield ["message", typeof message === "string" ? message : String(message ?? "")];
  const stack = readMember(e, "stack");
  if (typeof stack === "string") yield ["stack", stack];
  yield ["code", readMember(e, "code")];
  let status = readMember(e, "status") ?? readMember(e, "statusCode");
  if (status === undefined) {
    const meta = readMember(e, "$metadata");
    if (meta !== null && typeof meta === "object")
      status = (meta as { httpStatusCode?: unknown }).httpStatusCode;
  }
  yield ["status", status];
  yield ["cause", readMember(e, "cause")];
  const errors = readMember(e, "errors");
  if (Array.isArray(errors)) yield ["errors", errors];
  const keys = Object.keys(e);
  const n = Math.min(keys.length, maxKeys);
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    if (!ERROR_FIELDS.has(k)) yield [k, readMember(e, k)];
  }
}
