/** Unique identifiers: ULIDs for batch ids and run ids (time-ordered, 26 chars, Crockford base32). */
import { randomBytes } from "node:crypto";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * A 26-character ULID: 48 bits of milliseconds + 80 bits of randomness.
 * @example ulid() // "01JD3Z6Q8W5F7M2N4P6R8T0V2X"
 */
export function ulid(nowMs: number = Date.now()): string {
  let time = "";
  let t = nowMs;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let rand = "";
  for (let i = 0; i < 16; i++) rand += CROCKFORD[bytes[i]! % 32]!;
  return time + rand;
}

/** `n` hex characters of cryptographic randomness. */
export function randomHex(n: number): string {
  return randomBytes(Math.ceil(n / 2))
    .toString("hex")
    .slice(0, n);
}
