/**
 * The ObjectStore interface: the only view of object storage the rest of Stowage
 * has. Implemented by S3Store (AWS SDK v3, any S3-compatible provider) and
 * LocalStore (a directory with the same keys, semantics and pagination).
 *
 * Semantics every implementation guarantees (checked by the contract suite,
 * `object-store.contract.ts`):
 * - `put` with `ifNoneMatch: "*"` creates the key only if absent; otherwise it
 *   throws StowageError("exists") and leaves the existing object untouched.
 * - `get` with `ifMatch` throws StowageError("precondition") when the ETag differs.
 * - `list` returns keys in lexicographic (UTF-8 byte) order, at most `maxKeys`
 *   per page, with `startAfter` and an opaque `continuationToken`.
 * - `listVersions` returns every version and delete marker of the keys in the same
 *   order (a key's newest first), paginated the same way; a store or bucket without
 *   versioning has one version per key, `versionId` "null" (S3's name for it).
 * - a missing key throws StowageError("not-found") from `get`/`head`; `delete`
 *   of a missing key succeeds.
 * - every call honours `signal` and throws StowageError("aborted") when it fires.
 * - integrity: every `put` and `uploadPart` sends the body's SHA-256, which the
 *   store verifies and keeps (`checksumSha256` on head/get); a `get` body whose
 *   bytes differ from a full-object checksum fails with StowageError("integrity").
 */
import type { Readable } from "node:stream";

/** User metadata: keys are lower-case, without the `x-amz-meta-` prefix. */
export type ObjectMetadata = Record<string, string>;

export interface PutOptions {
  /** `"*"`: create only if the key does not exist (S3 `If-None-Match: *`). */
  ifNoneMatch?: "*";
  contentType?: string | undefined;
  contentEncoding?: string;
  metadata?: ObjectMetadata;
  /** Object Lock retention for the new object (the bucket must have Object Lock enabled). */
  objectLock?: { mode: ObjectLockMode; retainUntil: Date } | undefined;
  signal?: AbortSignal | undefined;
}

export interface PutResult {
  etag: string;
  /** The new version's id on a versioned (e.g. Object Lock) bucket. */
  versionId?: string;
}

export interface GetOptions {
  /** Only return the object if its ETag equals this value (S3 `If-Match`). */
  ifMatch?: string;
  signal?: AbortSignal | undefined;
}

export interface ObjectInfo {
  key: string;
  size: number;
  etag: string;
  lastModified: Date;
  contentType?: string;
  contentEncoding?: string;
  metadata: ObjectMetadata;
  /** Stored SHA-256 (base64; multipart objects: composite `…-N`), when the object has one. */
  checksumSha256?: string;
  /** Object Lock retention, when the object has one. */
  objectLock?: { mode: ObjectLockMode; retainUntil: Date };
}

export type ObjectLockMode = "GOVERNANCE" | "COMPLIANCE";

export interface GetResult extends ObjectInfo {
  /** The object's bytes, as stored (no transparent decompression). */
  body: Readable;
}

export interface ListOptions {
  prefix?: string;
  startAfter?: string | undefined;
  continuationToken?: string | undefined;
  /** At most this many keys in the page (S3 caps at 1000). */
  maxKeys?: number;
  /** Roll keys up to their next `delimiter` ("/"): the folders below `prefix` come back in `commonPrefixes`. */
  delimiter?: string;
  signal?: AbortSignal | undefined;
}

export interface ListEntry {
  key: string;
  size: number;
  etag: string;
  lastModified: Date;
}

export interface ListPage {
  entries: ListEntry[];
  /** With `delimiter`: the folder prefixes (each ending with the delimiter), in order. */
  commonPrefixes?: string[];
  /** Present when more keys follow; pass back as `continuationToken`. */
  nextContinuationToken?: string;
}

export interface ListVersionsOptions {
  prefix?: string;
  /** Versions of keys after this one (S3 `KeyMarker`). */
  startAfter?: string | undefined;
  continuationToken?: string | undefined;
  /** At most this many versions and delete markers in the page (S3 caps at 1000). */
  maxKeys?: number;
  signal?: AbortSignal | undefined;
}

/** One version of a key (S3 ListObjectVersions): an object's bytes, or a delete marker. */
export interface VersionEntry {
  key: string;
  /** `"null"` for an object written while versioning was off (and on an unversioned store). */
  versionId: string;
  /** The key's current version (a delete marker here: the key reads as deleted). */
  isLatest: boolean;
  /** A delete marker hides the versions before it; their bytes stay stored. */
  deleteMarker: boolean;
  /** 0 for a delete marker. */
  size: number;
  lastModified: Date;
}

export interface VersionsPage {
  /** Keys in lexicographic order; each key's versions newest first. */
  versions: VersionEntry[];
  /** Present when more versions follow; pass back as `continuationToken`. */
  nextContinuationToken?: string;
}

export interface MultipartUpload {
  readonly key: string;
  readonly uploadId: string;
}

/** Object storage as Stowage uses it. */
export interface ObjectStore {
  /** Human-readable description for messages: `S3(bucket)` or `Local(path)`. Never contains secrets. */
  readonly description: string;
  put(key: string, body: Uint8Array | string, options?: PutOptions): Promise<PutResult>;
  get(key: string, options?: GetOptions): Promise<GetResult>;
  head(key: string, options?: { signal?: AbortSignal | undefined }): Promise<ObjectInfo>;
  list(options?: ListOptions): Promise<ListPage>;
  /**
   * Every version and delete marker under `prefix` (S3 ListObjectVersions): what
   * `stowage verify` needs to see an overwrite or a deletion that `list` hides.
   */
  listVersions(options?: ListVersionsOptions): Promise<VersionsPage>;
  /** Deletes the key (with `versionId`: that version, as a locked bucket requires to really remove bytes). */
  delete(
    key: string,
    options?: { signal?: AbortSignal | undefined; versionId?: string | undefined },
  ): Promise<void>;
  /** Starts a multipart upload (exports stream large objects through these). */
  startMultipart(key: string, options?: Omit<PutOptions, "ifNoneMatch">): Promise<MultipartUpload>;
  /** Uploads part `partNumber` (1-based; every part but the last ≥ 5 MiB on S3). */
  uploadPart(
    upload: MultipartUpload,
    partNumber: number,
    body: Uint8Array,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<{ etag: string }>;
  /** Completes the upload; the object becomes visible atomically. */
  completeMultipart(
    upload: MultipartUpload,
    parts: { partNumber: number; etag: string }[],
    options?: { signal?: AbortSignal | undefined },
  ): Promise<PutResult>;
  /** Aborts the upload and frees its parts. Aborting an unknown upload succeeds. */
  abortMultipart(
    upload: MultipartUpload,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<void>;
  /** Multipart uploads in progress under `prefix`. */
  listMultipartUploads(
    prefix: string,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<MultipartUpload[]>;
  /** Releases sockets/handles. Idempotent. */
  close(): void;
}
