/**
 * Multipart uploads on S3 (exports stream large objects through them): create,
 * upload part, complete, abort, list. S3Store delegates here; the timed `send`
 * and error mapping are S3Store's own.
 */
import type { S3Client } from "@aws-sdk/client-s3";
import { s3Sdk } from "./aws-sdk.js";
import { StoreError } from "./classify-error.js";
import type { MultipartUpload, PutOptions, PutResult } from "./object-store.js";
import { partChecksum } from "./checksum.js";

/** What a multipart operation needs from S3Store. */
export interface S3Call {
  client: S3Client;
  bucket: string;
  /** SHA-256 of each uploaded part, by upload id, for CompleteMultipartUpload. */
  partChecksums: Map<string, Map<number, string>>;
  /** One SDK call under the caller's signal and the per-attempt timeout, errors mapped. */
  send<T>(
    what: string,
    signal: AbortSignal | undefined,
    fn: (abortSignal: AbortSignal) => Promise<T>,
  ): Promise<T>;
}

export async function startMultipart(
  s3: S3Call,
  key: string,
  options: Omit<PutOptions, "ifNoneMatch">,
): Promise<MultipartUpload> {
  const res = await s3.send(`CreateMultipartUpload ${key}`, options.signal, (abortSignal) =>
    s3.client.send(
      new (s3Sdk().CreateMultipartUploadCommand)({
        Bucket: s3.bucket,
        Key: key,
        ChecksumAlgorithm: "SHA256",
        ...(options.objectLock
          ? {
              ObjectLockMode: options.objectLock.mode,
              ObjectLockRetainUntilDate: options.objectLock.retainUntil,
            }
          : {}),
        ...(options.contentType ? { ContentType: options.contentType } : {}),
        ...(options.contentEncoding ? { ContentEncoding: options.contentEncoding } : {}),
        ...(options.metadata ? { Metadata: options.metadata } : {}),
      }),
      { abortSignal },
    ),
  );
  if (!res.UploadId)
    throw new StoreError("storage", `CreateMultipartUpload ${key} returned no upload id`);
  return { key, uploadId: res.UploadId };
}

export async function uploadPart(
  s3: S3Call,
  upload: MultipartUpload,
  partNumber: number,
  body: Uint8Array,
  signal: AbortSignal | undefined,
): Promise<{ etag: string }> {
  const checksum = partChecksum(body);
  const res = await s3.send(`UploadPart ${upload.key}#${partNumber}`, signal, (abortSignal) =>
    s3.client.send(
      new (s3Sdk().UploadPartCommand)({
        Bucket: s3.bucket,
        Key: upload.key,
        UploadId: upload.uploadId,
        PartNumber: partNumber,
        Body: body,
        ChecksumSHA256: checksum,
      }),
      { abortSignal },
    ),
  );
  let sums = s3.partChecksums.get(upload.uploadId);
  if (!sums) s3.partChecksums.set(upload.uploadId, (sums = new Map()));
  sums.set(partNumber, checksum);
  return { etag: res.ETag ?? "" };
}

export async function completeMultipart(
  s3: S3Call,
  upload: MultipartUpload,
  parts: { partNumber: number; etag: string }[],
  signal: AbortSignal | undefined,
): Promise<PutResult> {
  const sums = s3.partChecksums.get(upload.uploadId);
  const res = await s3.send(`CompleteMultipartUpload ${upload.key}`, signal, (abortSignal) =>
    s3.client.send(
      new (s3Sdk().CompleteMultipartUploadCommand)({
        Bucket: s3.bucket,
        Key: upload.key,
        UploadId: upload.uploadId,
        MultipartUpload: {
          Parts: parts.map((p) => {
            const sum = sums?.get(p.partNumber);
            return {
              PartNumber: p.partNumber,
              ETag: p.etag,
              ...(sum ? { ChecksumSHA256: sum } : {}),
            };
          }),
        },
      }),
      { abortSignal },
    ),
  );
  s3.partChecksums.delete(upload.uploadId);
  return { etag: res.ETag ?? "" };
}

export async function abortMultipart(
  s3: S3Call,
  upload: MultipartUpload,
  signal: AbortSignal | undefined,
): Promise<void> {
  s3.partChecksums.delete(upload.uploadId);
  try {
    await s3.send(`AbortMultipartUpload ${upload.key}`, signal, (abortSignal) =>
      s3.client.send(
        new (s3Sdk().AbortMultipartUploadCommand)({
          Bucket: s3.bucket,
          Key: upload.key,
          UploadId: upload.uploadId,
        }),
        { abortSignal },
      ),
    );
  } catch (err) {
    if (err instanceof StoreError && err.code === "not-found") return;
    throw err;
  }
}

export async function listMultipartUploads(
  s3: S3Call,
  prefix: string,
  signal: AbortSignal | undefined,
): Promise<MultipartUpload[]> {
  const found = await listUploadsPages(s3, prefix, signal);
  if (found.length > 0 || !prefix) return found;
  // MinIO answers ListMultipartUploads only for an exact object key or an empty
  // prefix (measured on the pinned build): fall back to the bucket-wide listing.
  return (await listUploadsPages(s3, "", signal)).filter((u) => u.key.startsWith(prefix));
}

async function listUploadsPages(
  s3: S3Call,
  prefix: string,
  signal: AbortSignal | undefined,
): Promise<MultipartUpload[]> {
  const out: MultipartUpload[] = [];
  let keyMarker: string | undefined;
  let uploadIdMarker: string | undefined;
  for (;;) {
    const res = await s3.send(`ListMultipartUploads ${prefix}`, signal, (abortSignal) =>
      s3.client.send(
        new (s3Sdk().ListMultipartUploadsCommand)({
          Bucket: s3.bucket,
          ...(prefix ? { Prefix: prefix } : {}),
          ...(keyMarker ? { KeyMarker: keyMarker } : {}),
          ...(uploadIdMarker ? { UploadIdMarker: uploadIdMarker } : {}),
        }),
        { abortSignal },
      ),
    );
    for (const u of res.Uploads ?? [])
      if (u.Key && u.UploadId) out.push({ key: u.Key, uploadId: u.UploadId });
    if (!res.IsTruncated) return out;
    keyMarker = res.NextKeyMarker;
    uploadIdMarker = res.NextUploadIdMarker;
  }
}
