/**
 * What source context never shows: stowage config files (they may
 * hold literal credentials), and in any other file, string values assigned to a
 * sensitive key (`secretAccessKey: "…"`, `password = '…'`) or matching the default
 * redaction patterns (bearer tokens, JWTs, AWS key ids, PEM blocks, URL userinfo, cards).
 * Applies whatever the mode (`--source` or a loaded config): it needs no config to know.
 */
import { basename } from "node:path";
import { createKeyMatcher, DEFAULT_REDACT_KEYS } from "../record/redact.js";
import { redactDefaultPatterns } from "../record/redact-patterns.js";

/** Credential spellings of S3 clients and config files, on top of the §3.3 keys. */
const CREDENTIAL_KEYS = ["access key id", "access key", "session token", "credentials"];
const sensitive = createKeyMatcher([...DEFAULT_REDACT_KEYS, ...CREDENTIAL_KEYS]);

/** `key: "value"`, `"key": 'value'`, `key = \`value\`` (the key optionally quoted). */
const ASSIGNED_STRING = /(["'`]?)([A-Za-z_$][\w$-]*)\1(\s*[:=]\s*)(["'`])((?:\\.|(?!\4)[^\\])*)\4/g;

/**
 * True for a stowage config file (`stowage.config.ts`, `.yaml`, …): never served as context.
 * @example isStowageConfigFile("/repo/stowage.config.ts") // true
 */
export function isStowageConfigFile(path: string): boolean {
  return /^stowage\.config\.[a-z]+$/i.test(basename(path));
}

/**
 * Returns the lines with sensitive string values replaced by `[REDACTED]` (or the pattern's marker).
 * @example scrubSourceLines(['  secretAccessKey: "abc",']) // ['  secretAccessKey: "[REDACTED]",']
 */
export function scrubSourceLines(lines: readonly string[]): string[] {
  return lines.map((line) =>
    redactDefaultPatterns(line).replace(
      ASSIGNED_STRING,
      (all, q: string, key: string, eq: string, quote: string) =>
        sensitive(key) ? `${q}${key}${q}${eq}${quote}[REDACTED]${quote}` : all,
    ),
  );
}
