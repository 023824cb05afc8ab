/**
 * Where a failed store call becomes the error the store throws, classified once: S3Store
 * and LocalStore throw the same things — exists, precondition, not-found, aborted, config,
 * or storage — each a `StoreError` carrying its class (classify-error.ts), with the
 * original error as `cause`. Nothing here reads the SDK's error shape: the class does.
 */
import { StowageError } from "../shared/errors.js";
import {
  classifyError,
  describeClass,
  StoreError,
  type ClassifiedError,
} from "./classify-error.js";

/**
 * The StoreError for a failed SDK call `what` ("PUT key", "LIST prefix", …).
 * @example throw toStoreError(err, `GET ${key}`, { callerAborted: signal?.aborted ?? false, timedOut: false, timeoutMs: 10_000 });
 */
export function toStoreError(
  err: unknown,
  what: string,
  ctx: { callerAborted: boolean; timedOut: boolean; timeoutMs: number; bucket?: string },
): StoreError {
  if (err instanceof StoreError) return err;
  if (err instanceof StowageError)
    return new StoreError(err.code, err.message, { cause: err, hint: err.hint });
  if (ctx.callerAborted)
    return new StoreError("aborted", `${what}: the operation was aborted`, { cause: err });
  if (ctx.timedOut) {
    const cause = Object.assign(new Error(`no response within ${ctx.timeoutMs} ms`), {
      code: "AttemptTimeout",
    });
    return new StoreError(
      "storage",
      `${what}: no response within ${ctx.timeoutMs} ms (per-attempt timeout)`,
      { cause },
    );
  }
  const missing = regionMissingError(err);
  if (missing) return missing;
  const c = classifyError(err);
  if (c.kind === "exists")
    return new StoreError("precondition", `${what}: precondition failed (${c.status ?? c.code})`, {
      cause: err,
    });
  if (c.code === "NoSuchUpload")
    return new StoreError("not-found", `${what}: no such upload`, { cause: err });
  if (c.category === "not-found" || (c.status === 404 && c.category !== "bucket-not-found"))
    return new StoreError("not-found", `${what}: no such key`, { cause: err });
  return storageError(err, `${what}: ${describeClass(c)}: ${c.message}`.trim(), {
    classified: c,
    hint: ctx.bucket ? virtualHostDnsHint(err, ctx.bucket) : undefined,
  });
}

/**
 * A failure the store passes on as "storage" with the class of `err` (bucket-level calls,
 * whose answers have no key to be missing).
 * @example throw storageError(err, `HeadBucket ${bucket}`);
 */
export function storageError(
  err: unknown,
  message: string,
  options: { classified?: ClassifiedError; hint?: string | undefined } = {},
): StoreError {
  return new StoreError("storage", message, {
    cause: err,
    classified: options.classified ?? classifyError(err),
    hint: options.hint,
  });
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
export function regionMissingError(err: unknown): StoreError | undefined {
  const message = (err as { message?: unknown } | null)?.message;
  if (typeof message !== "string" || !/^Region is missing/.test(message)) return undefined;
  return new StoreError(
    "config",
    "no AWS region is configured: set `region` in the destination (e.g. region: eu-west-1), or AWS_REGION in the environment",
    {
      cause: err,
      hint: "the region is the one the bucket was created in (aws s3api get-bucket-location)",
    },
  );
}
