/**
 * `stowage verify` over a log prefix: every key of the range's hour folders, found by
 * one versions listing over the range (range-versions.ts), is checked for being
 * written once and never deleted while it must be kept, then from its HEAD
 * (object-checks.ts) and, at `depth: "full"`, its body (body-checks.ts).
 * Storage failures are retried by the one retry policy; a call that still fails ends
 * the run with the error ("could not verify"), never as a finding.
 */
import { HOUR_MS, parseObjectKey, utcHourStart } from "../v1-format/object-key.js";
import type { ObjectLockSpec } from "../config/destination.js";
import { VERIFY_RETRY } from "../config/retry-defaults.js";
import type { ListVersionsOptions, ObjectStore } from "../store/object-store.js";
import { withRetry, type RetryPolicyOptions } from "../store/retry-policy.js";
import { checkBody } from "./body-checks.js";
import { checkLogObjectInfo, protectedUntilMs, versionProblems } from "./object-checks.js";
import { rangeListing, rangeVersions, type KeyVersions } from "./range-versions.js";

export interface VerifyLogsOptions {
  /** The logger's key prefix ("" for none). */
  prefix: string;
  fromMs: number;
  toMs: number;
  /** "metadata": HEAD only; "full": also download, re-hash and decode. */
  depth: "metadata" | "full";
  /** When set, every object must be locked in this mode long enough. */
  objectLock?: ObjectLockSpec;
  /** The configured lifecycle expiry: a delete marker placed after it is the expiry, not a finding. */
  expireDays?: number;
  retry?: RetryPolicyOptions;
  signal?: AbortSignal | undefined;
  /** Called after each object (for a progress line). */
  onProgress?: (p: { checked: number; failures: number; hour: number }) => void;
}

export interface VerifyFinding {
  key: string;
  problems: string[];
}

export interface VerifyReport {
  ok: boolean;
  depth: "metadata" | "full";
  hours: number;
  checked: number;
  /** Compressed bytes downloaded at depth full. */
  downloadedBytes: number;
  /** `list`: ListObjectVersions pages (one per 1,000 versions in the range). */
  requests: { list: number; head: number; get: number };
  failures: VerifyFinding[];
}

type Hooks = { signal?: AbortSignal | undefined };

/**
 * @example const report = await verifyLogs(store, { prefix: "app", fromMs, toMs, depth: "full" });
 */
export async function verifyLogs(
  store: ObjectStore,
  options: VerifyLogsOptions,
): Promise<VerifyReport> {
  const retry = options.retry ?? VERIFY_RETRY;
  const hooks: Hooks = options.signal ? { signal: options.signal } : {};
  const first = utcHourStart(options.fromMs);
  const report: VerifyReport = {
    ok: true,
    depth: options.depth,
    hours: options.toMs < first ? 0 : Math.floor((options.toMs - first) / HOUR_MS) + 1,
    checked: 0,
    downloadedBytes: 0,
    requests: { list: 0, head: 0, get: 0 },
    failures: [],
  };
  if (report.hours === 0) return report;
  const listPage = (page: ListVersionsOptions) =>
    withRetry(
      () => {
        report.requests.list++;
        return store.listVersions({ ...page, ...hooks });
      },
      retry,
      hooks,
    );
  const listing = rangeListing(options.prefix, options.fromMs, options.toMs);
  for await (const entry of rangeVersions(listPage, listing)) {
    const outcome = await verifyKey(store, entry, options, report, retry, hooks);
    if (outcome === null) continue; // outside the range, or expired as configured
    report.checked++;
    if (outcome.problems.length > 0)
      report.failures.push({ key: entry.key, problems: outcome.problems });
    options.onProgress?.({
      checked: report.checked,
      failures: report.failures.length,
      hour: outcome.hourMs ?? first,
    });
  }
  report.ok = report.failures.length === 0;
  return report;
}

/** Problems of one key, or null when it is not an object of the range. */
async function verifyKey(
  store: ObjectStore,
  { key, versions }: KeyVersions,
  options: VerifyLogsOptions,
  report: VerifyReport,
  retry: RetryPolicyOptions,
  hooks: Hooks,
): Promise<{ problems: string[]; hourMs?: number } | null> {
  const parts = parseObjectKey(key, options.prefix);
  const deleted = versions.find((v) => v.isLatest)?.deleteMarker === true;
  if (!parts)
    return deleted
      ? null
      : {
          problems: [
            "not a format-v1 object key: an object written outside Stowage in a log folder",
          ],
        };
  if (parts.maxMs < options.fromMs || parts.minMs > options.toMs) return null;
  const verdict = versionProblems(
    versions,
    protectedUntilMs(parts, options.objectLock, options.expireDays),
  );
  if (!verdict.current)
    return verdict.problems.length > 0
      ? { problems: verdict.problems, hourMs: parts.hourMs }
      : null;
  const info = await withRetry(
    () => {
      report.requests.head++;
      return store.head(key, hooks);
    },
    retry,
    hooks,
  );
  const problems = [...verdict.problems, ...checkLogObjectInfo(info, parts, options.objectLock)];
  if (options.depth === "full") {
    const counters = { get: 0, downloadedBytes: 0 };
    try {
      problems.push(...(await checkBody(store, key, info.metadata, counters, retry, hooks)));
    } finally {
      report.requests.get += counters.get;
      report.downloadedBytes += counters.downloadedBytes;
    }
  }
  return { problems, hourMs: parts.hourMs };
}
