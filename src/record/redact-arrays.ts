/**
 * Secrets in name/value arrays: `node:http`'s `rawHeaders` (a flat
 * `[name, value, name, value, …]` list), `[["authorization", "…"]]` header
 * pairs, the `[key, value]` entries of a Map with object keys, and HAR-style lists of
 * `{ name, value }` objects (`headers: [{ name: "Cookie", value: "sid=…" }]`). When every
 * name is header-like, the value after (or the entry of) a sensitive name is redacted.
 */

const NAME = /^:?[A-Za-z0-9_.!#$%&'*+^`|~-]{1,128}$/;
const MAX_LENGTH = 2000;

/**
 * Indexes of the values to redact in `a`, or null when `a` is not a name/value
 * list or names nothing sensitive. Numeric arrays cost one typeof.
 * @example pairedSecretIndexes(["Host", "x", "Cookie", "sid=1"], (k) => k === "Cookie") // [3]
 * @example pairedSecretIndexes([{ name: "Cookie", value: "sid=1" }], (k) => k === "Cookie") // [0]
 */
export function pairedSecretIndexes(
  a: readonly unknown[],
  isSensitiveKey: (key: string) => boolean,
): number[] | null {
  const n = a.length;
  if (n === 0 || n > MAX_LENGTH) return null;
  let out: number[] | null = null;
  try {
    if (typeof a[0] === "object" && a[0] !== null) return entrySecretIndexes(a, isSensitiveKey);
    if (n < 2 || n % 2 !== 0) return null;
    for (let i = 0; i < n; i += 2) {
      const name = a[i];
      if (typeof name !== "string" || !NAME.test(name)) return null;
      if (isSensitiveKey(name)) (out ??= []).push(i + 1);
    }
  } catch {
    return null; // a throwing getter or proxy: the walk marks the element itself
  }
  return out;
}

/**
 * A HAR-style list (every element an object with a header-like string `name` and a
 * `value`): the indexes of the entries with a sensitive name, redacted whole.
 */
function entrySecretIndexes(
  a: readonly unknown[],
  isSensitiveKey: (key: string) => boolean,
): number[] | null {
  let out: number[] | null = null;
  for (let i = 0; i < a.length; i++) {
    const e = a[i];
    if (typeof e !== "object" || e === null || Array.isArray(e) || !("value" in e)) return null;
    const name = (e as { name?: unknown }).name;
    if (typeof name !== "string" || !NAME.test(name)) return null;
    if (isSensitiveKey(name)) (out ??= []).push(i);
  }
  return out;
}
