/**
 * The one way to collect a whole body (an object read back, an HTTP body) into
 * memory: chunks are gathered up to a byte cap, and one byte more is an error.
 */
import { formatBytes } from "./bytes.js";
import { StowageError } from "./errors.js";

/**
 * Reads `body` into one Buffer, failing with a `format` StowageError as soon as
 * it holds more than `maxBytes` (the rest is not read). `what` names the body in
 * the message, e.g. "export manifest exports/orders/manifest.json".
 *
 * @example
 * const res = await store.get(key, { signal });
 * const text = (await readCapped(res.body, 1024 * 1024, `cursor ${key}`)).toString("utf8");
 */
export async function readCapped(
  body: AsyncIterable<unknown>,
  maxBytes: number,
  what: string,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf =
      typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size > maxBytes) {
      throw new StowageError(
        "format",
        `${what} is larger than ${formatBytes(maxBytes)}, the most Stowage reads of it into memory; ` +
          "check that the key points at the object you meant",
      );
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks, size);
}
