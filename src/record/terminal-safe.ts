/**
 * Terminal-safe text: stored strings are printed to a terminal only
 * after their control characters are made visible, so a log message cannot set the
 * window title (ESC ] 0 ; … BEL), clear the screen (ESC [ 2 J), overwrite the line
 * before it (\r), or reorder what is shown (bidi overrides).
 */

/**
 * C0 controls, DEL, C1 controls (0x80–0x9F: single-byte CSI/OSC on some terminals),
 * and the Unicode bidi embedding/override/isolate marks.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_KEEP_NEWLINE =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u001b": "\\e" };

function visible(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

export interface EscapeTerminalOptions {
  /** Keep "\n" as a line break (multi-line stacks); every other control is still escaped. */
  keepNewlines?: boolean;
}

/**
 * Makes every control character of `text` visible as an escape (`\e`, `\r`, `\x07`, `\u202e`…).
 * Printable text, including non-ASCII letters and emoji, is unchanged.
 * @example escapeTerminal("done\u001b]0;pwned\u0007") // "done\\e]0;pwned\\x07"
 */
export function escapeTerminal(text: string, options: EscapeTerminalOptions = {}): string {
  const re = options.keepNewlines ? UNSAFE_KEEP_NEWLINE : UNSAFE;
  re.lastIndex = 0;
  return re.test(text) ? text.replace(re, visible) : text;
}
