/**
 * What `stowage verify` checks on one log object, from its HEAD alone: a stored
 * SHA-256, format-v1 metadata consistent with the key, and — when the config asks
 * for Object Lock — a retention of the right mode that lasts long enough.
 * Pure functions: the walk in verify-logs.ts does the requests.
 */
import {
  CONTENT_ENCODING,
  FORMAT_VERSION_VALUE,
  META,
  type ObjectKeyParts,
} from "../batch/object-key.js";
import type { ObjectLockSpec } from "../config/destination.js";
import { lockProblems, lockUntil } from "../store/object-lock.js";
import type { ObjectInfo } from "../store/object-store.js";

/**
 * The date an object must stay locked until: the start of its hour plus the
 * configured retention (the logger sets retain-until when it seals a batch, which
 * is never before its records' hour began).
 */
export function requiredRetainUntil(parts: ObjectKeyParts, lock: ObjectLockSpec): Date {
  return lockUntil(parts.hourMs, lock);
}

/**
 * Problems found on a log object's HEAD (empty when it is intact as far as HEAD tells).
 * @example checkLogObjectInfo(await store.head(key), parseObjectKey(key, prefix)!, undefined) // []
 */
export function checkLogObjectInfo(
  info: ObjectInfo,
  parts: ObjectKeyParts,
  lock: ObjectLockSpec | undefined,
): string[] {
  const problems: string[] = [];
  const m = info.metadata;
  if (!info.checksumSha256)
    problems.push(
      "no SHA-256 checksum is stored (written without one, or replaced outside Stowage)",
    );
  if (m[META.format] !== FORMAT_VERSION_VALUE)
    problems.push(
      `metadata ${META.format} is ${JSON.stringify(m[META.format] ?? null)}, expected "1"`,
    );
  if (m[META.minMs] !== String(parts.minMs) || m[META.maxMs] !== String(parts.maxMs))
    problems.push(
      `metadata time range ${m[META.minMs] ?? "?"}..${m[META.maxMs] ?? "?"} differs from the key's ${parts.minMs}..${parts.maxMs}`,
    );
  const records = Number(m[META.records]);
  if (!Number.isInteger(records) || records < 1)
    problems.push(
      `metadata ${META.records} is ${JSON.stringify(m[META.records] ?? null)}, expected a count ≥ 1`,
    );
  const decoded = Number(m[META.decodedBytes]);
  if (!Number.isInteger(decoded) || decoded < 1)
    problems.push(
      `metadata ${META.decodedBytes} is ${JSON.stringify(m[META.decodedBytes] ?? null)}`,
    );
  if (info.contentEncoding !== undefined && info.contentEncoding !== CONTENT_ENCODING)
    problems.push(`content-encoding is ${info.contentEncoding}, expected gzip`);
  if (info.size <= 0) problems.push("the object is empty");
  if (lock) problems.push(...lockProblems(info, requiredRetainUntil(parts, lock), lock));
  return problems;
}
