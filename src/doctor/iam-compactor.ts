/**
 * The compactor's least-privilege statements (`stowage policy --role compactor`,
 * docs/compaction.md): read the v1 log tree, write only under the compaction destination.
 * It never writes, deletes or replaces anything under `v1/`. Its state (claims, manifests,
 * rejects) is created with If-None-Match only: on AWS that is enforced (`s3:if-none-match`),
 * so these credentials cannot replace a committed manifest. Parts are multipart uploads,
 * which that condition would refuse, so the partition folders are writable without it; the
 * compactor deletes there only the parts of a generation it abandons.
 */
import type { ResolvedS3Destination } from "../config/destination.js";
import { resolveDest, STATE_DIR } from "../compact/layout.js";
import type { PolicyStatement } from "./iam-policy.js";

type Explained = { st: PolicyStatement; why: string };

/**
 * @example compactorStatements(dest, "", undefined, true).map((e) => e.st.Sid) // ["StowageCompactList", …]
 */
export function compactorStatements(
  d: ResolvedS3Destination,
  n: string,
  destOption: string | undefined,
  conditional: boolean,
): Explained[] {
  const bucket = `arn:aws:s3:::${d.bucket}`;
  const dest = resolveDest(d.prefix, destOption);
  const v1 = `${d.prefix ? `${d.prefix}/` : ""}v1/`;
  const state = `${bucket}/${dest}${STATE_DIR}/*`;
  const parts = `${bucket}/${dest}dt=*`;
  const out: Explained[] = [
    {
      st: {
        Sid: `StowageCompactList${n}`,
        Effect: "Allow",
        Action: ["s3:ListBucket"],
        Resource: [bucket],
        Condition: { StringLike: { "s3:prefix": [`${v1}*`, `${dest}*`] } },
      },
      why: `list the v1 day and hour folders (${v1}) and the destination (${dest || "the bucket root"}: parts and hour state); nothing else.`,
    },
    {
      st: {
        Sid: `StowageCompactRead${n}`,
        Effect: "Allow",
        Action: ["s3:GetObject"],
        Resource: [`${bucket}/${v1}*`, `${bucket}/${dest}*`],
      },
      why: "read the v1 objects of an hour (GetObject with If-Match), claims and manifests, and HEAD parts (HeadObject is authorised by GetObject).",
    },
    {
      st: {
        Sid: `StowageCompactState${n}`,
        Effect: "Allow",
        Action: ["s3:PutObject"],
        Resource: [state],
        ...(conditional ? { Condition: { Null: { "s3:if-none-match": ["false"] } } } : {}),
      },
      why: conditional
        ? "create claims, manifests and rejects objects, only with If-None-Match: * (s3:if-none-match): a committed manifest cannot be replaced."
        : "create claims, manifests and rejects objects (always with If-None-Match: *).",
    },
    {
      st: {
        Sid: `StowageCompactParts${n}`,
        Effect: "Allow",
        Action: ["s3:PutObject", "s3:AbortMultipartUpload"],
        Resource: [parts],
      },
      why: "write Parquet parts into the dt=/hour= partition folders (multipart uploads; a failed one is aborted).",
    },
    {
      st: {
        Sid: `StowageCompactAbandon${n}`,
        Effect: "Allow",
        Action: ["s3:DeleteObject"],
        Resource: [parts, `${bucket}/${dest}${STATE_DIR}/*/rejects-*`],
      },
      why: "remove the parts and rejects of a generation that is abandoned because a claimed v1 object vanished; nothing under v1/ is ever deleted.",
    },
  ];
  if (d.objectLock)
    out.push({
      st: {
        Sid: `StowageCompactRetention${n}`,
        Effect: "Allow",
        Action: ["s3:PutObjectRetention", "s3:GetObjectRetention"],
        Resource: [`${bucket}/${dest}*`],
      },
      why: `set the ${d.objectLock.mode} retention on every part, claim and manifest, as on the logs.`,
    });
  return out;
}
