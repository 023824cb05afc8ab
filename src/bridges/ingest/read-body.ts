/**
 * Reading an ingestion body, Node and Fetch forms alike: within `maxBytes` and a
 * deadline (issue 31 §1: 300 slow ~1 MiB uploads were held for Node's 300 s request
 * timeout), or taken from `req.body` when a framework's body parser already consumed the
 * stream (Express's `express.json()`: the handler used to wait for it forever).
 */
import type { IncomingMessage } from "node:http";

/** What reading a body gave. */
export type BodyRead =
  | { text: string }
  /** Parsed by a framework's body parser (`req.body`); the ingestion limits still apply. */
  | { value: unknown }
  | { refused: "tooLarge" | "timeout" | "consumed" | "failed"; detail?: string };

/**
 * @example const body = await readNodeBody(req, 1 << 20, 10_000);
 */
export function readNodeBody(
  req: IncomingMessage,
  maxBytes: number,
  timeoutMs: number,
): Promise<BodyRead> {
  if (req.readableEnded) return Promise.resolve(alreadyRead(req, maxBytes));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (r: BodyRead) => {
      clearTimeout(timer);
      req.off("data", onData).off("end", onEnd).off("error", onError);
      // What is left is read and dropped; the answer closes the connection.
      if (!("text" in r)) req.resume();
      resolve(r);
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) finish({ refused: "tooLarge" });
      else chunks.push(c);
    };
    // Bounded: `size` is checked against maxBytes on every chunk above.
    // eslint-disable-next-line no-restricted-syntax
    const onEnd = () => finish({ text: Buffer.concat(chunks, size).toString("utf8") });
    const onError = (err: Error) => finish({ refused: "failed", detail: err.message });
    const timer = setTimeout(() => finish({ refused: "timeout" }), timeoutMs);
    req.on("data", onData).on("end", onEnd).on("error", onError);
  });
}

/** The stream was consumed before the handler ran: what the body parser left, if anything. */
function alreadyRead(req: IncomingMessage, maxBytes: number): BodyRead {
  const body = (req as { body?: unknown }).body;
  if (body === undefined) return { refused: "consumed" };
  if (typeof body === "string")
    return Buffer.byteLength(body) > maxBytes ? { refused: "tooLarge" } : { text: body };
  if (Buffer.isBuffer(body))
    return body.length > maxBytes ? { refused: "tooLarge" } : { text: body.toString("utf8") };
  return { value: body };
}

/**
 * @example const body = await readFetchBody(request, 1 << 20, 10_000);
 */
export async function readFetchBody(
  request: Request,
  maxBytes: number,
  timeoutMs: number,
): Promise<BodyRead> {
  if (request.bodyUsed) return { refused: "consumed" };
  if (!request.body) return { text: "" };
  const reader = request.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), timeoutMs)));
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const step = await Promise.race([reader.read(), late]);
      if (step === "late" || (!step.done && size + step.value.byteLength > maxBytes)) {
        reader.cancel().catch(() => undefined);
        return { refused: step === "late" ? "timeout" : "tooLarge" };
      }
      if (step.done) break;
      size += step.value.byteLength;
      parts.push(step.value);
    }
  } catch (err) {
    return { refused: "failed", detail: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.byteLength;
  }
  return { text: new TextDecoder().decode(all) };
}
