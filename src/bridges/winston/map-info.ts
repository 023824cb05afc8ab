/**
 * winston `info` object → Stowage record: level (`info[Symbol.for("level")]`, never
 * the colourised `info.level`), `message`, the error (an Error logged as the info,
 * as its message, as meta, under `err`/`error`, or a `stack` left by
 * `format.errors`), `timestamp` (from `format.timestamp()` when it is ISO-8601),
 * `trace_id`/`span_id`, child bindings and `defaultMeta` → `bindings`, every other
 * key → `data`. Reads every property once, guarded: a throwing getter becomes
 * "[Unserializable]", never an exception in the app.
 */
import { formatTimestamp, parseTimestamp, type LogRecord } from "../../record/record.js";
import { UNSERIALIZABLE } from "../../record/walk-context.js";
import { BINDINGS } from "./child-bindings.js";
import type { LevelMapper, WinstonLevels } from "./levels.js";

/** triple-beam's symbols (winston's own), by their registry names. */
const LEVEL = Symbol.for("level");
const SPLAT = Symbol.for("splat");

export type WinstonInfo = Record<string | symbol, unknown>;

export type WinstonRecord = Partial<LogRecord> & { message: string };

/** Keys that never become `data`. */
const OWN_FIELDS = new Set(["level", "message"]);

/** Reads `o[key]`; a throwing getter or proxy trap reads as "[Unserializable]". */
function read(o: object, key: string | symbol): unknown {
  try {
    return (o as WinstonInfo)[key];
  } catch {
    return UNSERIALIZABLE;
  }
}

/** Own enumerable keys; an object whose traps throw has none. */
function keysOf(o: object): string[] {
  try {
    return Object.keys(o);
  } catch {
    return [];
  }
}

function isError(v: unknown): v is Error {
  try {
    return v instanceof Error;
  } catch {
    return false;
  }
}

/** The Error this info came from, when there is one to find, and the key it sits under. */
function findError(
  info: WinstonInfo,
  message: unknown,
  stack: unknown,
): { err: Error; key?: string } | undefined {
  if (isError(info)) return { err: info };
  if (isError(message)) return { err: message };
  const splat = read(info, SPLAT);
  if (Array.isArray(splat)) {
    // `logger.error("failed", err)`: winston copies err.stack into info; the Error itself is in SPLAT.
    const err = splat.find(
      (v): v is Error => isError(v) && (stack === undefined || read(v, "stack") === stack),
    );
    if (err) return { err };
  }
  for (const key of ["err", "error"]) {
    const v = read(info, key);
    if (isError(v)) return { err: v, key };
  }
  return undefined;
}

/** `logger.error(err)` logs the Error itself, with winston's `level` and `defaultMeta` set on it: a plain copy without them. */
function ownError(err: Error, bound: Record<string, unknown> | undefined): Record<string, unknown> {
  const copy: Record<string, unknown> = {
    name: read(err, "name"),
    message: read(err, "message"),
    stack: read(err, "stack"),
  };
  const cause = read(err, "cause");
  if (cause !== undefined) copy.cause = cause;
  for (const key of keysOf(err)) {
    const value = read(err, key);
    if (key !== "level" && !(bound && Object.hasOwn(bound, key) && bound[key] === value))
      copy[key] = value;
  }
  return copy;
}

/** `format.errors()` (or a child logging an Error) leaves a plain `stack`: rebuild name and message from it. */
function errorFromStack(stack: string, message: unknown, cause: unknown): Record<string, unknown> {
  const newline = stack.indexOf("\n");
  const head = /^([A-Za-z_$][\w$]*): ?(.*)$/.exec(newline < 0 ? stack : stack.slice(0, newline));
  const name = head?.[1] ?? "Error";
  // A multi-line message: the stack's first line holds only its first line.
  const whole = typeof message === "string" && stack.startsWith(`${name}: ${message}`);
  const err: Record<string, unknown> = {
    name,
    message: whole ? message : (head?.[2] ?? (typeof message === "string" ? message : "")),
    stack,
  };
  if (cause !== undefined) err.cause = cause;
  return err;
}

/**
 * @example
 * mapWinstonInfo({ level: "warn", [Symbol.for("level")]: "warn", message: "slow", ms: 900 }, mapper, levels)
 * // { level: "warning", message: "slow", data: { ms: 900 } }
 */
export function mapWinstonInfo(
  info: WinstonInfo,
  mapper: LevelMapper,
  levels: WinstonLevels | undefined,
  defaultMeta: unknown,
): WinstonRecord {
  const rawLevel = read(info, LEVEL) ?? read(info, "level");
  let message = read(info, "message");
  const stack = read(info, "stack");
  const bound = bindingsOf(info, defaultMeta);
  const rec: WinstonRecord = { level: mapper.map(rawLevel, levels), message: "" };
  const found = findError(info, message, typeof stack === "string" ? stack : undefined);
  const skip = new Set(OWN_FIELDS);
  if (found) {
    const { err, key } = found;
    if (isError(message)) message = read(err, "message");
    skip.add("stack");
    if (key !== undefined) skip.add(key);
    if ((err as unknown) === info) {
      rec.error = ownError(err, bound);
      // The Error's own fields are in `error`; only the bindings winston put on it stay outside.
      for (const k of keysOf(err)) if (!(bound && Object.hasOwn(bound, k))) skip.add(k);
    } else {
      rec.error = err;
      if (read(info, "cause") === read(err, "cause")) skip.add("cause");
      // winston copies the error's own enumerable fields (code, status…) into info: they are in `error`.
      for (const k of keysOf(err)) if (read(info, k) === read(err, k)) skip.add(k);
    }
  } else if (typeof stack === "string") {
    rec.error = errorFromStack(stack, message, read(info, "cause"));
    skip.add("stack").add("cause");
  }
  if (typeof message === "string") rec.message = message;
  else if (message !== null && typeof message === "object") skip.delete("message");
  else if (message !== undefined && message !== null) rec.message = String(message);
  const timestamp = read(info, "timestamp");
  const ms = typeof timestamp === "string" ? parseTimestamp(timestamp) : null;
  if (ms !== null) {
    rec.timestamp = formatTimestamp(ms);
    skip.add("timestamp");
  }
  splitFields(info, rec, skip, bound);
  return rec;
}

/** Child bindings over the logger's `defaultMeta` (both are what the logger adds, not the call). */
function bindingsOf(info: WinstonInfo, defaultMeta: unknown): Record<string, unknown> | undefined {
  const tagged = read(info, BINDINGS) as Record<string, unknown> | undefined;
  const base = defaultMeta !== null && typeof defaultMeta === "object" ? defaultMeta : undefined;
  if (!base) return tagged;
  return tagged ? { ...base, ...tagged } : (base as Record<string, unknown>);
}

/** Every remaining own key: trace ids, bindings (same value as bound) or data. */
function splitFields(
  info: WinstonInfo,
  rec: WinstonRecord,
  skip: Set<string>,
  bound: Record<string, unknown> | undefined,
): void {
  let data: Record<string, unknown> | undefined;
  let bindings: Record<string, unknown> | undefined;
  for (const key of keysOf(info)) {
    if (skip.has(key)) continue;
    const value = read(info, key);
    if ((key === "trace_id" || key === "traceId") && typeof value === "string") rec.traceId = value;
    else if ((key === "span_id" || key === "spanId") && typeof value === "string")
      rec.spanId = value;
    else if (bound && Object.hasOwn(bound, key) && bound[key] === value)
      (bindings ??= {})[key] = value;
    else (data ??= {})[key] = value;
  }
  if (bindings) rec.bindings = bindings;
  if (data) rec.data = data;
}
