/**
 * The one place storage errors are classified (DESIGN.md "Errors"): retryable,
 * throttled, exists (412/304 on a conditional create), or permanent with a
 * category that doctor, FlushResult, the reader and Studio report.
 *
 * The store classifies a failure once, where it throws it (store-errors.ts): its error, a
 * `StoreError`, carries the class as Hono's HTTPException carries its response, and every
 * caller reads it with `classifyError(err)` (or `err.classified`). This is the only module
 * that reads the shape of an SDK error (`$metadata`, `$response`, `$fault`; lint rule
 * `stowage/sdk-error-shape`); errors from elsewhere (a connector's HTTP answer, a socket
 * error, an abort) are classified by the same rules when a caller asks.
 */
import { isStowageError, StowageError, type StowageErrorCode } from "../shared/errors.js";

export type ErrorKind = "retryable" | "throttled" | "exists" | "permanent";
export type ErrorCategory =
  | "auth"
  | "bucket-not-found"
  | "wrong-region"
  | "connectivity"
  | "capability"
  | "precondition"
  | "not-found"
  | "aborted"
  | "config"
  | "other";

export interface ClassifiedError {
  kind: ErrorKind;
  category: ErrorCategory;
  code: string;
  status?: number;
  message: string;
  /** For wrong-region errors: the region the provider named, when it did. */
  region?: string;
  /** A `Retry-After` the server sent with a throttle or 5xx answer, in ms (seconds or HTTP date). */
  retryAfterMs?: number;
}

const AUTH_CODES = new Set([
  "AccessDenied",
  "InvalidAccessKeyId",
  "SignatureDoesNotMatch",
  "ExpiredToken",
  "InvalidToken",
  "TokenRefreshRequired",
  "AllAccessDisabled",
  "CredentialsProviderError",
]);
const THROTTLE_CODES = new Set([
  "SlowDown",
  "Throttling",
  "ThrottlingException",
  "TooManyRequests",
  "RequestLimitExceeded",
]);
/** No answer from the server: transport failures and our per-attempt timeout. */
const CONNECTIVITY_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ETIMEDOUT",
  "EPIPE",
  "EAI_AGAIN",
  "ENOTFOUND",
  "ECONNABORTED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "NetworkingError",
  "TimeoutError",
  "AttemptTimeout",
]);
/**
 * The server received other bytes than were sent (a payload hash or checksum that does not
 * match, a body cut short): the request's bytes were damaged in flight, not refused. The
 * same bytes sent again succeed, so these 400s are retried, never latched (issue 30 row 7).
 */
const IN_FLIGHT_DAMAGE_CODES = [
  "XAmzContentSHA256Mismatch",
  "XAmzContentChecksumMismatch",
  "BadDigest",
  "IncompleteBody",
];
/** Answers worth another attempt with the same bytes (SPEC §3.5), plus every connectivity failure. */
const RETRYABLE_CODES = new Set([
  ...IN_FLIGHT_DAMAGE_CODES,
  "RequestTimeout",
  "RequestTimeoutException",
  "InternalError",
  "ServiceUnavailable",
  "ConditionalRequestConflict",
  ...CONNECTIVITY_CODES,
]);

interface ErrorLike {
  name?: string;
  code?: string;
  Code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  $response?: { headers?: Record<string, string> };
  $fault?: string;
  cause?: unknown;
}

/**
 * An error that carries its class: classifyError() returns `classified` as is.
 * For failures decided above the store (e.g. an existing object with other content).
 * @example throw new ClassifiedFailure({ kind: "permanent", category: "precondition", code: "X", message: "…" });
 */
export class ClassifiedFailure extends Error {
  constructor(
    readonly classified: ClassifiedError,
    options?: { cause?: unknown },
  ) {
    super(classified.message, options);
    this.name = "ClassifiedFailure";
  }
}

/**
 * What an ObjectStore throws: a StowageError whose `code` callers branch on (exists,
 * precondition, not-found, aborted, integrity, storage, …) and whose `classified` is the
 * class decided where it was thrown. Without `classified`, the class follows from the code
 * (and, for "storage", from the `cause`).
 * @example
 * const c = classifyError(err); // err.classified for a StoreError
 * if (c.kind === "throttled") …
 */
export class StoreError extends StowageError {
  readonly classified: ClassifiedError;

  constructor(
    code: StowageErrorCode,
    message: string,
    options: { cause?: unknown; hint?: string | undefined; classified?: ClassifiedError } = {},
  ) {
    super(code, message, options);
    this.classified = options.classified ?? classifyUncarried(this);
  }
}

function codeOf(e: ErrorLike): string {
  return String(e.Code ?? (typeof e.code === "string" ? e.code : undefined) ?? e.name ?? "Error");
}

/**
 * The class of any error an ObjectStore call (or a retried call) threw: the one a
 * StoreError or ClassifiedFailure carries, else decided by the same rules.
 * @example classifyError(err).kind === "exists" // PutObject If-None-Match:* hit an existing key
 */
export function classifyError(err: unknown): ClassifiedError {
  if (err instanceof ClassifiedFailure || err instanceof StoreError) return err.classified;
  return classifyUncarried(err);
}

/**
 * "SlowDown (HTTP 503)": a class's code and status for messages (never the provider's message).
 * @example describeClass({ code: "AccessDenied", status: 403 }) // "AccessDenied (HTTP 403)"
 */
export function describeClass(c: Pick<ClassifiedError, "code" | "status">): string {
  return `${c.code}${c.status ? ` (HTTP ${c.status})` : ""}`;
}

function classifyUncarried(err: unknown): ClassifiedError {
  if (isStowageError(err)) {
    const byCode = classOfCode(err.code, err.message);
    if (byCode) return byCode;
    if (err.cause !== undefined && err.code === "storage") return classifyError(err.cause);
  }
  return classifyAnswer(err);
}

/** The class a StowageError code decides alone (412/404 answers already named by the store). */
function classOfCode(code: StowageErrorCode, message: string): ClassifiedError | undefined {
  switch (code) {
    case "exists":
      return {
        kind: "exists",
        category: "precondition",
        code: "PreconditionFailed",
        status: 412,
        message,
      };
    case "precondition":
      return {
        kind: "permanent",
        category: "precondition",
        code: "PreconditionFailed",
        status: 412,
        message,
      };
    case "not-found":
      return { kind: "permanent", category: "not-found", code: "NoSuchKey", status: 404, message };
    case "aborted":
      return { kind: "permanent", category: "aborted", code: "Aborted", message };
    case "config":
    case "policy":
      return { kind: "permanent", category: "config", code, message };
    case "credentials":
      return { kind: "permanent", category: "auth", code, message };
    default:
      return undefined;
  }
}

/** The rules, on an SDK error, a connector's HTTP answer error, or a transport error. */
function classifyAnswer(err: unknown): ClassifiedError {
  const e = (err ?? {}) as ErrorLike;
  const code = codeOf(e);
  const status = e.$metadata?.httpStatusCode;
  const message = String(e.message ?? code);
  const retryAfterMs = parseRetryAfter(e.$response?.headers);
  const base = {
    code,
    message,
    ...(status !== undefined ? { status } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
  const causeCode = e.cause && typeof e.cause === "object" ? codeOf(e.cause as ErrorLike) : "";

  if (status === 412 || status === 304 || code === "PreconditionFailed" || code === "NotModified")
    return { kind: "exists", category: "precondition", ...base };
  if (THROTTLE_CODES.has(code) || status === 429 || (status === 503 && code === "SlowDown"))
    return { kind: "throttled", category: "other", ...base };
  if (AUTH_CODES.has(code) || status === 403)
    return { kind: "permanent", category: "auth", ...base };
  if (code === "NoSuchBucket") return { kind: "permanent", category: "bucket-not-found", ...base };
  if (
    code === "PermanentRedirect" ||
    code === "AuthorizationHeaderMalformed" ||
    code === "IllegalLocationConstraintException" ||
    status === 301
  ) {
    const region = e.$response?.headers?.["x-amz-bucket-region"];
    return { kind: "permanent", category: "wrong-region", ...base, ...(region ? { region } : {}) };
  }
  if (code === "NotImplemented" || status === 501)
    return { kind: "permanent", category: "capability", ...base };
  if (code === "NoSuchKey" || code === "NotFound")
    return { kind: "permanent", category: "not-found", ...base };
  if (code === "AbortError" || code === "aborted")
    return { kind: "permanent", category: "aborted", ...base };
  if (RETRYABLE_CODES.has(code) || RETRYABLE_CODES.has(causeCode)) {
    const connectivity = CONNECTIVITY_CODES.has(code) || CONNECTIVITY_CODES.has(causeCode);
    return { kind: "retryable", category: connectivity ? "connectivity" : "other", ...base };
  }
  if (status === 409 && code === "ConditionalRequestConflict")
    return { kind: "retryable", category: "other", ...base };
  if (status !== undefined && status >= 500)
    return { kind: "retryable", category: "other", ...base };
  if (status === undefined && e.$fault === undefined) {
    // No HTTP response at all: a transport failure (socket hang up, reset, DNS).
    return { kind: "retryable", category: "connectivity", ...base };
  }
  return { kind: "permanent", category: "other", ...base };
}

/** `Retry-After: <seconds>` or `Retry-After: <HTTP date>` → ms from now (undefined when absent/invalid). */
export function parseRetryAfter(
  headers: Record<string, string> | undefined,
  now: number = Date.now(),
): number | undefined {
  const raw = headers?.["retry-after"] ?? headers?.["Retry-After"];
  if (raw === undefined || raw.trim() === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(raw.trim())) return Math.round(Number(raw) * 1000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
