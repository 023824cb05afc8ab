/**
 * Interprets the arguments of a logging call (SPEC §3.2): `(message, data?)`,
 * an Error as message or data, and pino's `(object, message)` order.
 */

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
