/**
 * Doctor's retention and cost checks for one destination (docs/retention.md):
 * the bucket's lifecycle rules against the prefix (lifecycle.ts), and, when the
 * config asks for Object Lock, that the bucket has it enabled, that this
 * writer may set retention — proved by a probe locked for two seconds, then
 * removed by version, so no probe is ever left that cannot be deleted — and that
 * versioning is on (a lock protects versions; an overwrite or a deletion is seen
 * by `stowage verify` only among versions).
 */
import type { ObjectLockSpec, ResolvedS3Destination } from "../config/destination.js";
import { sleep } from "../shared/abort.js";
import { randomHex } from "../shared/ids.js";
import {
  getBucketLifecycle,
  getBucketObjectLockEnabled,
  getBucketVersioning,
} from "../store/bucket-config.js";
import { classifyError } from "../store/classify-error.js";
import type { ObjectStore } from "../store/object-store.js";
import { compactionCheck } from "./compaction-check.js";
import { analyseLifecycle } from "./lifecycle.js";
import type { CheckOutcome, CheckResult, DoctorTarget } from "./types.js";

const PROBE_LOCK_MS = 2_000;

/** @example checks.push(...(await retentionChecks(target, store, signal))) */
export async function retentionChecks(
  target: DoctorTarget,
  store: ObjectStore,
  signal: AbortSignal,
  suffix = "",
): Promise<CheckResult[]> {
  const d = target.destination;
  if (d.type !== "s3") return [];
  const out: CheckResult[] = [];
  out.push({
    name: `Lifecycle rules${suffix}`,
    ...(await lifecycleOutcome(target, store, signal)),
  });
  const compaction = await compactionOutcome(target, store, signal, suffix);
  if (compaction) out.push(compaction);
  if (d.objectLock) {
    out.push(...(await lockChecks(target, store, signal, suffix)));
    out.push(await versioningCheck(target, store, signal, suffix));
  }
  return out;
}

async function versioningCheck(
  target: DoctorTarget,
  store: ObjectStore,
  signal: AbortSignal,
  suffix: string,
): Promise<CheckResult> {
  const d = target.destination;
  const bucket = d.type === "s3" ? d.bucket : "";
  const name = `Versioning (bucket ${bucket})${suffix}`;
  let status;
  try {
    status = await getBucketVersioning(store, signal);
  } catch (err) {
    const c = classifyError(err);
    return {
      name,
      ok: false,
      category: c.category === "auth" ? "auth error" : "connectivity error",
      detail: `could not read the bucket's versioning (${c.code})`,
      hint: "grant s3:GetBucketVersioning (see stowage policy --role writer)",
    };
  }
  if (status === "Enabled") return { name, ok: true };
  return {
    name,
    ok: false,
    category: "capability missing",
    detail: `versioning is not enabled (${status}), and the config asks every object to be locked: a lock protects a version, and stowage verify finds an overwrite or a deletion only among versions`,
    hint: `a bucket created with Object Lock has versioning on for good; otherwise enable it (aws s3api put-bucket-versioning --bucket ${bucket} --versioning-configuration Status=Enabled) before turning Object Lock on`,
  };
}

/** The compaction check (compaction-check.ts) for a log destination being compacted; never fails the run. */
async function compactionOutcome(
  target: DoctorTarget,
  store: ObjectStore,
  signal: AbortSignal,
  suffix: string,
): Promise<CheckResult | undefined> {
  try {
    const rules = await getBucketLifecycle(store, signal).catch(() => []);
    return await compactionCheck(target, store, rules, signal, Date.now(), suffix);
  } catch (err) {
    const c = classifyError(err);
    if (c.category === "auth") return undefined; // a writer may not list there: not its business
    return {
      name: `Compaction${suffix}`,
      ok: true,
      warning: `could not read the compaction state (${c.code}${c.status ? `, HTTP ${c.status}` : ""})`,
      hint: "grant the reader or compactor role (stowage policy --role compactor)",
    };
  }
}

async function lifecycleOutcome(
  target: DoctorTarget,
  store: ObjectStore,
  signal: AbortSignal,
): Promise<Omit<CheckResult, "name">> {
  let rules;
  try {
    rules = await getBucketLifecycle(store, signal);
  } catch (err) {
    const c = classifyError(err);
    return {
      ok: true,
      warning: `could not read the bucket's lifecycle rules (${c.code}${c.status ? `, HTTP ${c.status}` : ""})`,
      hint: "grant s3:GetLifecycleConfiguration (stowage policy adds it when lifecycle or object_lock is configured), or ask the bucket's owner",
    };
  }
  const findings = analyseLifecycle(target, rules);
  const fail = findings.find((f) => f.level === "fail");
  if (fail) return { ok: false, category: "config error", detail: fail.detail, hint: fail.hint };
  if (findings.length === 0) return { ok: true };
  return {
    ok: true,
    warning: findings.map((f) => f.detail).join("; "),
    hint: [...new Set(findings.map((f) => f.hint))].join("; "),
  };
}

async function lockChecks(
  target: DoctorTarget,
  store: ObjectStore,
  signal: AbortSignal,
  suffix: string,
): Promise<CheckResult[]> {
  const d = target.destination;
  if (d.type !== "s3" || !d.objectLock) return [];
  const name = `Object Lock (${d.objectLock.mode}, ${d.objectLock.retainDays} d)${suffix}`;
  const enabled = await lockEnabledOutcome(d.bucket, store, signal);
  return [{ name, ...(enabled.ok ? await lockProbe(d, d.objectLock, store, signal) : enabled) }];
}

/** The bucket has Object Lock enabled (readable with s3:GetBucketObjectLockConfiguration). */
async function lockEnabledOutcome(
  bucket: string,
  store: ObjectStore,
  signal: AbortSignal,
): Promise<CheckOutcome> {
  try {
    if (await getBucketObjectLockEnabled(store, signal)) return { ok: true };
    return {
      ok: false,
      category: "capability missing",
      detail: `bucket ${bucket} does not have Object Lock enabled, and the config asks every object to be locked`,
      hint: "create the bucket with Object Lock enabled (aws s3api create-bucket --object-lock-enabled-for-bucket), or remove object_lock from the config",
    };
  } catch (err) {
    const c = classifyError(err);
    return {
      ok: false,
      category: c.category === "auth" ? "auth error" : "connectivity error",
      detail: `could not read the bucket's Object Lock configuration (${c.code})`,
      hint: "grant s3:GetBucketObjectLockConfiguration (see stowage policy --role writer)",
    };
  }
}

/** This writer may set the configured retention: a probe locked for two seconds, then removed by version. */
async function lockProbe(
  d: ResolvedS3Destination,
  lock: ObjectLockSpec,
  store: ObjectStore,
  signal: AbortSignal,
): Promise<CheckOutcome> {
  const key = `${d.prefix ? `${d.prefix}/` : ""}.stowage-doctor/${new Date().toISOString().replace(/[:.]/g, "")}-${randomHex(12)}.lock`;
  const retainUntil = new Date(Math.ceil((Date.now() + PROBE_LOCK_MS) / 1000) * 1000);
  let versionId: string | undefined;
  try {
    const put = await store.put(key, "stowage doctor lock probe\n", {
      ifNoneMatch: "*",
      objectLock: { mode: lock.mode, retainUntil },
      signal,
    });
    versionId = put.versionId;
    const head = await store.head(key, { signal });
    if (!head.objectLock)
      return {
        ok: false,
        category: "capability missing",
        detail: "a PUT with Object Lock headers was accepted but the object came back unlocked",
      };
  } catch (err) {
    const c = classifyError(err);
    return {
      ok: false,
      category: c.category === "auth" ? "auth error" : "capability missing",
      detail: `this writer cannot set a ${lock.mode} retention (${c.code}${c.status ? `, HTTP ${c.status}` : ""})`,
      hint: "grant s3:PutObjectRetention on the prefix (stowage policy --role writer adds it)",
    };
  } finally {
    // The probe's retention is two seconds: wait it out, then remove that version for good.
    const wait = retainUntil.getTime() + 250 - Date.now();
    if (wait > 0) await sleep(wait, signal).catch(() => undefined);
    await store.delete(key, { signal, versionId }).catch(() => undefined);
  }
  return { ok: true };
}
