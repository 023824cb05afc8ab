/**
 * Default secret patterns for string values (§3.3): bearer tokens, JWTs, AWS
 * access key ids, PEM private keys, URL credentials, Luhn-valid card numbers.
 * One cheap combined pre-check guards the full patterns, so ordinary strings
 * pay for a single regex scan.
 */

/** The kind written into `"[REDACTED:<kind>]"`. */
export type PatternKind =
  "private-key" | "url-credentials" | "bearer" | "jwt" | "aws-access-key" | "card";

/**
 * Matches every string that any default pattern could match (and a few more):
 * the literal anchors of each pattern, or 4+3 digits for cards. Case-sensitive
 * on purpose ("Asia/Tokyo" must not wake the AWS pattern).
 */
const PRECHECK = /[Bb]earer|BEARER|eyJ|A[KS]IA|PRIVATE KEY|:\/\/|[2-6]\d{3}[ -]?\d{3}/;

const PEM =
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*$)/g;
// userinfo ends at the LAST "@" before the path/query/fragment (passwords may contain a raw "@");
// every run is bounded so a hostile string cannot make the scan quadratic
const URL_CREDENTIALS = /\b([A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/)[^\s:@/?#]{0,256}:[^\s/?#]{0,1024}@/g;
const BEARER = /\b(?:[Bb]earer|BEARER)\s+[A-Za-z0-9\-._~+/]{8,}=*/g;
const JWT = /\beyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g;
const AWS_KEY = /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g;
// contiguous 13–19 digits, or 4 digits then 2–4 groups of 3–6 separated by one space or dash
const CARD = /\b[2-6](?:\d{12,18}|\d{3}(?:[ -]\d{3,6}){2,4})\b/g;

const marker = (kind: PatternKind) => `[REDACTED:${kind}]`;

/** A bearer credential looks random: it has a digit or symbol, or is long ("Bearer of bad news" stays). */
function bearerReplacer(match: string): string {
  const token = match.replace(/^\S+\s+/, "");
  return token.length >= 20 || /[0-9\-._~+/=]/.test(token) ? marker("bearer") : match;
}

/** Card: 13–19 digits, Luhn-valid; 13-digit numbers only with the Visa prefix 4 (epoch ms stay). */
function cardReplacer(match: string): string {
  const digits = match.replace(/[ -]/g, "");
  if (digits.length < 13 || digits.length > 19) return match;
  if (digits.length === 13 && digits[0] !== "4") return match;
  return luhnValid(digits) ? marker("card") : match;
}

/**
 * Luhn checksum over a string of digits.
 * @example luhnValid("4111111111111111") // true
 */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/**
 * Replaces every default-pattern match in `s`; returns `s` itself when none.
 * Order matters: whole PEM blocks first, then URL userinfo, then tokens.
 * @example redactDefaultPatterns("Authorization: Bearer abc123def456") // "Authorization: [REDACTED:bearer]"
 */
export function redactDefaultPatterns(s: string): string {
  if (!PRECHECK.test(s)) return s;
  if (s.includes("PRIVATE KEY")) s = s.replace(PEM, marker("private-key"));
  if (s.includes("://")) s = s.replace(URL_CREDENTIALS, `$1${marker("url-credentials")}@`);
  s = s.replace(BEARER, bearerReplacer);
  if (s.includes("eyJ")) s = s.replace(JWT, marker("jwt"));
  if (s.includes("IA")) s = s.replace(AWS_KEY, marker("aws-access-key"));
  return s.replace(CARD, cardReplacer);
}
