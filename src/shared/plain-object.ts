/**
 * One test for "an object literal": config key normalisation walks only these, and a
 * child logger's bindings take the one-walk path only when they are one.
 */

/**
 * True for an object whose prototype is Object.prototype or null (not an array, a class
 * instance, or a Proxy whose traps throw).
 * @example isPlainObject({ a: 1 }) // true
 * @example isPlainObject(new Date()) // false
 */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null) return false;
  try {
    const proto: unknown = Object.getPrototypeOf(v);
    return (proto === Object.prototype || proto === null) && !Array.isArray(v);
  } catch {
    return false; // a revoked Proxy, or one whose traps throw
  }
}
