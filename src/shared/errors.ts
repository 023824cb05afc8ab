/**
 * The one typed error of Stowage: a stable `code`, a message that says what is
 * wrong and how to fix it, an optional `hint`, and the underlying `cause`.
 */

/** Stable error codes; the CLI maps `config`/`usage` to exit code 2. */
export type StowageErrorCode =
  | "config"
  | "usage"
  | "policy"
  | "credentials"
  | "storage"
  | "exists"
  | "precondition"
  | "not-found"
  | "aborted"
  | "format"
  | "integrity"
  | "source"
  | "spool"
  | "rejected"
  | "internal";

/**
 * @example
 * throw new StowageError("config", "unknown key `bucekt` in s3; did you mean `bucket`?");
 */
export class StowageError extends Error {
  readonly code: StowageErrorCode;
  readonly hint: string | undefined;

  constructor(
    code: StowageErrorCode,
    message: string,
    options: { cause?: unknown; hint?: string | undefined } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "StowageError";
    this.code = code;
    this.hint = options.hint;
  }
}

/** True when `err` is a StowageError, optionally with one of the given codes. */
export function isStowageError(err: unknown, ...codes: StowageErrorCode[]): err is StowageError {
  return err instanceof StowageError && (codes.length === 0 || codes.includes(err.code));
}
