/**
 * UTF-8 size of a string without encoding it. Browsers cap keepalive and
 * beacon bodies at 64 KiB of bytes on the wire, while `string.length` counts
 * UTF-16 units: CJK text is 3 bytes per unit, so a body measured in units can be
 * 3× over the cap and never leave (issue 30 row 9).
 */

/** @example utf8Bytes("日本") // 6 */
export function utf8Bytes(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c < 0xdc00 && c >= 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a surrogate pair: 2 units, 4 bytes
      i++;
    } else n += 2; // 3 bytes (a lone surrogate is sent as U+FFFD, also 3)
  }
  return n;
}
