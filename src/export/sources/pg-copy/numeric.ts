/**
 * PostgreSQL `numeric` from its binary form (`numeric_send`: ndigits, weight, sign,
 * dscale, base-10000 digits) to the text `numeric_out` prints, written into a buffer
 * (CSV) or made as a string (values).
 */
import { textOf, writeDigits, writeInt } from "../../../encoders/values.js";
import { ascii, int16, uint16 } from "./fields.js";

/** Room `writeNumeric` needs at most for the field at `p`. */
export function numericRoom(b: Buffer, p: number): number {
  return 4 * Math.max(int16(b, p + 2) + 1, 1) + Math.max(int16(b, p + 6), 0) + 12;
}

/**
 * Writes `numeric_send` (ndigits, weight, sign, dscale, base-10000 digits) as the text
 * `numeric_out` prints: NaN/±Infinity by name, otherwise exactly `dscale` fraction digits.
 */
export function writeNumeric(b: Buffer, p: number, out: Buffer, at: number): number {
  const ndigits = int16(b, p);
  const weight = int16(b, p + 2);
  const sign = uint16(b, p + 4);
  const dscale = int16(b, p + 6);
  if (sign === 0xc000 || sign === 0xd000 || sign === 0xf000)
    return ascii(sign === 0xc000 ? "NaN" : sign === 0xd000 ? "Infinity" : "-Infinity", out, at);
  const d0 = p + 8; // base-10000 digit k is at d0 + 2k when 0 ≤ k < ndigits, else 0
  if (sign === 0x4000) out[at++] = 45;
  if (weight < 0) out[at++] = 48;
  else {
    at = writeInt(out, at, ndigits > 0 ? uint16(b, d0) : 0);
    for (let k = 1; k <= weight; k++)
      at = writeDigits(out, at, k < ndigits ? uint16(b, d0 + 2 * k) : 0, 4);
  }
  if (dscale > 0) {
    out[at++] = 46;
    for (let k = weight + 1, left = dscale; left > 0; k++, left -= 4) {
      const d = k >= 0 && k < ndigits ? uint16(b, d0 + 2 * k) : 0;
      // The last group may be cut: its leading `left` digits.
      at =
        left >= 4
          ? writeDigits(out, at, d, 4)
          : writeDigits(out, at, Math.floor(d / 10 ** (4 - left)), left);
    }
  }
  return at;
}

/** `PAD[n]`: n zeros, the left padding of a fraction group's digits. */
const PAD = ["", "0", "00", "000"];

/**
 * `writeNumeric`'s text as a string, made in JavaScript for numbers whose integer part
 * fits in three base-10000 digits (below 10^12): no buffer, no native call per value.
 * Larger integer parts and NaN/±Infinity take `writeNumeric`.
 */
export function numericText(b: Buffer, p: number): string {
  const ndigits = int16(b, p);
  const weight = int16(b, p + 2);
  const sign = uint16(b, p + 4);
  const dscale = int16(b, p + 6);
  if (weight > 2 || (sign !== 0 && sign !== 0x4000))
    return textOf(numericRoom(b, p), (o, at) => writeNumeric(b, p, o, at));
  const d0 = p + 8;
  let int = 0;
  for (let k = 0; k <= weight; k++) int = int * 10000 + (k < ndigits ? uint16(b, d0 + 2 * k) : 0);
  let text = sign === 0x4000 ? "-" + int : "" + int;
  if (dscale > 0) {
    text += ".";
    for (let k = weight + 1, left = dscale; left > 0; k++, left -= 4) {
      const d = k >= 0 && k < ndigits ? uint16(b, d0 + 2 * k) : 0;
      const width = left >= 4 ? 4 : left;
      const v = width === 4 ? d : Math.floor(d / 10 ** (4 - width));
      const digits = "" + v;
      text += PAD[width - digits.length]! + digits;
    }
  }
  return text;
}
