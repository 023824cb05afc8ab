/**
 * One-pass checks on short strings that let the serialiser skip work that
 * cannot change them: JSON escaping, surrogate repair and pattern redaction.
 * Both are conservative: `false` only means "take the full path".
 */

/**
 * True when every character is printable ASCII other than `"` and `\`: the
 * string is well formed and its JSON text is `"` + s + `"`.
 * @example isPlainAscii("GET /a") // true
 * @example isPlainAscii('say "hi"') // false
 */
export function isPlainAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/**
 * isPlainAscii, and no default pattern nor `name=value`/Basic rule can match
 * (redact-patterns.ts, redact-text.ts), so redaction without custom patterns
 * returns the string unchanged. Every such match needs one of:
 * - `=` (a `name=value` pair);
 * - `I` or `J` (`PRIVATE KEY`, `AKIA`/`ASIA`, `eyJ`);
 * - `://` (URL credentials);
 * - `: ` or `:'` right after a letter, digit or `_` (a `name: value` pair), unless
 *   `colonClear(s, i)` says the name before that colon is no sensitive one;
 * - whitespace right after `r`/`R` or `c`/`C` (`Bearer …`, `Basic …`; other
 *   whitespace than the space is not plain ASCII here);
 * - 13 digits in a run of digits joined by single spaces or dashes (the card rule
 *   changes only 13–19 digits: dates, times, UUIDs and shorter ids clear).
 * @example isPlainClear("request completed") // true
 * @example isPlainClear("2026-12-01T10:00:00.000Z") // true
 * @example isPlainClear("Bearer abc123def456") // false
 */
export function isPlainClear(
  s: string,
  colonClear?: (s: string, colon: number) => boolean,
): boolean {
  let digits = 0;
  let prev = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (++digits >= 13) return false;
    } else {
      if (c < 0x20 || c > 0x7e) return false;
      switch (c) {
        case 0x22: // "
        case 0x5c: // \
        case 0x3d: // =
        case 0x49: // I
        case 0x4a: // J
          return false;
        case 0x3a: {
          // `://`, and `name: value` / `name:'value'` (redact-text-pairs.ts) after a word character
          const next = s.charCodeAt(i + 1);
          if (next === 0x2f && s.charCodeAt(i + 2) === 0x2f) return false;
          const p = prev | 0x20;
          if (
            (next === 0x20 || next === 0x27) &&
            ((p >= 0x61 && p <= 0x7a) || (prev >= 0x30 && prev <= 0x39) || prev === 0x5f) &&
            colonClear?.(s, i) !== true
          )
            return false;
          digits = 0;
          break;
        }
        case 0x20: {
          const p = prev | 0x20;
          if (p === 0x72 || p === 0x63) return false; // r R c C
          if (!(prev >= 0x30 && prev <= 0x39)) digits = 0; // "4111 1111" keeps counting
          break;
        }
        case 0x2d: // -
          if (!(prev >= 0x30 && prev <= 0x39)) digits = 0;
          break;
        default:
          digits = 0;
      }
    }
    prev = c;
  }
  return true;
}
