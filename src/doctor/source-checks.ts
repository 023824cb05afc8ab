/**
 * `stowage doctor --source URL`: the checks a reader needs on the
 * source that `stowage logs` / `stowage studio` would open, read-only (nothing is
 * written): credentials resolve, the bucket answers, the `<prefix>/v1/` folder lists
 * in order with continuation (§2.4), and GetObject honours If-Match (right ETag
 * reads, a wrong one answers 412). For `file://` the directory must exist.
 */
import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ResolvedS3Destination } from "../config/destination.js";
import type { Env } from "../config/env.js";
import { s3SourceDestination, type S3SourceFields } from "../config/s3-source.js";
import { describeCredentials } from "../store/credentials.js";
import { openStore } from "../store/open-store.js";
import type { ObjectStore } from "../store/object-store.js";
import { checkCredentials } from "./credentials-check.js";
import { arnOf, diagnose } from "./diagnose.js";
import { wrongIfMatchRefused } from "./read-probes.js";
import type { CheckOutcome, CheckResult, DoctorReport } from "./types.js";

/** The source flags of `logs`/`studio`, as doctor takes them. */
export interface SourceCheckOptions extends Omit<
  S3SourceFields,
  "trustEndpoint" | "credentials" | "allowAnonymous"
> {
  env: Env;
  cwd: string;
  requestTimeoutMs: number;
  signal: AbortSignal;
}

const CAP = "capability missing" as const;

/**
 * Runs the reader's checks on one source URL.
 * @example const report = await checkSource("s3://logs/app", { env, cwd, requestTimeoutMs: 5000, signal });
 */
export async function checkSource(url: string, o: SourceCheckOptions): Promise<DoctorReport> {
  const text = url.trim();
  const checks = /^s3:/i.test(text)
    ? await s3SourceChecks(s3Source(text, o), o)
    : [await localSourceCheck(text, o.cwd)];
  return { ok: checks.every((c) => c.ok), checks };
}

/** `file://`, absolute or relative: the directory must exist. */
async function localSourceCheck(text: string, cwd: string): Promise<CheckResult> {
  const root = /^file:/i.test(text)
    ? fileURLToPath(new URL(text))
    : isAbsolute(text)
      ? text
      : resolve(cwd, text);
  const isDir = await stat(root).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return isDir
    ? { name: `Source Local(${root})`, ok: true }
    : {
        name: `Source Local(${root})`,
        ok: false,
        category: "config error",
        detail: `${root} does not exist or is not a directory`,
        hint: "pass the directory that holds v1/ (the demo writes .stowage/demo/store)",
      };
}

/** Credentials, then the ordered list, then If-Match on the first object listed; each stops the next. */
async function s3SourceChecks(
  dest: ResolvedS3Destination,
  o: SourceCheckOptions,
): Promise<CheckResult[]> {
  const creds = await checkCredentials(dest, o.env);
  const checks: CheckResult[] = [
    { name: `Credentials (${describeCredentials(dest.credentials)})`, ...creds },
  ];
  if (!creds.ok) return checks;
  const store = openStore(dest, {
    env: o.env,
    requestTimeoutMs: o.requestTimeoutMs,
    maxAttempts: 1,
  }).store;
  try {
    const folder = `${dest.prefix ? `${dest.prefix}/` : ""}v1/`;
    const listed: Listed = await listInOrder(store, folder, o.signal).catch((err: unknown) => ({
      outcome: diagnose(err, dest, { action: "s3:ListBucket", resource: arnOf(dest) }),
    }));
    checks.push({ name: `Source S3(${dest.bucket}) lists ${folder} in order`, ...listed.outcome });
    if (!listed.outcome.ok) return checks;
    checks.push(await ifMatchCheck(store, dest, listed.first, o.signal));
  } finally {
    store.close();
  }
  return checks;
}

/** GetObject If-Match on the first object listed (none yet: nothing to probe, not a failure). */
async function ifMatchCheck(
  store: ObjectStore,
  dest: ResolvedS3Destination,
  first: { key: string; etag: string } | undefined,
  signal: AbortSignal,
): Promise<CheckResult> {
  if (!first) return { name: "GetObject If-Match (no object yet to probe)", ok: true };
  const got = await ifMatch(store, first, signal).catch((err: unknown) =>
    diagnose(err, dest, { action: "s3:GetObject", resource: arnOf(dest, first.key) }),
  );
  return { name: "GetObject If-Match (wrong ETag answers 412)", ...got };
}

function s3Source(text: string, o: SourceCheckOptions): ResolvedS3Destination {
  return s3SourceDestination(text, o, o.env, "--source");
}

type Listed = { outcome: CheckOutcome; first?: { key: string; etag: string } };

/** Two pages of max-keys 1 under the folder: in order, with a continuation token between them. */
async function listInOrder(
  store: ObjectStore,
  folder: string,
  signal: AbortSignal,
): Promise<Listed> {
  const a = await store.list({ prefix: folder, maxKeys: 1, signal });
  const first = a.entries[0] ? { key: a.entries[0].key, etag: a.entries[0].etag } : undefined;
  if (!a.nextContinuationToken) return { outcome: { ok: true }, ...(first ? { first } : {}) };
  const b = await store.list({
    prefix: folder,
    maxKeys: 1,
    continuationToken: a.nextContinuationToken,
    signal,
  });
  const k2 = b.entries[0]?.key;
  if (!first || !k2 || Buffer.compare(Buffer.from(first.key), Buffer.from(k2)) >= 0)
    return {
      outcome: {
        ok: false,
        category: CAP,
        detail: "paginated ListObjectsV2 did not return keys in lexicographic order",
        hint: "Stowage's reader needs ordered ListObjectsV2 with continuation tokens (docs/doctor.md)",
      },
    };
  return { outcome: { ok: true }, first };
}

async function ifMatch(
  store: ObjectStore,
  obj: { key: string; etag: string },
  signal: AbortSignal,
): Promise<CheckOutcome> {
  const right = await store.get(obj.key, { ifMatch: obj.etag, signal });
  right.body.on("error", () => undefined);
  right.body.destroy(); // the headers answered 200: the body is not needed
  return wrongIfMatchRefused(store, obj.key, signal);
}
