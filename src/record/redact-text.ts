/**
 * Secrets inside free text that the key table cannot see: query
 * parameters and `key=value` pairs with a sensitive name (URLs, query strings,
 * connection strings like `Server=db;Password=…` or `host=db password=…`), and
 * `Basic <base64 user:password>` credentials. Built once per redaction.
 */

/** Parameter names that are secrets in URLs but no key-table word (pre-signed S3 URLs). */
const SECRET_PARAMS = new Set([
  "x-amz-signature",
  "x-amz-credential",
  "x-amz-security-token",
  "signature",
  "sig",
]);

// `name=value` after a start, `?`, `&`, `;`, `,` or whitespace; the value is quoted or runs to the
// next separator. Every run is bounded so a hostile string cannot make the scan quadratic.
const PARAM =
  /(^|[?&;,\s])([A-Za-z_][A-Za-z0-9_.[\]-]{0,63})=("[^"]{0,4096}"|'[^']{0,4096}'|[^&;#\s"',]{1,4096})/g;
const BASIC = /\b(?:[Bb]asic|BASIC)\s+([A-Za-z0-9+/]{4,1024}={0,2})(?![A-Za-z0-9+/=])/g;

/** True when `b64` decodes to printable `user:password` (so "Basic information" stays). */
function isBasicCredential(b64: string): boolean {
  if (b64.length % 4 !== 0) return false;
  const text = Buffer.from(b64, "base64").toString("latin1");
  return text.includes(":") && /^[\x20-\x7e]+$/.test(text);
}

/**
 * Returns a string redactor for parameters named by `isSensitiveKey` (plus the
 * S3 signature parameters when `defaults`) and, when `defaults`, Basic auth.
 * @example createTextRedactor((k) => k === "token", true)("GET /a?token=abc&x=1") // "GET /a?token=[REDACTED]&x=1"
 */
export function createTextRedactor(
  isSensitiveKey: (key: string) => boolean,
  defaults: boolean,
): (s: string) => string {
  const sensitive = (name: string) =>
    (defaults && SECRET_PARAMS.has(name.toLowerCase())) || isSensitiveKey(name);
  const param = (m: string, pre: string, name: string, value: string) =>
    sensitive(name) && value !== '""' && value !== "''" ? `${pre}${name}=[REDACTED]` : m;
  const basic = (m: string, b64: string) =>
    isBasicCredential(b64) ? "Basic [REDACTED:basic-auth]" : m;
  return (s) => {
    if (s.includes("=")) s = s.replace(PARAM, param);
    if (defaults && (s.includes("asic") || s.includes("ASIC"))) s = s.replace(BASIC, basic);
    return s;
  };
}
