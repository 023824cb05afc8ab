/**
 * ListObjectVersions on S3 (`ObjectStore.listVersions`): versions and delete markers
 * of the keys under a prefix, merged into one list in key order (each key's newest
 * first), with S3's two markers carried in one opaque continuation token.
 * S3Store delegates here; the timed `send` and error mapping are S3Store's own.
 */
import { s3Sdk } from "./aws-sdk.js";
import type { ListVersionsOptions, VersionEntry, VersionsPage } from "./object-store.js";
import type { S3Call } from "./s3-multipart.js";

/** `[keyMarker, versionIdMarker]` of the next page, as one opaque string. */
function encodeToken(key: string, versionId: string | undefined): string {
  return Buffer.from(JSON.stringify([key, versionId ?? ""])).toString("base64url");
}

function decodeToken(token: string): { KeyMarker: string; VersionIdMarker?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || typeof parsed[0] !== "string") return { KeyMarker: token };
  const [key, version] = parsed as [string, unknown];
  return {
    KeyMarker: key,
    ...(typeof version === "string" && version ? { VersionIdMarker: version } : {}),
  };
}

/** Key byte order, then the key's current version first, then newest first. */
function byKeyNewestFirst(a: VersionEntry, b: VersionEntry): number {
  const k = Buffer.compare(Buffer.from(a.key), Buffer.from(b.key));
  if (k !== 0) return k;
  if (a.isLatest !== b.isLatest) return a.isLatest ? -1 : 1;
  return b.lastModified.getTime() - a.lastModified.getTime();
}

/**
 * @example const page = await listVersions(call, { prefix: "app/v1/2026/01/" });
 */
export async function listVersions(
  s3: S3Call,
  options: ListVersionsOptions,
): Promise<VersionsPage> {
  const res = await s3.send(
    `LIST VERSIONS ${options.prefix ?? ""}`,
    options.signal,
    (abortSignal) =>
      s3.client.send(
        new (s3Sdk().ListObjectVersionsCommand)({
          Bucket: s3.bucket,
          ...(options.prefix ? { Prefix: options.prefix } : {}),
          ...(options.continuationToken
            ? decodeToken(options.continuationToken)
            : options.startAfter
              ? { KeyMarker: options.startAfter }
              : {}),
          ...(options.maxKeys ? { MaxKeys: options.maxKeys } : {}),
        }),
        { abortSignal },
      ),
  );
  const versions: VersionEntry[] = [
    ...(res.Versions ?? []).map((v) => ({
      key: v.Key ?? "",
      versionId: v.VersionId ?? "null",
      isLatest: v.IsLatest === true,
      deleteMarker: false,
      size: v.Size ?? 0,
      lastModified: v.LastModified ?? new Date(0),
    })),
    ...(res.DeleteMarkers ?? []).map((m) => ({
      key: m.Key ?? "",
      versionId: m.VersionId ?? "null",
      isLatest: m.IsLatest === true,
      deleteMarker: true,
      size: 0,
      lastModified: m.LastModified ?? new Date(0),
    })),
  ].sort(byKeyNewestFirst);
  return {
    versions,
    ...(res.IsTruncated && res.NextKeyMarker
      ? { nextContinuationToken: encodeToken(res.NextKeyMarker, res.NextVersionIdMarker) }
      : {}),
  };
}
