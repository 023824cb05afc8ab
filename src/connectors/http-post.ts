/**
 * One HTTP POST attempt of a connector (node:http / node:https, no retry here: the
 * caller retries through store/retry-policy). A non-2xx answer, a transport failure, the
 * per-attempt timeout and an abort each become an error that store/classify-error
 * classifies like a storage answer (429 throttled; 500/502/503/504, resets and timeouts
 * retryable; 401/403 auth; other 4xx permanent). Messages never hold a header value:
 * every secret is scrubbed from them, the receiver's answer included.
 */
import { request as httpRequest, type Agent as HttpAgent, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { StowageError } from "../shared/errors.js";

/** The most of a response body kept (for the partial-success count and error messages). */
export const MAX_RESPONSE_CHARS = 16 * 1024;
/** The most of a receiver's error answer quoted in a message. */
const QUOTED_CHARS = 300;

export interface PostOptions {
  url: URL;
  headers: Readonly<Record<string, string>>;
  body: string;
  timeoutMs: number;
  signal: AbortSignal;
  agent: HttpAgent;
  /** Values that must never appear in a message (the header values). */
  secrets: readonly string[];
}

export interface PostAnswer {
  status: number;
  /** At most MAX_RESPONSE_CHARS of the body. */
  text: string;
}

/** An error as classify-error reads it: `code`, `$metadata.httpStatusCode`, `$response.headers`. */
export interface HttpAnswerError extends Error {
  code: string;
  $metadata: { httpStatusCode: number };
  $response: { headers: Record<string, string> };
}

/** The header values a message must never show: every non-empty one. */
export function secretValues(headers: Readonly<Record<string, string>>): string[] {
  return Object.values(headers).filter((v) => v.length > 0);
}

/** Replaces every secret in `text` (the header values, which a misbehaving server might echo). */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join("[REDACTED]");
  return out;
}

function codeForStatus(status: number): string {
  if (status === 429) return "TooManyRequests";
  if (status === 401 || status === 403) return "AccessDenied";
  if (status === 404) return "NotFound";
  if (status === 500) return "InternalError";
  if (status === 503) return "ServiceUnavailable";
  return `Http${status}`;
}

function answerError(url: URL, res: IncomingMessage, text: string, secrets: readonly string[]) {
  const status = res.statusCode ?? 0;
  const quoted = text.trim().slice(0, QUOTED_CHARS);
  const message = scrub(
    `${url.protocol}//${url.host}${url.pathname} answered ${status} ${res.statusMessage ?? ""}`.trim() +
      (quoted ? `: ${quoted}` : ""),
    secrets,
  );
  const headers: Record<string, string> = {};
  const retryAfter = res.headers["retry-after"];
  if (typeof retryAfter === "string") headers["retry-after"] = retryAfter;
  const code = codeForStatus(status);
  return Object.assign(new Error(message), {
    name: code,
    code,
    $metadata: { httpStatusCode: status },
    $response: { headers },
  }) as HttpAnswerError;
}

/**
 * POSTs `body` as JSON once. Resolves with a 2xx answer; rejects otherwise.
 * @example await postJson({ url, headers, body, timeoutMs: 5000, signal, agent, secrets: [] })
 */
export function postJson(options: PostOptions): Promise<PostAnswer> {
  const { url, signal, secrets } = options;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new StowageError("aborted", "the connector was closed"));
    const request = url.protocol === "https:" ? httpsRequest : httpRequest;
    let settled = false;
    const finish = (err: Error | null, answer?: PostAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      if (err) reject(err);
      else resolve(answer!);
    };
    const req = request(url, {
      method: "POST",
      agent: options.agent,
      headers: {
        ...options.headers,
        "content-type": "application/json",
        "content-length": Buffer.byteLength(options.body),
      },
    });
    // A ref'd timer: an attempt in flight is pending work (shared/abort.ts lifetime rule).
    const timer = setTimeout(() => {
      const err = Object.assign(
        new Error(`no answer from ${url.host} within ${options.timeoutMs} ms`),
        { code: "AttemptTimeout" },
      );
      finish(err);
      req.destroy(err);
    }, options.timeoutMs);
    const onAbort = () => {
      finish(new StowageError("aborted", "the connector was closed"));
      req.destroy();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    req.on("error", (err) => finish(Object.assign(err, { message: scrub(err.message, secrets) })));
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (text.length < MAX_RESPONSE_CHARS)
          text += chunk.slice(0, MAX_RESPONSE_CHARS - text.length);
      });
      res.on("error", (err) => finish(err));
      res.on("end", () => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) finish(null, { status, text });
        else finish(answerError(url, res, text, secrets));
      });
    });
    req.end(options.body);
  });
}
