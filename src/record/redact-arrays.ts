/**
 * Secrets in name/value arrays: `node:http`'s `rawHeaders` (a flat
 * `[name, value, name, value, …]` list), `[["authorization", "…"]]` header
 * pairs and the `[key, value]` entries of a Map with object keys. When every
 * even element is a header-like name, the value after a sensitive name is redacted.
 */

const NAME = /^:?[A-Za-z0-9_.!#$%&'*+^`|~-]{1,128}$/;

/**
 * Indexes of the values to redact in `a`, or null when `a` is not a name/value
 * list or names nothing sensitive. Numeric arrays cost one typeof.
 * @example pairedSecretIndexes(["Host", "x", "Cookie", "sid=1"], (k) => k === "Cookie") // [3]
 */
export function pairedSecretIndexes(
  a: readonly unknown[],
  isSensitiveKey: (key: string) => boolean,
): number[] | null {
  const n = a.length;
  if (n < 2 || n % 2 !== 0 || n > 2000) return null;
  let out: number[] | null = null;
  try {
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
