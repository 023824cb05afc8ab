/**
 * Least-privilege IAM policies for a destination (`stowage policy`): exactly the
 * actions Stowage performs, on exactly the keys it touches. HeadObject has no
 * IAM action of its own: S3 authorises it with s3:GetObject.
 *
 * Logs: the writer creates each object once and never deletes one; on AWS its
 * PutObject is allowed only with If-None-Match (the `s3:if-none-match` condition), so
 * its credentials cannot replace a log object with a forged version (issue 31 §2).
 * MinIO refuses a policy naming that key, so for other endpoints it is left out and
 * said so (`notes`): there `stowage verify`, which lists versions, finds an overwrite.
 *
 * Exports: a `{date}` in the prefix becomes `*` (a policy made today
 * must work tomorrow); the export's state beside the dated folders — the cursor
 * `_cursor-<export>.json`, the keyset state and the in-progress markers — is
 * named explicitly; and the writer may delete under its own prefix, because a
 * failed run's objects are removed by the run itself or by the next one.
 *
 * Statements a second destination repeats are merged (iam-limits.ts).
 */
import type { ResolvedS3Destination } from "../config/destination.js";
import { StowageError } from "../shared/errors.js";
import { mergeStatements, policySizeWarnings } from "./iam-limits.js";
import { compactorStatements } from "./iam-compactor.js";
import { retentionStatements } from "./iam-retention.js";
import type { DoctorTarget } from "./types.js";

export type PolicyRole = "writer" | "reader" | "compactor";

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
  /** What the policy cannot say for these destinations (e.g. no s3:if-none-match on MinIO). */
  notes: string[];
  /** IAM size limits the policy is over (iam-limits.ts), each with what to do. */
  warnings: string[];
}

const bucketArn = (d: ResolvedS3Destination) => `arn:aws:s3:::${d.bucket}`;
const under = (d: ResolvedS3Destination, sub: string) =>
  `${bucketArn(d)}/${d.prefix ? `${d.prefix}/` : ""}${sub}`;
const prefixed = (d: ResolvedS3Destination, sub: string) =>
  `${d.prefix ? `${d.prefix}/` : ""}${sub}`;

type Explained = { st: PolicyStatement; why: string };

/** The `s3:if-none-match` condition AWS documents for enforcing conditional writes. */
const CONDITIONAL_CREATE = { Null: { "s3:if-none-match": ["false"] } };

/**
 * True for AWS S3 itself (no endpoint, or an amazonaws.com one): the only provider that
 * evaluates `s3:if-none-match`. MinIO refuses a policy naming it ("invalid condition key").
 */
export function enforcesConditionalWrites(d: ResolvedS3Destination): boolean {
  if (d.provider && d.provider !== "aws") return false;
  if (!d.endpoint) return true;
  try {
    const host = new URL(d.endpoint).hostname.toLowerCase();
    return host.endsWith(".amazonaws.com") || host.endsWith(".amazonaws.com.cn");
  } catch {
    return false;
  }
}

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
    // `stowage verify` lists a log range's versions (an overwrite or a delete marker shows only there).
    Action:
      kind === "logs" && role === "reader"
        ? ["s3:ListBucket", "s3:ListBucketVersions"]
        : ["s3:ListBucket"],
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
        why: `list only under ${prefixed(d, data[0]!)} (ListObjectsV2 of the hour folders / export parts${kind === "logs" ? "; ListObjectVersions for stowage verify" : ""}); the condition keeps the rest of the bucket unlisted.`,
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
  const conditional = kind === "logs" && enforcesConditionalWrites(d);
  const out: Explained[] = [
    {
      st: {
        Sid: `StowageWrite${n}`,
        Effect: "Allow",
        Action: ["s3:PutObject"],
        Resource: writableArns,
        ...(conditional ? { Condition: structuredClone(CONDITIONAL_CREATE) } : {}),
      },
      why: conditional
        ? "create objects, only with If-None-Match: * (the s3:if-none-match condition): a PUT that could replace an existing log object — a forged version — is denied; doctor's probes are conditional too."
        : "create objects (PutObject with If-None-Match: *; multipart uploads are authorised by the same action) and doctor's write probe.",
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
  ];
  // An export's own prefix holds doctor's probes too: its cleanup statement covers them.
  if (kind === "logs")
    out.push({
      st: {
        Sid: `StowageDoctorCleanup${n}`,
        Effect: "Allow",
        Action: ["s3:DeleteObject"],
        Resource: probes.map((p) => under(d, p)),
      },
      why: "delete doctor's own probe objects; nothing else is ever deleted by the logger (no delete under v1/).",
    });
  if (kind === "export") {
    out.push(
      {
        st: {
          Sid: `StowageExportCleanup${n}`,
          Effect: "Allow",
          Action: ["s3:DeleteObject"],
          Resource: writableArns,
        },
        why: "an export run removes a stale _SUCCESS before writing new parts, deletes the objects of a failed run (its own, or an earlier one's listed in an in-progress marker) and its marker (docs/exports.md); doctor deletes its probe objects under the same prefix.",
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
  options: { compactDest?: string | undefined } = {},
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
  const pairs = mergeStatements(
    s3.flatMap((t, i) => {
      const n = s3.length > 1 ? String(i + 1) : "";
      // The compactor (docs/compaction.md) works on log trees only; exports are not compacted.
      if (role === "compactor")
        return (t.kind ?? "logs") === "logs"
          ? compactorStatements(
              t.destination,
              n,
              options.compactDest,
              enforcesConditionalWrites(t.destination),
            )
          : [];
      return [
        ...statementsFor(t, role, n),
        ...retentionStatements(t.destination, t.kind ?? "logs", role, n),
      ];
    }),
  );
  if (pairs.length === 0)
    throw new StowageError("config", "no log destination to compact is configured", {
      hint: "pass the logger config: stowage policy --config stowage.config.ts --role compactor",
    });
  const policy: IamPolicy = { Version: "2012-10-17", Statement: pairs.map((p) => p.st) };
  const unconditional = [
    ...new Set(
      s3
        .filter((t) => (t.kind ?? "logs") === "logs" && !enforcesConditionalWrites(t.destination))
        .map((t) => t.destination.endpoint ?? t.destination.provider ?? t.destination.bucket),
    ),
  ];
  const notes =
    role !== "reader" && unconditional.length
      ? [
          `PutObject on log keys is not conditioned on s3:if-none-match for ${unconditional.join(", ")}: AWS S3 enforces that condition, MinIO refuses a policy naming it ("invalid condition key"). Without it these credentials can replace a log object with a new version; \`stowage verify\` lists versions and reports it (docs/retention.md).`,
        ]
      : [];
  const warnings = policySizeWarnings(policy).map(
    (w) =>
      `this ${role} policy is ${w}; split the destinations over several policies (one config file each) or attach it where a larger limit applies`,
  );
  return {
    policy,
    explanations: pairs.map((p) => ({ sid: p.st.Sid, why: p.why })),
    notes,
    warnings,
  };
}
