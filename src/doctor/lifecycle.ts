/**
 * Storage cost control (docs/retention.md): the bucket lifecycle configuration
 * `stowage policy --lifecycle` prints for the configured prefixes, and doctor's
 * reading of the bucket's rules against them. Pure functions over plain data.
 *
 * Findings per prefix: no expiration (unbounded growth), expiration before the
 * Object Lock retention ends (S3 cannot delete a locked version: expiry only adds
 * a delete marker, the bytes stay billed and hidden), expiration inside the
 * reader's 7-day window, and no abort rule for incomplete multipart uploads
 * under an export prefix.
 */
import { resolveDest } from "../compact/layout.js";
import type { ResolvedDestination, ResolvedS3Destination } from "../config/destination.js";
import { StowageError } from "../shared/errors.js";
import type { BucketLifecycleRule } from "../store/bucket-config.js";
import type { DoctorTarget } from "./types.js";

/** The reader never reads further back than this (SPEC §5.2). */
export const READER_WINDOW_DAYS = 7;

/** An S3 lifecycle rule in the shape `aws s3api put-bucket-lifecycle-configuration` takes. */
export interface LifecycleRuleJson {
  ID: string;
  Status: "Enabled";
  Filter: { Prefix: string };
  Expiration?: { Days: number };
  Transitions?: { Days: number; StorageClass: string }[];
  AbortIncompleteMultipartUpload?: { DaysAfterInitiation: number };
}

/** The key prefix a target's objects share: `<prefix>/v1/` for logs, the fixed head of an export prefix. */
export function objectPrefixOf(target: DoctorTarget): string {
  const d = target.destination;
  const prefix = d.type === "s3" ? d.prefix : "";
  if (target.kind === "export") {
    // An export prefix with placeholders ({date}) covers every run: keep its fixed head.
    const template = target.prefixTemplate ?? prefix;
    const brace = template.indexOf("{");
    if (brace >= 0) return template.slice(0, brace);
    return template ? `${template}/` : "";
  }
  return `${prefix ? `${prefix}/` : ""}v1/`;
}

function ruleId(kind: string, prefix: string): string {
  return `stowage-${kind}-${prefix.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-|-$/g, "") || "root"}`.slice(
    0,
    255,
  );
}

/** How many days a target's objects must live: the lifecycle's, else the Object Lock retention. */
function expireDaysOf(d: ResolvedDestination): number | undefined {
  if (d.type !== "s3") return undefined;
  return d.lifecycle?.expireDays ?? d.objectLock?.retainDays;
}

/**
 * @example buildLifecycle(plan.targets).Rules // [{ ID: "stowage-logs-app-v1", Filter: { Prefix: "app/v1/" }, Expiration: { Days: 30 }, … }]
 */
export function buildLifecycle(
  targets: readonly DoctorTarget[],
  options: LifecycleOptions = {},
): { Rules: LifecycleRuleJson[] } {
  const rules: LifecycleRuleJson[] = [];
  for (const t of targets) {
    const d = t.destination;
    if (d.type !== "s3") continue;
    const prefix = objectPrefixOf(t);
    const days = expireDaysOf(d);
    if (t.kind !== "export" && days === undefined)
      throw new StowageError(
        "config",
        `s3://${d.bucket}/${prefix}: no retention to build an expiration rule from`,
        { hint: "set s3.lifecycle.expire_days (or s3.object_lock.retain_days) in the config" },
      );
    if (d.objectLock && days !== undefined && days < d.objectLock.retainDays)
      throw new StowageError(
        "config",
        `s3://${d.bucket}/${prefix}: lifecycle.expire_days (${days}) is shorter than object_lock.retain_days (${d.objectLock.retainDays})`,
        { hint: "expire no earlier than the lock ends" },
      );
    rules.push({
      ID: ruleId(t.kind === "export" ? "export" : "logs", prefix),
      Status: "Enabled",
      Filter: { Prefix: prefix },
      ...(days !== undefined ? { Expiration: { Days: days } } : {}),
      ...(d.lifecycle?.transitionDays !== undefined && d.lifecycle.transitionStorageClass
        ? {
            Transitions: [
              {
                Days: d.lifecycle.transitionDays,
                StorageClass: d.lifecycle.transitionStorageClass,
              },
            ],
          }
        : {}),
      ...(t.kind === "export"
        ? { AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }
        : {}),
    });
    if (t.kind !== "export" && options.parquetDays !== undefined)
      rules.push(parquetRule(d, days, options.parquetDays, options.compactDest));
  }
  return { Rules: rules };
}

export interface LifecycleOptions {
  /** Keep compacted Parquet (and its manifests) this many days (docs/compaction.md). */
  parquetDays?: number | undefined;
  /** The compaction destination, when not the default `<prefix>/parquet/`. */
  compactDest?: string | undefined;
}

/**
 * The rule of a log tree's compaction destination: "v1 kept N days, Parquet kept M days".
 * Parquet must outlive its v1 (else a compactor within its look-back would compact the hours
 * again) and its Object Lock; its multipart uploads are aborted after a day.
 */
function parquetRule(
  d: ResolvedS3Destination,
  v1Days: number | undefined,
  parquetDays: number,
  compactDest: string | undefined,
): LifecycleRuleJson {
  const dest = resolveDest(d.prefix, compactDest);
  if (!Number.isSafeInteger(parquetDays) || parquetDays < 1)
    throw new StowageError(
      "usage",
      `--parquet-days must be a whole number of days ≥ 1, not ${parquetDays}`,
    );
  if (v1Days !== undefined && parquetDays < v1Days)
    throw new StowageError(
      "config",
      `s3://${d.bucket}/${dest}: Parquet kept ${parquetDays} days is shorter than v1 kept ${v1Days} days`,
      {
        hint: "keep the compacted tables at least as long as the logs they were made from (a compactor would compact hours again while their v1 objects remain)",
      },
    );
  if (d.objectLock && parquetDays < d.objectLock.retainDays)
    throw new StowageError(
      "config",
      `s3://${d.bucket}/${dest}: Parquet kept ${parquetDays} days is shorter than object_lock.retain_days (${d.objectLock.retainDays})`,
      { hint: "expire no earlier than the lock ends" },
    );
  return {
    ID: ruleId("parquet", dest),
    Status: "Enabled",
    Filter: { Prefix: dest },
    Expiration: { Days: parquetDays },
    AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
  };
}

export interface LifecycleFinding {
  /** "fail": a conflict that loses money or retention; "warn": worth fixing. */
  level: "fail" | "warn";
  detail: string;
  hint: string;
}

/** The enabled rules that apply to every key under `prefix`. */
function rulesCovering(
  rules: readonly BucketLifecycleRule[],
  prefix: string,
): BucketLifecycleRule[] {
  return rules.filter((r) => r.enabled && r.prefix !== undefined && prefix.startsWith(r.prefix));
}

/**
 * @example analyseLifecycle(target, await getBucketLifecycle(store)) // [{ level: "warn", detail: "no expiration…" }]
 */
export function analyseLifecycle(
  target: DoctorTarget,
  rules: readonly BucketLifecycleRule[],
): LifecycleFinding[] {
  const d = target.destination;
  if (d.type !== "s3") return [];
  const prefix = objectPrefixOf(target);
  const covering = rulesCovering(rules, prefix);
  const expiries = covering.map((r) => r.expireDays).filter((x): x is number => x !== undefined);
  const expire = expiries.length ? Math.min(...expiries) : undefined;
  const out: LifecycleFinding[] = [];
  const fix = "apply `stowage policy --lifecycle` (docs/retention.md)";
  if (expire === undefined)
    out.push({
      level: "warn",
      detail: `no lifecycle rule expires objects under ${prefix || "the bucket root"}: it grows (and is billed) forever`,
      hint: fix,
    });
  else {
    if (d.objectLock && expire < d.objectLock.retainDays)
      out.push({
        level: "fail",
        detail: `objects under ${prefix} expire after ${expire} days, before their ${d.objectLock.retainDays}-day Object Lock ends: S3 only adds delete markers, the locked bytes stay and are billed`,
        hint: `expire after at least ${d.objectLock.retainDays} days; ${fix}`,
      });
    if (target.kind !== "export" && expire < READER_WINDOW_DAYS)
      out.push({
        level: "warn",
        detail: `objects under ${prefix} expire after ${expire} days, inside the reader's ${READER_WINDOW_DAYS}-day window`,
        hint: `keep logs at least ${READER_WINDOW_DAYS} days, or accept that Studio's 7d view is partly empty`,
      });
  }
  if (
    target.kind === "export" &&
    !covering.some((r) => r.abortIncompleteMultipartDays !== undefined)
  )
    out.push({
      level: "warn",
      detail: `no rule aborts incomplete multipart uploads under ${prefix || "the bucket root"}: parts of failed runs stay billed`,
      hint: `add AbortIncompleteMultipartUpload (1 day); ${fix}. MinIO does not store this rule; it removes stale uploads itself`,
    });
  return out;
}
