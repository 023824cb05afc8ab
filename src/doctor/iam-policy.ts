/**
 * Least-privilege IAM policies for a destination (`stowage policy`): exactly the
 * actions Stowage performs, on exactly the keys it touches. HeadObject has no
 * IAM action of its own: S3 authorises it with s3:GetObject.
 *
 * Exports: a `{date}` in the prefix becomes `*` (a policy made today
 * must work tomorrow); the export's state beside the dated folders — the cursor
 * `_cursor-<export>.json`, the keyset state and the in-progress markers — is
 * named explicitly; and the writer may delete under its own prefix, because a
 * failed run's objects are removed by the run itself or by the next one.
 */
import type { ResolvedS3Destination } from "../config/destination.js";
import { StowageError } from "../shared/errors.js";
import { retentionStatements } from "./iam-retention.js";
import type { DoctorTarget } from "./types.js";

export type PolicyRole = "writer" | "reader";

export interface PolicyStatement {
  Sid: string;
  Effect: "Allow";
  Action: string[];
  Resource: string[];
  Condition?: Record<string, Record<string, string[]>>;
}

export interface IamPolicy {
  Version: "2012-10-17";
  Statement: PolicyStatement[];
}

/** The policy plus one sentence per statement saying why it is there. */
export interface ExplainedPolicy {
  policy: IamPolicy;
  explanations: { sid: string; why: string }[];
}

const bucketArn = (d: ResolvedS3Destination) => `arn:aws:s3:::${d.bucket}`;
const under = (d: ResolvedS3Destination, sub: string) =>
  `${bucketArn(d)}/${d.prefix ? `${d.prefix}/` : ""}${sub}`;
const prefixed = (d: ResolvedS3Destination, sub: string) =>
  `${d.prefix ? `${d.prefix}/` : ""}${sub}`;

type Explained = { st: PolicyStatement; why: string };

/** With `{date}` in an export's prefix: the prefix with `*` for the date… */
function undated(d: ResolvedS3Destination, template?: string): ResolvedS3Destination {
  if (!template?.includes("{date}")) return d;
  const prefix = template
    .replaceAll("{date}", "*")
    .split("/")
    .filter((p) => p !== "")
    .join("/");
  return { ...d, prefix };
}

/** …and the export's keys beside the dated folders (cursor, keyset state, in-progress markers). */
function exportState(name: string | undefined, template?: string): string[] {
  if (!name || !template?.includes("{date}")) return []; // without {date} they are under the prefix
  const head = template
    .slice(0, template.indexOf("{date}"))
    .split("/")
    .filter((p) => p !== "")
    .join("/");
  const at = (k: string) => (head ? `${head}/${k}` : k);
  return [at(`_cursor-${name}.json`), at(`_keyset-${name}.json`), at(`_inprogress-${name}-*`)];
}

function statementsFor(
  target: DoctorTarget & { destination: ResolvedS3Destination },
  role: PolicyRole,
  n: string,
): Explained[] {
  const kind = target.kind ?? "logs";
  const template = kind === "export" ? target.prefixTemplate : undefined;
  const d = undated(target.destination, template);
  const label = target.label;
  // Logs live under <prefix>/v1/; doctor's probes under <prefix>/.stowage-doctor/; exports own the whole prefix.
  const data = kind === "logs" ? ["v1/*"] : ["*"];
  const state = kind === "export" ? exportState(label, template) : [];
  const probes = [".stowage-doctor/*"];
  // The logger never lists when writing; only doctor's probe does. Exports list their own prefix.
  const listPrefixes = kind === "logs" && role === "writer" ? probes : data;
  const writable = kind === "logs" ? [...data, ...probes] : data;
  const writableArns = [
    ...writable.map((p) => under(d, p)),
    ...state.map((k) => `${bucketArn(d)}/${k}`),
  ];
  const list: PolicyStatement = {
    Sid: `StowageList${n}`,
    Effect: "Allow",
    Action: ["s3:ListBucket"],
    Resource: [bucketArn(d)],
    ...(kind === "logs" || d.prefix
      ? {
          Condition: {
            StringLike: {
              "s3:prefix": [
                ...listPrefixes.map((p) => prefixed(d, p)),
                ...(role === "writer" ? state.filter((k) => k.endsWith("*")) : []),
              ],
            },
          },
        }
      : {}),
  };
  if (role === "reader") {
    return [
      {
        st: list,
        why: `list only under ${prefixed(d, data[0]!)} (ListObjectsV2 of the hour folders / export parts); the condition keeps the rest of the bucket unlisted.`,
      },
      {
        st: {
          Sid: `StowageRead${n}`,
          Effect: "Allow",
          Action: ["s3:GetObject"],
          Resource: data.map((p) => under(d, p)),
        },
        why: "download objects (GetObject with If-Match; HeadObject is authorised by the same action).",
      },
    ];
  }
  const out: Explained[] = [
    {
      st: {
        Sid: `StowageWrite${n}`,
        Effect: "Allow",
        Action: ["s3:PutObject"],
        Resource: writableArns,
      },
      why: "create objects (PutObject with If-None-Match: *; multipart uploads are authorised by the same action) and doctor's write probe.",
    },
    {
      st: {
        Sid: `StowageConfirm${n}`,
        Effect: "Allow",
        Action: ["s3:GetObject"],
        Resource: writableArns,
      },
      why: "HeadObject after a 412 confirms an earlier attempt landed (size and record count), and doctor's read probes; S3 authorises HeadObject with s3:GetObject.",
    },
    {
      st: list,
      why:
        kind === "logs"
          ? "list only doctor's probe folder (the ordered pagination probe); writing logs never lists."
          : "list under the export's prefix only (its parts, manifest, cursor, and doctor's probe folder).",
    },
    {
      st: {
        Sid: `StowageDoctorCleanup${n}`,
        Effect: "Allow",
        Action: ["s3:DeleteObject"],
        Resource: probes.map((p) => under(d, p)),
      },
      why: "delete doctor's own probe objects; nothing else is ever deleted by the logger.",
    },
  ];
  if (kind === "export") {
    out.push(
      {
        st: {
          Sid: `StowageExportCleanup${n}`,
          Effect: "Allow",
          Action: ["s3:DeleteObject"],
          Resource: writableArns,
        },
        why: "an export run removes a stale _SUCCESS before writing new parts, deletes the objects of a failed run (its own, or an earlier one's listed in an in-progress marker) and its marker (docs/exports.md).",
      },
      {
        st: {
          Sid: `StowageExportAbort${n}`,
          Effect: "Allow",
          Action: ["s3:AbortMultipartUpload"],
          Resource: [under(d, "*")],
        },
        why: "a failed export aborts its open multipart uploads.",
      },
      {
        st: {
          Sid: `StowageExportUploads${n}`,
          Effect: "Allow",
          Action: ["s3:ListBucketMultipartUploads"],
          Resource: [bucketArn(d)],
        },
        why: "find this export's unfinished multipart uploads to abort them (this action takes no prefix condition).",
      },
    );
  }
  return out;
}

/**
 * Builds the policy for every S3 target (local ones need none).
 * @example buildIamPolicy([{ destination: dest, kind: "logs" }], "reader").policy.Statement.length // 2
 */
export function buildIamPolicy(
  targets: readonly DoctorTarget[],
  role: PolicyRole,
): ExplainedPolicy {
  const s3 = targets.filter(
    (t): t is DoctorTarget & { destination: ResolvedS3Destination } => t.destination.type === "s3",
  );
  if (s3.length === 0) {
    throw new StowageError(
      "config",
      "no S3 destination is configured (a local-directory store needs no IAM policy)",
      {
        hint: "pass the config file that names the bucket: stowage policy --config FILE --role writer",
      },
    );
  }
  const pairs = s3.flatMap((t, i) => {
    const n = s3.length > 1 ? String(i + 1) : "";
    return [
      ...statementsFor(t, role, n),
      ...retentionStatements(t.destination, t.kind ?? "logs", role, n),
    ];
  });
  return {
    policy: { Version: "2012-10-17", Statement: pairs.map((p) => p.st) },
    explanations: pairs.map((p) => ({ sid: p.st.Sid, why: p.why })),
  };
}
