/**
 * Reader failures and retries: which storage errors end a load (with a message that says
 * what to do), and the reader's use of the one retry loop (store/retry-policy.ts): each
 * attempt charged to the grant before it is sent, each retry counted and noted.
 */
import { READER_RETRY } from "../config/retry-defaults.js";
import { classifyError, describeClass, type ClassifiedError } from "../store/classify-error.js";
import {
  attemptWithRetry,
  type RetryOutcome,
  type RetryPolicyOptions,
} from "../store/retry-policy.js";
import { isStowageError, StowageError } from "../shared/errors.js";

const DOCTOR =
  "run `stowage doctor --source` with the same URL and flags to check credentials, bucket, region, endpoint and the reader's capabilities";

/** The reader's use of the one retry policy: attempts are bounded by the grant, not here. */
export function readerRetryPolicy(baseMs: number): RetryPolicyOptions {
  return { ...READER_RETRY, initialBackoffMs: baseMs };
}

/** What a request of a grant needs to be retried under it. */
export interface GrantedRetry<S> {
  /** The source's `retryBackoffMs`: the first wait's ceiling. */
  retryBackoffMs: number;
  signal: AbortSignal | undefined;
  stats: { retries: number };
  /**
   * Charges attempt `attempt` to the grant before it is sent; returns what to answer
   * instead when the grant cannot pay (then nothing is sent).
   */
  charge(attempt: number): S | undefined;
  /** A retried failure, before the wait. */
  onRetry(error: ClassifiedError): void;
}

/**
 * Runs `call` through the one retry loop under a grant: every attempt is charged before it
 * is sent (retries too, and counted in `stats.retries`); waits are the policy's (full jitter,
 * longer when throttled, the server's Retry-After honoured) and end with `signal`.
 * @example const out = await attemptUnderGrant(() => store.list(o), { ...env, charge: () => (grant.take("listAttempts") ? undefined : null), onRetry });
 */
export function attemptUnderGrant<T, S>(
  call: (attempt: number) => Promise<T>,
  g: GrantedRetry<S>,
): Promise<RetryOutcome<T | Exclude<S, undefined>>> {
  return attemptWithRetry(call, readerRetryPolicy(g.retryBackoffMs), {
    signal: g.signal,
    beforeAttempt: (attempt) => {
      const instead = g.charge(attempt);
      if (instead === undefined && attempt > 1) g.stats.retries++;
      return instead;
    },
    onRetry: (error) => g.onRetry(error),
  });
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
      // The SDK found no credentials at all (as opposed to credentials that were refused).
      if (c.code === "CredentialsProviderError")
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
      return new StowageError("storage", `${base}: ${describeClass(c)}: ${c.message}`, {
        cause: err,
        hint: DOCTOR,
      });
  }
}

/** A short description of a retried error for `lastError` (code and status only). */
export function describeRetry(c: ClassifiedError, what: string): string {
  return `${what}: ${describeClass(c)}`;
}
