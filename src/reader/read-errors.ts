/**
 * Reader failures and retries: which storage errors end a load (with a message
 * that says what to do), which are retried, and how long to wait between attempts.
 */
import { classifyError, type ClassifiedError } from "../store/classify-error.js";
import { isStowageError, StowageError } from "../shared/errors.js";

const DOCTOR = "run `stowage doctor` to check credentials, bucket, region and endpoint";

/** True for errors worth another attempt (throttling, 5xx, resets, timeouts). */
export function isRetryable(c: ClassifiedError): boolean {
  return c.kind === "retryable" || c.kind === "throttled";
}

/**
 * Wait before attempt `attempt + 1` (attempt ≥ 1): exponential from `baseMs`,
 * four times longer when throttled, capped at 2 s, half of it jittered.
 */
export function backoffMs(attempt: number, baseMs: number, throttled: boolean): number {
  const d = Math.min(2_000, baseMs * (throttled ? 4 : 1) * 2 ** Math.max(0, attempt - 1));
  return Math.round(d / 2 + (Math.random() * d) / 2);
}

/**
 * Turns a permanent storage error into the StowageError a load throws, with a
 * specific message (never a secret: messages come from the provider's error code).
 */
export function storageFailure(err: unknown, what: string, where: string): StowageError {
  if (isStowageError(err, "aborted", "usage", "config", "policy")) return err;
  const c = classifyError(err);
  const base = `${what} on ${where} failed`;
  switch (c.category) {
    case "auth":
      return new StowageError(
        "storage",
        `${base}: access denied (${c.code}); the credentials are missing, wrong, expired, or not allowed to list/read this prefix`,
        { cause: err, hint: DOCTOR },
      );
    case "bucket-not-found":
      return new StowageError(
        "storage",
        `${base}: the bucket does not exist (${c.code}); check the bucket name in the source URL`,
        { cause: err, hint: DOCTOR },
      );
    case "wrong-region":
      return new StowageError(
        "storage",
        `${base}: the bucket is in another region${c.region ? ` (${c.region}); pass --region ${c.region}` : "; pass its --region"}`,
        { cause: err, hint: DOCTOR },
      );
    case "connectivity":
      return new StowageError(
        "storage",
        `${base}: cannot reach the storage endpoint (${c.code}); check --endpoint and the network`,
        { cause: err, hint: DOCTOR },
      );
    default:
      return new StowageError(
        "storage",
        `${base}: ${c.code}${c.status ? ` (HTTP ${c.status})` : ""}: ${c.message}`,
        { cause: err, hint: DOCTOR },
      );
  }
}

/** A short description of a retried error for `lastError` (code and status only). */
export function describeRetry(c: ClassifiedError, what: string): string {
  return `${what}: ${c.code}${c.status ? ` (HTTP ${c.status})` : ""}`;
}
