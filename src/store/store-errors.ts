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
  ctx: { callerAborted: boolean; timedOut: boolean; timeoutMs: number; bucket?: string },
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
  const missing = regionMissingError(err);
  if (missing) return missing;
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
  const hint = ctx.bucket ? virtualHostDnsHint(err, ctx.bucket) : undefined;
  return new StowageError(
    "storage",
    `${what}: ${code}${status ? ` (HTTP ${status})` : ""}: ${e.message ?? ""}`.trim(),
    { cause: err, hint },
  );
}

/**
 * For a DNS failure on `<bucket>.<host>` (virtual-hosted addressing against a
 * server without wildcard DNS), the hint that names the fix.
 * @example virtualHostDnsHint({ code: "ENOTFOUND", hostname: "logs.localhost" }, "logs") // "the bucket was addressed as ..."
 */
export function virtualHostDnsHint(err: unknown, bucket: string): string | undefined {
  for (
    let e = err as { code?: unknown; hostname?: unknown; cause?: unknown } | undefined, i = 0;
    e && typeof e === "object" && i < 5;
    e = e.cause as typeof e, i++
  ) {
    if (e.code !== "ENOTFOUND" && e.code !== "EAI_AGAIN") continue;
    const host = typeof e.hostname === "string" ? e.hostname : "";
    if (!host.startsWith(`${bucket}.`)) return undefined;
    return (
      `the bucket was addressed as ${host} (virtual-hosted style) and that name does not resolve: ` +
      `most self-hosted servers need path-style addressing; set force_path_style: true ` +
      `(forcePathStyle in TypeScript) or provider: minio`
    );
  }
  return undefined;
}

/**
 * The SDK's "Region is missing" (no region in the config, AWS_REGION or the
 * profile) as the config error it is, saying what to set.
 */
export function regionMissingError(err: unknown): StowageError | undefined {
  const message = (err as { message?: unknown } | null)?.message;
  if (typeof message !== "string" || !/^Region is missing/.test(message)) return undefined;
  return new StowageError(
    "config",
    "no AWS region is configured: set `region` in the destination (e.g. region: eu-west-1), or AWS_REGION in the environment",
    {
      cause: err,
      hint: "the region is the one the bucket was created in (aws s3api get-bucket-location)",
    },
  );
}
