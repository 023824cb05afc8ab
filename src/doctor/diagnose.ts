/**
 * Turns a failed probe into a doctor verdict: one of the six categories, a
 * detail (provider code and status, never a secret) and a specific hint — the
 * exact action and resource for AccessDenied, `aws s3 mb` for a missing bucket,
 * region / clock / path style for SignatureDoesNotMatch.
 */
import type { ResolvedDestination } from "../config/destination.js";
import { classifyError, describeClass, type ClassifiedError } from "../store/classify-error.js";
import { virtualHostDnsHint } from "../store/store-errors.js";
import { isStowageError } from "../shared/errors.js";
import type { CheckOutcome, DoctorCategory } from "./types.js";

/** What a probe needed, to name it in AccessDenied hints. */
export interface ProbeNeed {
  action: string;
  resource: string;
}

type Failure = Extract<CheckOutcome, { ok: false }>;

/** `arn:aws:s3:::bucket/prefix/*` style resource names. */
export function arnOf(dest: ResolvedDestination & { type: "s3" }, key?: string): string {
  return key === undefined ? `arn:aws:s3:::${dest.bucket}` : `arn:aws:s3:::${dest.bucket}/${key}`;
}

function mbCommand(dest: ResolvedDestination & { type: "s3" }): string {
  const region = dest.region && dest.region !== "auto" ? ` --region ${dest.region}` : "";
  const endpoint = dest.endpoint ? ` --endpoint-url ${new URL(dest.endpoint).origin}` : "";
  return `aws${endpoint} s3 mb s3://${dest.bucket}${endpoint ? "" : region}`;
}

function authHint(
  code: string,
  dest: ResolvedDestination & { type: "s3" },
  need: ProbeNeed,
  file?: string,
): string {
  const policy = `stowage policy${file ? ` --config ${file}` : ""} --role writer`;
  switch (code) {
    case "SignatureDoesNotMatch":
      return `the secret does not match the access key, or the request was signed differently than the server expects: is the region set${dest.region ? ` (now ${dest.region})` : ""}? Is the machine clock right (skew over 15 minutes fails)? MinIO and most self-hosted servers need path-style addressing (force_path_style: true or provider: minio).`;
    case "InvalidAccessKeyId":
      return "the provider does not know this access key id: check which source supplies it (the Credentials line) and that it belongs to this account and endpoint.";
    case "ExpiredToken":
    case "TokenRefreshRequired":
      return "the session credentials expired: refresh them (e.g. aws sso login, or new temporary keys) and run doctor again.";
    default:
      return `the credentials lack ${need.action} on ${need.resource}; grant it (the full least-privilege policy: ${policy}).`;
  }
}

/**
 * Classifies a probe failure.
 * @example diagnose(err, dest, { action: "s3:PutObject", resource: "arn:aws:s3:::logs/app/*" }).category // "auth error"
 */
export function diagnose(
  err: unknown,
  dest: ResolvedDestination,
  need: ProbeNeed,
  options: { file?: string; capabilityProbe?: boolean } = {},
): Failure {
  if (isStowageError(err, "config", "policy"))
    return {
      ok: false,
      category: "config error",
      detail: err.message,
      ...(err.hint ? { hint: err.hint } : {}),
    };
  const c = classifyError(err);
  const detail = failureDetail(c);
  const fail = (category: DoctorCategory, hint: string): Failure => ({
    ok: false,
    category,
    detail,
    hint,
  });
  if (dest.type === "local") {
    if (c.code === "EACCES" || c.code === "EPERM")
      return fail(
        "auth error",
        `the process may not ${need.action} under ${dest.path}: check the directory's owner and permissions.`,
      );
    return fail(
      "config error",
      `check that ${dest.path} is a writable directory (or can be created).`,
    );
  }
  switch (c.category) {
    case "auth":
      return fail("auth error", authHint(c.code, dest, need, options.file));
    case "bucket-not-found":
      return fail(
        "bucket not found",
        `the bucket must exist before Stowage uses it (it never creates one): ${mbCommand(dest)}`,
      );
    case "wrong-region":
      return c.region
        ? fail("wrong region", `the bucket is in ${c.region}: set region: ${c.region}`)
        : fail(
            "wrong region",
            `the request went to the wrong region${dest.region ? ` (${dest.region})` : ""}: set the bucket's region in the destination.`,
          );
    case "capability":
      return fail(
        "capability missing",
        `this provider does not support ${need.action} as Stowage needs it (SigV4, ordered paginated ListObjectsV2, GetObject If-Match, PutObject If-None-Match: *).`,
      );
    case "config":
      return fail("config error", "fix the configuration and run doctor again.");
    case "connectivity": {
      const dns = virtualHostDnsHint(isStowageError(err) ? err.cause : err, dest.bucket);
      if (dns) return fail("connectivity error", dns);
      return fail(
        "connectivity error",
        `could not reach ${dest.endpoint ? new URL(dest.endpoint).origin : "the provider"}: is the server running, and are host, port and http/https right? A proxy or firewall in the way?`,
      );
    }
    default:
      if (options.capabilityProbe && (c.status === 400 || c.status === 501)) {
        return fail(
          "capability missing",
          `the provider rejected ${need.action} with its conditional header, which Stowage requires (docs/doctor.md).`,
        );
      }
      return fail(
        "connectivity error",
        `the provider failed ${need.action}; if this persists, check the endpoint and the provider's status.`,
      );
  }
}

/**
 * A classified failure as a report's detail: code and status, then the first line of the
 * message when it says more than the code.
 * @example failureDetail(classifyError(err)) // "AccessDenied (HTTP 403): Access Denied."
 */
export function failureDetail(c: ClassifiedError): string {
  return `${describeClass(c)}${c.message && c.message !== c.code ? `: ${firstLine(c.message)}` : ""}`;
}

export function firstLine(text: string): string {
  return text.split("\n")[0]!.slice(0, 300);
}
