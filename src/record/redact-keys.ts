/**
 * Sensitive key names (§3.3): the default table, each entry with
 * the reason it is there, and the matcher (case styles, compounds, plurals).
 * docs/redaction.md prints the same table.
 */

/** One default key (normalised form) and why it is sensitive. */
export interface SensitiveKeyEntry {
  key: string;
  reason: string;
}

/** The default key table. Compounds end with a listed word, so `dbPassword` needs no entry. */
export const SENSITIVE_KEY_TABLE: readonly SensitiveKeyEntry[] = Object.freeze([
  { key: "password", reason: "a password" },
  { key: "passwd", reason: "Unix spelling of password" },
  { key: "pwd", reason: "connection-string spelling of password (ODBC, SQL Server)" },
  { key: "passphrase", reason: "protects a private key" },
  { key: "secret", reason: "any secret (clientSecret, webhookSecret, ...)" },
  { key: "token", reason: "bearer, session and CSRF tokens (plural exempt: token counts)" },
  { key: "access token", reason: "OAuth access token" },
  { key: "refresh token", reason: "OAuth refresh token" },
  { key: "id token", reason: "OpenID Connect id token" },
  { key: "api key", reason: "API keys (x-api-key, apiKey, apikey)" },
  { key: "api secret", reason: "API secret" },
  { key: "access key", reason: "S3-style access key pairs name the secret half accessKey too" },
  { key: "secret key", reason: "S3 secret key" },
  { key: "secret access key", reason: "AWS secret access key" },
  { key: "private key", reason: "asymmetric private key" },
  { key: "ssh key", reason: "SSH private key material" },
  { key: "signing key", reason: "HMAC/JWT signing key" },
  { key: "encryption key", reason: "data encryption key" },
  { key: "decryption key", reason: "data decryption key" },
  { key: "master key", reason: "key-encryption key" },
  { key: "session key", reason: "symmetric session key" },
  { key: "hmac key", reason: "HMAC secret" },
  { key: "license key", reason: "a paid licence is a bearer secret" },
  { key: "client secret", reason: "OAuth client secret" },
  { key: "credential", reason: "credential objects and strings (credentials, X-Amz-Credential)" },
  { key: "authorization", reason: "Authorization / Proxy-Authorization headers" },
  { key: "auth", reason: "auth headers and objects (basic auth, x-auth)" },
  { key: "cookie", reason: "session cookies" },
  { key: "set cookie", reason: "Set-Cookie response header" },
  { key: "session", reason: "session identifiers and objects" },
  { key: "session id", reason: "session identifier" },
  { key: "mnemonic", reason: "wallet recovery words" },
  { key: "seed phrase", reason: "wallet recovery words" },
  { key: "recovery code", reason: "2FA recovery codes" },
  { key: "ssn", reason: "US social security number" },
  { key: "credit card", reason: "card number" },
  { key: "card number", reason: "card number" },
  { key: "cvv", reason: "card verification value" },
  { key: "cvc", reason: "card verification code" },
  { key: "otp", reason: "one-time password" },
  { key: "pin", reason: "PIN code" },
  // issue 31 §3: names applications really use that the words above missed
  { key: "passcode", reason: "a numeric password (device and door passcodes)" },
  { key: "db pass", reason: "env-style password (DB_PASS); `pass` alone stays: test results" },
  { key: "smtp pass", reason: "env-style password (SMTP_PASS)" },
  { key: "mail pass", reason: "env-style password (MAIL_PASS)" },
  { key: "password hash", reason: "cracked offline (password_hash)" },
  { key: "password digest", reason: "Rails has_secure_password column, cracked offline" },
  { key: "secret key base", reason: "Rails' master secret (secret_key_base)" },
  { key: "privkey", reason: "OpenSSL / Let's Encrypt spelling of private key" },
  { key: "csrf", reason: "a CSRF token under its bare name (_csrf)" },
  { key: "xsrf", reason: "a CSRF token, Angular's spelling" },
  { key: "bearer", reason: "a key named bearer holds a bearer token" },
  { key: "jwt", reason: "a key named jwt holds a signed token" },
  { key: "auth key", reason: "an API key by another name (authKey, Cloudflare X-Auth-Key)" },
  { key: "subscription key", reason: "Azure API Management key (Ocp-Apim-Subscription-Key)" },
  { key: "account key", reason: "Azure storage account key (AccountKey=)" },
  { key: "recovery key", reason: "disk-encryption and 2FA recovery key" },
  { key: "oauth verifier", reason: "OAuth 1.0a verifier, exchanged for an access token" },
  { key: "auth code", reason: "OAuth authorization code, exchanged for tokens" },
  { key: "authorization code", reason: "OAuth authorization code, exchanged for tokens" },
  { key: "verification code", reason: "a one-time code sent by e-mail or SMS" },
  { key: "mfa code", reason: "a second-factor code" },
  { key: "backup code", reason: "2FA backup codes" },
  { key: "totp", reason: "a TOTP code or seed" },
  { key: "jsessionid", reason: "Java servlet session cookie" },
  { key: "phpsessid", reason: "PHP session cookie" },
  { key: "connect sid", reason: "express-session's session cookie (connect.sid)" },
  { key: "security code", reason: "card security code" },
  { key: "cvv2", reason: "card verification value" },
  { key: "cvc2", reason: "card verification code" },
  { key: "social security number", reason: "US social security number, spelled out" },
]);

/**
 * Words so distinctive that a one-word key ending with them is a secret too:
 * `PGPASSWORD`, `rootpassword`, `authtoken`, `csrfmiddlewaretoken`, `xapikey`. Only
 * when the word is listed (custom keys included), never for `key` or `code`.
 */
const SUFFIX_WORDS = new Set(["password", "passwd", "passphrase", "secret", "token", "apikey"]);

/** Default sensitive keys (normalised form). */
export const DEFAULT_REDACT_KEYS: readonly string[] = Object.freeze(
  SENSITIVE_KEY_TABLE.map((e) => e.key),
);

/**
 * Keys that look sensitive but are not, and stay in clear (tested): "key" alone
 * names an index or lookup key, never a secret; "tokens" counts LLM tokens.
 */
export const STAYS_CLEAR_EXAMPLES: readonly string[] = Object.freeze([
  "key",
  "cacheKey",
  "sortKey",
  "primaryKey",
  "partitionKey",
  "foreignKey",
  "keyId",
  "accessKeyId",
  "monkey",
  "keyboard",
  "tokens",
  "prompt_tokens",
  "maxTokens",
  "tokenCount",
  "author",
  "oauthProvider",
  "spinner",
  "sessionCount",
  "passwordless_enabled",
  "pass",
  "bypass",
  "boarding_pass",
  "code",
  "status_code",
  "promo_code",
  "signature",
  "sid",
  "csrf_enabled",
]);

/** Listed words whose plural does not count: "tokens" are usage counts in LLM logs. */
const PLURAL_EXEMPT = new Set(["token"]);

const KEY_CACHE_MAX = 4096;
const KEY_CACHE_MAX_LENGTH = 256;

/**
 * `accessToken`, `access-token`, `ACCESS_TOKEN`, `AccessToken` → `access token`.
 * @example normalizeKey("X-API-Key") // "x api key"
 */
export function normalizeKey(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/** `cookies` → `cookie`, `api keys` → `api key`; undefined when the last word is not plural. */
function singular(n: string): string | undefined {
  if (!n.endsWith("s") || n.endsWith("ss") || n.length < 3) return undefined;
  return n.slice(0, -1);
}

/**
 * Builds the key matcher. A key is sensitive when its normalised form (or its
 * singular: `passwords`, `apiKeys`, `private_keys`) equals a listed key, ends
 * with one on a word boundary (`dbPassword`, `x-api-key`), or equals one with
 * the spaces removed (`apikey`, `accesstoken`), or its last word ends with one of a
 * few distinctive listed words (`pgpassword`, `authtoken`: SUFFIX_WORDS).
 * @example createKeyMatcher(DEFAULT_REDACT_KEYS)("signing_keys") // true
 */
export function createKeyMatcher(keys: readonly string[]): (key: string) => boolean {
  const spaced = new Set(keys.map(normalizeKey).filter((k) => k !== ""));
  const joined = new Set([...spaced].map((k) => k.replaceAll(" ", "")));
  const suffixes = [...joined].filter((k) => SUFFIX_WORDS.has(k));
  const cache = new Map<string, boolean>();
  const listed = (n: string, plural: boolean): boolean => {
    const hit = (k: string) =>
      (spaced.has(k) || joined.has(k)) && !(plural && PLURAL_EXEMPT.has(k));
    if (hit(n)) return true;
    for (let i = n.indexOf(" "); i !== -1; i = n.indexOf(" ", i + 1)) {
      if (hit(n.slice(i + 1))) return true;
    }
    const last = n.slice(n.lastIndexOf(" ") + 1); // `pgpassword`, `authtoken`
    for (const s of suffixes) {
      if (last.length > s.length && last.endsWith(s) && !(plural && PLURAL_EXEMPT.has(s)))
        return true;
    }
    return false;
  };
  const decide = (key: string): boolean => {
    const n = normalizeKey(key);
    if (listed(n, false)) return true;
    const one = singular(n);
    return one !== undefined && listed(one, true);
  };
  return (key) => {
    if (key.length > KEY_CACHE_MAX_LENGTH) return decide(key); // never cache huge keys
    let hit = cache.get(key);
    if (hit === undefined) {
      if (cache.size >= KEY_CACHE_MAX) cache.clear();
      hit = decide(key);
      cache.set(key, hit);
    }
    return hit;
  };
}
