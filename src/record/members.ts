/**
 * What the record walk makes of an object before writing it: what a built-in becomes
 * (builtinOf), and the members of errors, Maps and ordinary objects, handed over in the
 * order they are read (each getter runs when its member is reached). One definition for
 * the writer (write-json.ts) and the test's reference walk (test/support/reference-walk.ts).
 * Members are passed to a sink rather than yielded: a generator cost an error ~0.4 µs.
 */
import { MAX_DEPTH, UNSERIALIZABLE, type WalkContext } from "./walk-context.js";

/** Receives an object's members in order. */
export interface MemberSink {
  member(key: string, value: unknown): void;
  /** Called last when the members were cut at maxObjectKeys: how many keys were left out. */
  more(count: number): void;
}

/** An object's members, read as `each` hands them to a sink. */
export interface Members {
  /** False when two members may share a key (a Map whose keys are of different types: 1, "1"). */
  readonly distinct: boolean;
  each(sink: MemberSink): void;
}

/** A built-in object as the walk writes it. */
export type Builtin =
  /** Written as this string, as is: a date, a binary summary, "[MaxDepth]". */
  | { kind: "text"; text: string }
  /** Walked in its place at the same depth: a boxed primitive, a RegExp's source text. */
  | { kind: "value"; value: unknown }
  /** Written as an object: an error's fields, a Map with primitive keys. */
  | { kind: "members"; members: Members }
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

/** `o[k]`, or "[Unserializable]" when a getter or a Proxy trap throws. */
function readMember(o: object, k: string): unknown {
  try {
    return (o as Record<string, unknown>)[k];
  } catch {
    return UNSERIALIZABLE;
  }
}

/**
 * An object's first `maxKeys` of `keys` (its own enumerable keys), then the more-keys count.
 * @example propMembers({ a: 1, b: 2 }, ["a", "b"], 1).each(sink) // member("a", 1), more(1)
 */
export function propMembers(o: object, keys: string[], maxKeys: number): Members {
  return {
    distinct: true,
    each(sink) {
      const n = Math.min(keys.length, maxKeys);
      for (let i = 0; i < n; i++) sink.member(keys[i]!, readMember(o, keys[i]!));
      if (keys.length > n) sink.more(keys.length - n);
    },
  };
}

/**
 * A Map's entries keyed by `String(key)`, or null when a key is an object, a function or
 * a symbol (such a Map is written as an array of `[key, value]` pairs).
 */
function mapMembers(m: Map<unknown, unknown>, maxKeys: number): Members | null {
  let type: string | undefined;
  let distinct = true; // keys of one type have distinct texts
  for (const k of m.keys()) {
    const t = k === null ? "null" : typeof k;
    if (t === "object" || t === "function" || t === "symbol") return null;
    if (type !== undefined && t !== type) distinct = false;
    type = t;
  }
  return {
    distinct,
    each(sink) {
      let i = 0;
      for (const [k, v] of m) {
        if (i++ >= maxKeys) {
          sink.more(m.size - maxKeys);
          return;
        }
        sink.member(String(k), v);
      }
    },
  };
}

const ERROR_FIELDS = new Set(["name", "message", "stack", "code", "status", "cause", "errors"]);

/**
 * An error's members (docs/records.md#errors): name, message, stack when a string, code,
 * status (from `status`, `statusCode` or the AWS SDK's `$metadata.httpStatusCode`), cause,
 * AggregateError's errors, then its other own enumerable properties (the first `maxKeys`
 * keys looked at; no more-keys count).
 */
function errorMembers(e: Error, maxKeys: number): Members {
  return { distinct: true, each: (sink) => eachErrorMember(e, maxKeys, sink) };
}

function eachErrorMember(e: Error, maxKeys: number, sink: MemberSink): void {
  const name = readMember(e, "name");
  const message = readMember(e, "message");
  sink.member("name", typeof name === "string" ? name : "Error");
  sink.member("message", typeof message === "string" ? message : String(message ?? ""));
  const stack = readMember(e, "stack");
  if (typeof stack === "string") sink.member("stack", stack);
  sink.member("code", readMember(e, "code"));
  let status = readMember(e, "status") ?? readMember(e, "statusCode");
  if (status === undefined) {
    const meta = readMember(e, "$metadata");
    if (meta !== null && typeof meta === "object")
      status = (meta as { httpStatusCode?: unknown }).httpStatusCode;
  }
  sink.member("status", status);
  sink.member("cause", readMember(e, "cause"));
  const errors = readMember(e, "errors");
  if (Array.isArray(errors)) sink.member("errors", errors);
  const keys = Object.keys(e);
  const n = Math.min(keys.length, maxKeys);
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    if (!ERROR_FIELDS.has(k)) sink.member(k, readMember(e, k));
  }
}
