/**
 * What `stowage verify` checks on one log object, from its versions and its HEAD:
 * written once (one version, no delete marker while it must be kept), a stored
 * SHA-256, format-v1 metadata consistent with the key, and — when the config asks
 * for Object Lock — a retention of the right mode that lasts long enough.
 * Pure functions: the walk in verify-logs.ts does the requests.
 */
import {
  CONTENT_ENCODING,
  FORMAT_VERSION_VALUE,
  META,
  type ObjectKeyParts,
} from "../v1-format/object-key.js";
import type { ObjectLockSpec } from "../config/destination.js";
import { lockProblems, lockUntil } from "../store/object-lock.js";
import type { ObjectInfo, VersionEntry } from "../store/object-store.js";

const DAY_MS = 86_400_000;

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

/**
 * Until when deleting the key is a finding: the end of its required retention when the
 * config asks for Object Lock, else its lifecycle expiry (S3 expires an object no earlier
 * than its creation + the days, and a log object is created after its hour began), else
 * forever. A delete marker placed later is the configured expiry, not tampering.
 * @example protectedUntilMs(parts, { mode: "GOVERNANCE", retainDays: 365 }, undefined)
 */
export function protectedUntilMs(
  parts: ObjectKeyParts,
  lock: ObjectLockSpec | undefined,
  expireDays: number | undefined,
): number {
  if (lock) return requiredRetainUntil(parts, lock).getTime();
  if (expireDays !== undefined) return parts.hourMs + expireDays * DAY_MS;
  return Number.POSITIVE_INFINITY;
}

/** What the versions of one key say: whether a current object remains, and what is wrong. */
export interface VersionVerdict {
  /** False when the key reads as deleted (its newest entry is a delete marker). */
  current: boolean;
  problems: string[];
}

const iso = (d: Date) => d.toISOString();

/**
 * Stowage writes each log key exactly once (PUT with If-None-Match: *) and never deletes
 * one: a second version is an overwrite, a delete marker a deletion — both invisible to a
 * plain listing, where a forged current version passes every other check (issue 31 §2).
 * @example versionProblems(await listed versions of the key, protectedUntilMs(parts, lock, undefined))
 */
export function versionProblems(versions: VersionEntry[], protectedUntil: number): VersionVerdict {
  const latest = versions.find((v) => v.isLatest) ?? versions[0];
  if (!latest) return { current: false, problems: [] };
  const objects = versions.filter((v) => !v.deleteMarker);
  const markers = versions.length - objects.length;
  if (latest.deleteMarker) {
    if (latest.lastModified.getTime() >= protectedUntil) return { current: false, problems: [] };
    return {
      current: false,
      problems: [
        objects.length > 0
          ? `deleted: a delete marker (${iso(latest.lastModified)}) hides ${objects.length} version${objects.length === 1 ? "" : "s"} whose bytes are still stored; readers no longer see its records`
          : `deleted: only a delete marker (${iso(latest.lastModified)}) is left; the object's versions were removed`,
      ],
    };
  }
  if (versions.length === 1) return { current: true, problems: [] };
  const first = objects[objects.length - 1]!;
  return {
    current: true,
    problems: [
      `${objects.length} version${objects.length === 1 ? "" : "s"}${markers ? ` and ${markers} delete marker${markers === 1 ? "" : "s"}` : ""}: ` +
        `the key was written again after Stowage wrote it once (If-None-Match: *); the current version ${latest.versionId} (${iso(latest.lastModified)}) ` +
        `${first === latest ? "followed a deletion" : `replaces ${first.versionId} (${iso(first.lastModified)})`}`,
    ],
  };
}
