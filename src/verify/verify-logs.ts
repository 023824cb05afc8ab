/**
 * `stowage verify` over a log prefix: every object of the range's hour folders is
 * checked from its HEAD (object-checks.ts) and, at `depth: "full"`, downloaded:
 * the store re-hashes the bytes against the stored SHA-256 while they stream, and
 * the body is decoded to count its lines against the `records` and
 * `decoded-bytes` metadata. Storage failures are retried by the one retry policy;
 * a call that still fails ends the run with the error ("could not verify"),
 * never as a finding.
 */
import { StringDecoder } from "node:string_decoder";
import { createGunzip } from "node:zlib";
import { hourPrefix, HOUR_MS, META, parseObjectKey, utcHourStart } from "../batch/object-key.js";
import type { ObjectLockSpec } from "../config/destination.js";
import { isStowageError } from "../shared/errors.js";
import type { ObjectStore } from "../store/object-store.js";
import { withRetry, type RetryPolicyOptions } from "../store/retry-policy.js";
import { checkLogObjectInfo } from "./object-checks.js";

export interface VerifyLogsOptions {
  /** The logger's key prefix ("" for none). */
  prefix: string;
  fromMs: number;
  toMs: number;
  /** "metadata": HEAD only; "full": also download, re-hash and decode. */
  depth: "metadata" | "full";
  /** When set, every object must be locked in this mode long enough. */
  objectLock?: ObjectLockSpec;
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
  requests: { list: number; head: number; get: number };
  failures: VerifyFinding[];
}

const DEFAULT_RETRY: RetryPolicyOptions = {
  maxAttempts: 5,
  initialBackoffMs: 200,
  maxBackoffMs: 5_000,
};

/**
 * @example const report = await verifyLogs(store, { prefix: "app", fromMs, toMs, depth: "full" });
 */
export async function verifyLogs(
  store: ObjectStore,
  options: VerifyLogsOptions,
): Promise<VerifyReport> {
  const retry = options.retry ?? DEFAULT_RETRY;
  const hooks = options.signal ? { signal: options.signal } : {};
  const report: VerifyReport = {
    ok: true,
    depth: options.depth,
    hours: 0,
    checked: 0,
    downloadedBytes: 0,
    requests: { list: 0, head: 0, get: 0 },
    failures: [],
  };
  for (let hour = utcHourStart(options.fromMs); hour <= options.toMs; hour += HOUR_MS) {
    report.hours++;
    const folder = hourPrefix(options.prefix, hour);
    let token: string | undefined;
    do {
      const page = await withRetry(
        () => {
          report.requests.list++;
          return store.list({
            prefix: folder,
            continuationToken: token,
            ...hooks,
          });
        },
        retry,
        hooks,
      );
      token = page.nextContinuationToken;
      for (const entry of page.entries) {
        const problems = await verifyOne(store, entry.key, options, report, retry, hooks);
        if (problems === null) continue; // outside the range
        report.checked++;
        if (problems.length > 0) report.failures.push({ key: entry.key, problems });
        options.onProgress?.({ checked: report.checked, failures: report.failures.length, hour });
      }
    } while (token);
  }
  report.ok = report.failures.length === 0;
  return report;
}

/** Problems of one object, or null when its records lie outside the range. */
async function verifyOne(
  store: ObjectStore,
  key: string,
  options: VerifyLogsOptions,
  report: VerifyReport,
  retry: RetryPolicyOptions,
  hooks: { signal?: AbortSignal | undefined },
): Promise<string[] | null> {
  const parts = parseObjectKey(key, options.prefix);
  if (!parts)
    return ["not a format-v1 object key: an object written outside Stowage in a log folder"];
  if (parts.maxMs < options.fromMs || parts.minMs > options.toMs) return null;
  const info = await withRetry(
    () => {
      report.requests.head++;
      return store.head(key, hooks);
    },
    retry,
    hooks,
  );
  const problems = checkLogObjectInfo(info, parts, options.objectLock);
  if (options.depth === "full")
    problems.push(...(await decodeAndCount(store, key, info.metadata, report, retry, hooks)));
  return problems;
}

/** Downloads the object (the store re-hashes it) and counts its lines against the metadata. */
async function decodeAndCount(
  store: ObjectStore,
  key: string,
  metadata: Record<string, string>,
  report: VerifyReport,
  retry: RetryPolicyOptions,
  hooks: { signal?: AbortSignal | undefined },
): Promise<string[]> {
  const got = await withRetry(
    () => {
      report.requests.get++;
      return store.get(key, hooks);
    },
    retry,
    hooks,
  );
  let lines = 0;
  let decoded = 0;
  let badLine = -1;
  let tail = "";
  const utf8 = new StringDecoder("utf8");
  try {
    const gunzip = got.body.pipe(createGunzip());
    got.body.on("error", (err) => gunzip.destroy(err));
    got.body.on("data", (c: Buffer) => (report.downloadedBytes += c.byteLength));
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      decoded += chunk.byteLength;
      const text = tail + utf8.write(chunk);
      const cut = text.split("\n");
      tail = cut.pop() ?? "";
      for (const line of cut) {
        lines++;
        if (badLine < 0 && !isJsonObject(line)) badLine = lines;
      }
      if (tail.length > 8 * 1024 * 1024)
        return [`line ${lines + 1} is longer than 8 MiB: not a Stowage log object`];
    }
  } catch (err) {
    if (isStowageError(err, "integrity")) return [err.message.replace(`${key}: `, "")];
    if ((err as NodeJS.ErrnoException).code?.startsWith("Z_"))
      return [`the body is not valid gzip (${(err as Error).message})`];
    throw err;
  }
  const problems: string[] = [];
  if (tail !== "") problems.push("the last line is not terminated by a newline (truncated body)");
  if (String(lines) !== metadata[META.records])
    problems.push(
      `the body holds ${lines} lines, metadata ${META.records} says ${metadata[META.records] ?? "?"}`,
    );
  if (String(decoded) !== metadata[META.decodedBytes])
    problems.push(
      `the body decodes to ${decoded} bytes, metadata ${META.decodedBytes} says ${metadata[META.decodedBytes] ?? "?"}`,
    );
  if (badLine > 0) problems.push(`line ${badLine} is not a JSON object`);
  return problems;
}

function isJsonObject(line: string): boolean {
  try {
    const v: unknown = JSON.parse(line);
    return v !== null && typeof v === "object" && !Array.isArray(v);
  } catch {
    return false;
  }
}
