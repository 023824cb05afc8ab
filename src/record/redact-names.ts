/**
 * Names that are credentials only in one place (issue 31 §3): URL query parameters
 * (`key`, `code`, `t`, `sig`, `X-Amz-Signature` — ordinary words as data keys) and
 * HTTP header names (`x-functions-key`, `ocp-apim-subscription-key`, `x-signature`).
 * The key table (redact-keys.ts) still applies everywhere; these add to it in
 * their own context only.
 */
import { normalizeKey } from "./redact-keys.js";

/** Parameter names that are secrets in any `name=value` text: signatures and session cookies. */
export const SECRET_PARAMS: ReadonlySet<string> = new Set([
  "x-amz-signature", // pre-signed S3 URLs
  "x-amz-credential",
  "x-amz-security-token",
  "signature",
  "sig", // Azure SAS
  "sid", // the usual session cookie name (HAR `Cookie` values: `sid=…`)
]);

/**
 * Query parameters that carry credentials but are ordinary words as data keys, each
 * with its source: so they are redacted in a URL's query and the adapters' `query`
 * object only.
 */
const QUERY_PARAMS: ReadonlySet<string> = new Set([
  "key", // Google APIs (?key=AIza…), many REST APIs
  "code", // OAuth authorization code on the redirect
  "t", // short-lived token in share and download links
  "pass", // password in legacy GET logins
  "ticket", // CAS service ticket (ST-…)
  "hmac", // Shopify and webhook callback signatures
]);

/** Header names ending in these words carry credentials (`x-functions-key`, `x-hub-signature-256`). */
const HEADER_LAST_WORDS: ReadonlySet<string> = new Set(["key", "signature", "sig"]);

/** Headers ending in `key` that carry no secret: kept, they help debugging. */
const CLEAR_HEADERS = ["idempotency key", "websocket key", "web socket key"];

const CACHE_MAX = 4096;

/**
 * A name predicate with a bounded per-name cache (names repeat: header and query keys).
 * @example const isSecret = cached((n) => n.endsWith("key"));
 */
export function cached(decide: (name: string) => boolean): (name: string) => boolean {
  const cache = new Map<string, boolean>();
  return (name) => {
    if (name.length > 256) return decide(name);
    let hit = cache.get(name);
    if (hit === undefined) {
      if (cache.size >= CACHE_MAX) cache.clear();
      hit = decide(name);
      cache.set(name, hit);
    }
    return hit;
  };
}

/** The normalised words without trailing numbers (`x-hub-signature-256` → x hub signature). */
function words(name: string): string[] {
  const w = normalizeKey(name).split(" ");
  while (w.length > 1 && /^\d+$/.test(w[w.length - 1]!)) w.pop();
  return w;
}

/**
 * True for a query parameter that carries a credential though it is no key-table word:
 * `key`, `code`, `t`, `pass`, `ticket`, `hmac`, `sig`, and any `…signature` (`X-Amz-Signature`,
 * `X-Goog-Signature`, `oauth_signature`). The key table is checked separately.
 * @example isCredentialQueryParam("X-Goog-Signature") // true
 */
export const isCredentialQueryParam = cached((name) => {
  const lower = name.toLowerCase();
  if (QUERY_PARAMS.has(lower) || SECRET_PARAMS.has(lower)) return true;
  const last = words(name).pop();
  return last === "signature" || last === "sig";
});

/**
 * True for a header-style name (with a `-`) whose last word is `key`, `signature` or `sig`:
 * `x-functions-key`, `ocp-apim-subscription-key`, `x-upstream-key`, `x-signature`,
 * `X-Hub-Signature-256`; not `idempotency-key` or `sec-websocket-key`. Only where a name
 * is known to be a header's; the key table is checked separately.
 * @example isCredentialHeaderName("x-functions-key") // true
 */
export const isCredentialHeaderName = cached((name) => {
  if (!name.includes("-")) return false;
  const w = words(name);
  if (!HEADER_LAST_WORDS.has(w[w.length - 1]!)) return false;
  const n = w.join(" ");
  return !CLEAR_HEADERS.some((c) => n === c || n.endsWith(` ${c}`));
});

/**
 * True for a data key that can only be a credential header's name: `x-…-key`,
 * `x-…-signature` (the `x-` prefix is a header's), or any `…-signature` / `…-sig`
 * (`stripe-signature`); so a logged `req.headers` object is covered like the adapters'.
 * Kebab-case keys such as `sort-key` or `public-key` stay.
 * @example isCredentialHeaderKey("x-functions-key") // true
 */
export const isCredentialHeaderKey = cached((name) => {
  if (!isCredentialHeaderName(name)) return false;
  if (/^x-/i.test(name)) return true;
  const last = words(name).pop();
  return last === "signature" || last === "sig";
});

/**
 * `o` with the value of every name `isSecret` picks replaced by "[REDACTED]": a copy
 * when one is, `o` itself when none is. For the adapters' `query` and `headers` objects.
 * @example redactNamed({ key: "AIza1", page: "2" }, isCredentialQueryParam) // { key: "[REDACTED]", page: "2" }
 */
export function redactNamed(
  o: Record<string, unknown>,
  isSecret: (name: string) => boolean,
): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const k in o) {
    if (isSecret(k)) (out ??= { ...o })[k] = "[REDACTED]";
  }
  return out ?? o;
}
