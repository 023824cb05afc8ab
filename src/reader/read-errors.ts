/**
 * Reader failures and retries: which storage errors end a load (with a message
 * that says what to do); retries wait through the one retry policy (store/retry-policy.ts).
 */
import { classifyError, type ClassifiedError } from "../store/classify-error.js";
import { isRetryable, retryDelayMs, type RetryPolicyOptions } from "../store/retry-policy.js";
import { sleep } from "../shared/abort.js";
import { isStowageError, StowageError } from "../shared/errors.js";

const DOCTOR =
  "run `stowage doctor --source` with the same URL and flags to check credentials, bucket, region, endpoint and the reader's capabilities";

export { isRetryable };

/** The reader's use of the one retry policy: attempts are bounded by the grant, not here. */
export function readerRetryPolicy(baseMs: number): RetryPolicyOptions {
  return {
    maxAttempts: Number.POSITIVE_INFINITY,
    initialBackoffMs: baseMs,
    maxBackoffMs: 2_000,
    throttleFactor: 4,
  };
}

/**
 * Waits before the attempt after `attempt` failed with `c` (store/retry-policy.ts:
 * full jitter, longer when throttled, the server's Retry-After honoured), aborting with `signal`.
 * @example await waitToRetry(classified, attempt, ctx.retryBackoffMs, ctx.signal);
 */
export function waitToRetry(
  c: ClassifiedError,
  attempt: number,
  baseMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  return sleep(retryDelayMs(readerRetryPolicy(baseMs), attempt, c), signal);
}

/**
 * Turns a permanent storage error into the StowageError a load throws, with a
 * specific message (never a secret: messages come from the provider's error code).
 */
export function storageFailure(err: unknown, what: string, where: string): StowageError {
  if (isStowageError(err, "aborted", "usage", "config", "policy", "credentials")) return err;
  const c = classifyError(err);
  const base = `${what} on ${where} failed`;
  switch (c.category) {
    case "auth":
      if (noCredentials(err, c.code))
        return new StowageError(
          "credentials",
          `${base}: no credentials: none were found in the environment (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY), a profile (--profile or AWS_PROFILE), the shared credentials file, or an instance/container role`,
          {
            cause: err,
            hint: "export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, pass --profile NAME, or name the variables with --access-key-env/--secret-key-env (docs/credentials.md)",
          },
        );
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

/** True when the SDK found no credentials at all (as opposed to credentials that were refused). */
function noCredentials(err: unknown, code: string): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return code === "CredentialsProviderError" || name === "CredentialsProviderError";
}
