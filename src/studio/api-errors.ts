/**
 * Turns failures of a load into specific, actionable API errors (auth error,
 * bucket not found, wrong region, …) naming the `stowage doctor` command. Raw
 * provider messages are not forwarded: they may quote request details.
 */
import { isStowageError } from "../shared/errors.js";
import { classifyError } from "../store/classify-error.js";
import type { ApiError, ApiErrorCategory } from "./api-types.js";

export interface MappedError {
  status: number;
  body: ApiError;
}

function mapped(
  status: number,
  category: ApiErrorCategory,
  message: string,
  hint?: string,
): MappedError {
  return { status, body: { error: { category, message, ...(hint ? { hint } : {}) } } };
}

/**
 * @example mapLoadError(err, { source: "s3://logs/app", doctorCommand: "stowage doctor" }).body.error.category // "auth"
 */
export function mapLoadError(
  err: unknown,
  ctx: { source: string; doctorCommand: string },
): MappedError {
  const doctor = `run \`${ctx.doctorCommand}\` to check credentials, bucket and region`;
  if (isStowageError(err, "config", "usage")) {
    return mapped(400, "bad-request", err.message, err.hint);
  }
  if (isStowageError(err, "aborted")) return mapped(499, "storage", "the load was cancelled");
  const c = classifyError(err);
  const code = /^[A-Za-z0-9_.-]{1,60}$/.test(c.code) ? c.code : "Error";
  switch (c.category) {
    case "auth":
      return mapped(
        502,
        "auth",
        `auth error: the storage provider refused the credentials for ${ctx.source} (${code})`,
        `check the credentials or profile Studio uses (and the clock for signature errors); ${doctor}`,
      );
    case "bucket-not-found":
      return mapped(
        502,
        "bucket-not-found",
        `bucket not found: the bucket of ${ctx.source} does not exist or is not visible (${code})`,
        `check the bucket name in the config or --source; ${doctor}`,
      );
    case "wrong-region":
      return mapped(
        502,
        "wrong-region",
        `wrong region: the bucket of ${ctx.source} is not in the configured region${c.region ? `; it is in ${c.region}` : ""} (${code})`,
        `set the region${c.region ? ` to ${c.region}` : ""} in the config or with --region; ${doctor}`,
      );
    case "connectivity":
      return mapped(
        502,
        "connectivity",
        `cannot reach the storage endpoint for ${ctx.source} (${code})`,
        `check the endpoint and the network; ${doctor}`,
      );
    default:
      if (isStowageError(err) && (err.code === "format" || err.code === "source")) {
        return mapped(502, "storage", `the load failed: ${err.message}`, err.hint ?? doctor);
      }
      return mapped(
        502,
        "storage",
        `the load failed with a storage error (${code}${c.status ? `, HTTP ${c.status}` : ""})`,
        doctor,
      );
  }
}

/** For programming errors: a generic message; details stay on the server. */
export function internalError(): MappedError {
  return mapped(
    500,
    "storage",
    "Studio hit an internal error",
    "see the terminal running `stowage studio`",
  );
}

export { mapped as apiError };
