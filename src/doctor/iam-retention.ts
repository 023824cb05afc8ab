/**
 * The IAM actions Object Lock and lifecycle checks add to `stowage policy`
 * (docs/retention.md): setting retention on PUT, reading it back, reading the
 * bucket's lock, versioning and lifecycle configuration, and removing doctor's
 * expired lock probe by version. Nothing is added when the config asks for neither.
 */
import type { ResolvedS3Destination } from "../config/destination.js";
import type { PolicyRole, PolicyStatement } from "./iam-policy.js";

type Explained = { st: PolicyStatement; why: string };

const arn = (d: ResolvedS3Destination, path = "") =>
  `arn:aws:s3:::${d.bucket}${path ? `/${d.prefix ? `${d.prefix}/` : ""}${path}` : ""}`;

/** @example retentionStatements(dest, "logs", "writer", "") // [] without objectLock/lifecycle */
export function retentionStatements(
  d: ResolvedS3Destination,
  kind: "logs" | "export",
  role: PolicyRole,
  n: string,
): Explained[] {
  if (!d.objectLock && !d.lifecycle) return [];
  const data = kind === "logs" ? "v1/*" : "*";
  const probes = ".stowage-doctor/*";
  const out: Explained[] = [];
  if (d.objectLock && role === "writer")
    out.push(
      {
        st: {
          Sid: `StowageRetention${n}`,
          Effect: "Allow",
          Action: ["s3:PutObjectRetention", "s3:GetObjectRetention"],
          Resource: [arn(d, data), ...(kind === "logs" ? [arn(d, probes)] : [])],
        },
        why: `set the ${d.objectLock.mode} retention on every object written (PutObject with Object Lock headers needs s3:PutObjectRetention) and read it back.`,
      },
      {
        st: {
          Sid: `StowageLockProbe${n}`,
          Effect: "Allow",
          Action: ["s3:DeleteObjectVersion"],
          Resource: [arn(d, probes)],
        },
        why: "remove doctor's lock probe by version once its two-second retention has passed.",
      },
    );
  if (d.objectLock && role === "reader")
    out.push({
      st: {
        Sid: `StowageRetentionRead${n}`,
        Effect: "Allow",
        Action: ["s3:GetObjectRetention"],
        Resource: [arn(d, data)],
      },
      why: "`stowage verify` reads each object's retention.",
    });
  out.push({
    st: {
      Sid: `StowageBucketRetention${n}`,
      Effect: "Allow",
      Action: [
        "s3:GetLifecycleConfiguration",
        ...(d.objectLock ? ["s3:GetBucketObjectLockConfiguration", "s3:GetBucketVersioning"] : []),
      ],
      Resource: [arn(d)],
    },
    why: d.objectLock
      ? "doctor reads the bucket's lifecycle rules, Object Lock configuration and versioning to check them against the config."
      : "doctor reads the bucket's lifecycle rules to check them against the config.",
  });
  return out;
}
