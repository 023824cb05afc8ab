/**
 * Maps SDK/filesystem failures onto Stowage's store error codes so S3Store and
 * LocalStore throw the same things: exists, precondition, not-found, aborted,
 * or storage (with the original error as `cause`, classified by classify-error).
 */
import { StowageError } from "../shared/errors.js";

interface SdkErrorLike {
  name?: string;
  Code?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

export function toStoreError(
  err: unknown,
  what: string,
  ctx: { callerAborted: boolean; timedOut: boolean; timeoutMs: number },
): StowageError {
  if (err instanceof StowageError) return err;
  if (ctx.callerAborted)
    return new StowageError("aborted", `${what}: the operation was aborted`, { cause: err });
  if (ctx.timedOut) {
    const cause = Object.assign(new Error(`no response within ${ctx.timeoutMs} ms`), {
      code: "AttemptTimeout",
    });
    return new StowageError(
      "storage",
      `${what}: no response within ${ctx.timeoutMs} ms (per-attempt timeout)`,
      { cause },
    );
  }
  const e = (err ?? {}) as SdkErrorLike;
  const status = e.$metadata?.httpStatusCode;
  const code = e.Code ?? e.name ?? e.code ?? "Error";
  if (status === 412 || status === 304 || code === "PreconditionFailed") {
    return new StowageError("precondition", `${what}: precondition failed (${status ?? code})`, {
      cause: err,
    });
  }
  if (
    code === "NoSuchKey" ||
    (status === 404 && code !== "NoSuchBucket" && code !== "NoSuchUpload")
  ) {
    return new StowageError("not-found", `${what}: no such key`, { cause: err });
  }
  if (code === "NoSuchUpload")
    return new StowageError("not-found", `${what}: no such upload`, { cause: err });
  return new StowageError(
    "storage",
    `${what}: ${code}${status ? ` (HTTP ${status})` : ""}: ${e.message ?? ""}`.trim(),
    { cause: err },
  );
}
