/**
 * Interprets the arguments of a logging call (SPEC §3.2): `(message, data?)`,
 * an Error as message or data, and pino's `(object, message)` order; and reads
 * `write()`'s record argument once, turning unreadable input into usage errors.
 */
import type { RECORD_FIELDS } from "../record/fields.js";
import type { LogRecord } from "../record/record.js";
import { UNSERIALIZABLE } from "../record/walk-context.js";
import { StowageError } from "../shared/errors.js";

export interface CallParts {
  message: string;
  data?: unknown;
  error?: unknown;
}

/**
 * @example parseCallArgs("saved", { id: 1 })   // { message: "saved", data: { id: 1 } }
 * @example parseCallArgs({ id: 1 }, "saved")   // pino order, same result
 * @example parseCallArgs(new Error("boom"))     // { message: "boom", error: Error }
 */
export function parseCallArgs(first: unknown, second: unknown): CallParts {
  if (typeof first === "string") {
    if (second instanceof Error) return { message: first, error: second };
    return second === undefined ? { message: first } : { message: first, data: second };
  }
  if (first instanceof Error) {
    if (typeof second === "string") return { message: second, error: first };
    const message = safeMessage(first);
    return second === undefined
      ? { message, error: first }
      : { message, error: first, data: second };
  }
  if (first !== null && typeof first === "object") {
    const message = typeof second === "string" ? second : "";
    const err = pickError(first);
    if (err) {
      const { err: _e, error: _r, ...rest } = first as Record<string, unknown>;
      return Object.keys(rest).length
        ? { message: message || safeMessage(err), error: err, data: rest }
        : { message: message || safeMessage(err), error: err };
    }
    return { message, data: first };
  }
  return second === undefined
    ? { message: safeString(first) }
    : { message: safeString(first), data: second };
}

function pickError(o: object): Error | undefined {
  try {
    const r = o as Record<string, unknown>;
    if (r.err instanceof Error) return r.err;
    if (r.error instanceof Error) return r.error;
  } catch {
    /* a throwing getter: treat as data */
  }
  return undefined;
}

function safeMessage(e: Error): string {
  try {
    return typeof e.message === "string" ? e.message : safeString(e.message);
  } catch {
    return "[Unserializable]";
  }
}

function safeString(v: unknown): string {
  try {
    return String(v);
  } catch {
    return "[Unserializable]";
  }
}

/**
 * parseCallArgs, for values that throw on every access (a Proxy, a revoked Proxy):
 * the record is kept with the unreadable value replaced, never dropped uncounted.
 * @example safeCallArgs("saved", revokedProxy) // { message: "saved", data: "[Unserializable]" }
 */
export function safeCallArgs(first: unknown, second: unknown): CallParts {
  try {
    return parseCallArgs(first, second);
  } catch {
    const message =
      typeof first === "string" ? first : typeof second === "string" ? second : UNSERIALIZABLE;
    return { message, data: UNSERIALIZABLE };
  }
}

/**
 * write()'s argument, read once into a plain object; anything unreadable is a usage error.
 * @example readRecord({ level: "info", message: "hi" }) // a plain copy of the known fields
 */
export function readRecord(input: unknown): Partial<LogRecord> & { message?: unknown } {
  if (input === null || typeof input !== "object") {
    throw new StowageError(
      "usage",
      `write() takes a record object like { level: "info", message: "…" }, got ${input === null ? "null" : typeof input}`,
    );
  }
  try {
    if (Array.isArray(input))
      throw new StowageError(
        "usage",
        'write() takes a record object like { level: "info", message: "…" }, got an array',
      );
    const src = input as Record<string, unknown>;
    // Every field read once, by name, into one fixed shape (a field absent is undefined):
    // a copy built key by key gets a different hidden class per field set and is slow.
    return {
      timestamp: src.timestamp,
      level: src.level,
      message: src.message,
      service: src.service,
      caller: src.caller,
      data: src.data,
      bindings: src.bindings,
      error: src.error,
      traceId: src.traceId,
      spanId: src.spanId,
    } satisfies Record<(typeof RECORD_FIELDS)[number], unknown> as Partial<LogRecord> & {
      message?: unknown;
    };
  } catch (err) {
    if (err instanceof StowageError) throw err;
    throw new StowageError(
      "usage",
      `write() could not read the record (${err instanceof Error ? err.message : "a field access threw"}); pass a plain object`,
      { cause: err },
    );
  }
}
