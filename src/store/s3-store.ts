/**
 * S3Store: the ObjectStore on the AWS SDK v3, for AWS S3, R2, MinIO and other
 * S3-compatible providers. Keep-alive sockets, a per-attempt timeout, and SDK
 * retries off by default (maxAttempts 1): callers own their retry policy so
 * every attempt is counted (delivery backoff, reader allowances).
 */
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import type { Readable } from "node:stream";
import type { S3Client, S3ClientConfig } from "@aws-sdk/client-s3";
import type {
  AwsCredentialIdentity,
  AwsCredentialIdentityProvider,
  BuildHandler,
  BuildHandlerArguments,
  FinalizeHandler,
  FinalizeHandlerArguments,
  MetadataBearer,
} from "@smithy/types";
import { httpHandlerSdk, s3Sdk, withoutSdkNodeWarning } from "./aws-sdk.js";
import type {
  GetOptions,
  GetResult,
  ListOptions,
  ListPage,
  ListVersionsOptions,
  MultipartUpload,
  ObjectInfo,
  ObjectStore,
  PutOptions,
  PutResult,
  VersionsPage,
} from "./object-store.js";
import { listVersions } from "./s3-versions.js";
import { StoreError } from "./classify-error.js";
import { toStoreError } from "./store-errors.js";
import { sha256Base64Async, verifyingStream } from "./checksum.js";
import {
  abortMultipart,
  completeMultipart,
  listMultipartUploads,
  startMultipart,
  uploadPart,
  type S3Call,
} from "./s3-multipart.js";

export interface S3StoreOptions {
  bucket: string;
  region?: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Send really unsigned requests (anonymous emulators; loopback only, checked by config). */
  anonymous?: boolean;
  /** Per HTTP attempt, including waiting for the response headers. Default 10,000. */
  requestTimeoutMs?: number;
  /** SDK attempts per call. Default 1: Stowage's callers retry and count themselves. */
  maxAttempts?: number;
  /** Keep-alive sockets per host. Default 16. */
  maxSockets?: number;
}

const UNSIGNED_HEADERS = [
  "authorization",
  "x-amz-date",
  "x-amz-security-token",
  "x-amz-content-sha256",
];

/**
 * @example
 * const store = new S3Store({ bucket: "logs", region: "eu-west-1" });
 * await store.put("a/b.ndjson.gz", body, { ifNoneMatch: "*" });
 */
export class S3Store implements ObjectStore {
  readonly bucket: string;
  readonly client: S3Client;
  readonly description: string;
  private readonly timeoutMs: number;

  constructor(options: S3StoreOptions) {
    this.bucket = options.bucket;
    this.description = `S3(${options.bucket})`;
    this.timeoutMs = options.requestTimeoutMs ?? 10_000;
    const maxSockets = options.maxSockets ?? 16;
    const { S3Client } = s3Sdk();
    const { NodeHttpHandler } = httpHandlerSdk();
    const config = {
      // No region given: the SDK resolves one (AWS_REGION, the shared config profile, …).
      ...(options.region ? { region: options.region } : {}),
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      // Pin the endpoint config resolved (and the endpoint policy judged): AWS_ENDPOINT_URL(_S3)
      // and a profile's endpoint_url must not redirect data and signed requests elsewhere.
      ignoreConfiguredEndpointUrls: true,
      forcePathStyle: options.forcePathStyle ?? false,
      maxAttempts: options.maxAttempts ?? 1,
      ...(options.anonymous
        ? { credentials: { accessKeyId: "anonymous", secretAccessKey: "anonymous" } }
        : options.credentials
          ? { credentials: options.credentials }
          : {}),
      // Non-AWS providers (MinIO, R2) reject or ignore the SDK's default CRC checksums.
      ...(options.endpoint
        ? {
            requestChecksumCalculation: "WHEN_REQUIRED" as const,
            responseChecksumValidation: "WHEN_REQUIRED" as const,
          }
        : {}),
      requestHandler: new NodeHttpHandler({
        httpAgent: new HttpAgent({ keepAlive: true, maxSockets }),
        httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets }),
        connectionTimeout: Math.min(this.timeoutMs, 5_000),
        requestTimeout: this.timeoutMs,
      }),
    } satisfies S3ClientConfig;
    this.client = withoutSdkNodeWarning(() => new S3Client(config));
    // A body sent with its SHA-256 checksum (every PUT and part Stowage sends) is signed with
    // that digest: the signer would otherwise hash the same bytes a second time.
    this.client.middlewareStack.add(
      (next: BuildHandler<object, MetadataBearer>) =>
        async (args: BuildHandlerArguments<object>) => {
          const headers = (args.request as { headers?: Record<string, string> }).headers;
          const sum = headers?.["x-amz-checksum-sha256"];
          if (headers && sum && !options.anonymous)
            headers["x-amz-content-sha256"] = Buffer.from(sum, "base64").toString("hex");
          return next(args);
        },
      { step: "build", name: "stowageSignedChecksum" },
    );
    if (options.anonymous) {
      // Really unsigned: strip what the signer added (SPEC §2.2 step 5).
      this.client.middlewareStack.addRelativeTo(
        (next: FinalizeHandler<object, MetadataBearer>) =>
          async (args: FinalizeHandlerArguments<object>) => {
            const headers = (args.request as { headers?: Record<string, string> }).headers;
            if (headers) for (const h of UNSIGNED_HEADERS) delete headers[h];
            return next(args);
          },
        {
          relation: "after",
          toMiddleware: "httpSigningMiddleware",
          name: "stowageUnsigned",
          override: true,
        },
      );
    }
    this.call = {
      client: this.client,
      bucket: this.bucket,
      partChecksums: new Map(),
      send: (w, sig, fn) => this.send(w, sig, fn),
    };
  }

  /** The client, bucket and timed send, for the multipart operations (s3-multipart.ts). */
  private readonly call: S3Call;

  /** Runs one SDK call under the caller's signal plus the per-attempt timeout. */
  private async send<T>(
    what: string,
    signal: AbortSignal | undefined,
    fn: (abortSignal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.timeoutMs);
    const abortSignal = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    try {
      return await fn(abortSignal);
    } catch (err) {
      throw toStoreError(err, what, {
        callerAborted: Boolean(signal?.aborted),
        timedOut: timeout.signal.aborted && !signal?.aborted,
        timeoutMs: this.timeoutMs,
        bucket: this.bucket,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  async put(key: string, body: Uint8Array | string, options: PutOptions = {}): Promise<PutResult> {
    // Integrity: the server verifies the digest and keeps it (GET/HEAD return it).
    const checksum = await sha256Base64Async(body);
    const res = await this.send(`PUT ${key}`, options.signal, (abortSignal) =>
      this.client.send(
        new (s3Sdk().PutObjectCommand)({
          Bucket: this.bucket,
          Key: key,
          Body: body,
          ChecksumSHA256: checksum,
          ...(options.objectLock
            ? {
                ObjectLockMode: options.objectLock.mode,
                ObjectLockRetainUntilDate: options.objectLock.retainUntil,
              }
            : {}),
          ...(options.ifNoneMatch ? { IfNoneMatch: options.ifNoneMatch } : {}),
          ...(options.contentType ? { ContentType: options.contentType } : {}),
          ...(options.contentEncoding ? { ContentEncoding: options.contentEncoding } : {}),
          ...(options.metadata ? { Metadata: options.metadata } : {}),
        }),
        { abortSignal },
      ),
    ).catch((err: unknown) => {
      if (options.ifNoneMatch && err instanceof StoreError && err.code === "precondition") {
        throw new StoreError("exists", `${key} already exists`, { cause: err.cause });
      }
      throw err;
    });
    return { etag: res.ETag ?? "", ...(res.VersionId ? { versionId: res.VersionId } : {}) };
  }

  async get(key: string, options: GetOptions = {}): Promise<GetResult> {
    const res = await this.send(`GET ${key}`, options.signal, (abortSignal) =>
      this.client.send(
        new (s3Sdk().GetObjectCommand)({
          Bucket: this.bucket,
          Key: key,
          ChecksumMode: "ENABLED",
          ...(options.ifMatch ? { IfMatch: options.ifMatch } : {}),
        }),
        {
          abortSignal,
        },
      ),
    );
    const raw = res.Body as Readable;
    const body = res.ChecksumSHA256 ? verifyingStream(raw, key, res.ChecksumSHA256) : raw;
    if (options.signal) {
      const onAbort = () => body.destroy(new StoreError("aborted", "the operation was aborted"));
      options.signal.addEventListener("abort", onAbort, { once: true });
      body.once("close", () => options.signal?.removeEventListener("abort", onAbort));
    }
    return { ...infoOf(key, res), body };
  }

  async head(key: string, options: { signal?: AbortSignal | undefined } = {}): Promise<ObjectInfo> {
    const res = await this.send(`HEAD ${key}`, options.signal, (abortSignal) =>
      this.client.send(
        new (s3Sdk().HeadObjectCommand)({ Bucket: this.bucket, Key: key, ChecksumMode: "ENABLED" }),
        { abortSignal },
      ),
    );
    return infoOf(key, res);
  }

  async list(options: ListOptions = {}): Promise<ListPage> {
    const res = await this.send(`LIST ${options.prefix ?? ""}`, options.signal, (abortSignal) =>
      this.client.send(
        new (s3Sdk().ListObjectsV2Command)({
          Bucket: this.bucket,
          ...(options.prefix ? { Prefix: options.prefix } : {}),
          ...(options.startAfter ? { StartAfter: options.startAfter } : {}),
          ...(options.continuationToken ? { ContinuationToken: options.continuationToken } : {}),
          ...(options.maxKeys ? { MaxKeys: options.maxKeys } : {}),
          ...(options.delimiter ? { Delimiter: options.delimiter } : {}),
        }),
        { abortSignal },
      ),
    );
    return {
      entries: (res.Contents ?? []).map((c) => ({
        key: c.Key ?? "",
        size: c.Size ?? 0,
        etag: c.ETag ?? "",
        lastModified: c.LastModified ?? new Date(0),
      })),
      ...(options.delimiter
        ? { commonPrefixes: (res.CommonPrefixes ?? []).map((c) => c.Prefix ?? "") }
        : {}),
      ...(res.IsTruncated && res.NextContinuationToken
        ? { nextContinuationToken: res.NextContinuationToken }
        : {}),
    };
  }

  listVersions(options: ListVersionsOptions = {}): Promise<VersionsPage> {
    return listVersions(this.call, options);
  }

  async delete(
    key: string,
    options: { signal?: AbortSignal | undefined; versionId?: string } = {},
  ): Promise<void> {
    await this.send(`DELETE ${key}`, options.signal, (abortSignal) =>
      this.client.send(
        new (s3Sdk().DeleteObjectCommand)({
          Bucket: this.bucket,
          Key: key,
          ...(options.versionId ? { VersionId: options.versionId } : {}),
        }),
        { abortSignal },
      ),
    );
  }

  startMultipart(
    key: string,
    options: Omit<PutOptions, "ifNoneMatch"> = {},
  ): Promise<MultipartUpload> {
    return startMultipart(this.call, key, options);
  }

  uploadPart(
    upload: MultipartUpload,
    partNumber: number,
    body: Uint8Array,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<{ etag: string }> {
    return uploadPart(this.call, upload, partNumber, body, options.signal);
  }

  completeMultipart(
    upload: MultipartUpload,
    parts: { partNumber: number; etag: string }[],
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<PutResult> {
    return completeMultipart(this.call, upload, parts, options.signal);
  }

  abortMultipart(
    upload: MultipartUpload,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<void> {
    return abortMultipart(this.call, upload, options.signal);
  }

  listMultipartUploads(
    prefix: string,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<MultipartUpload[]> {
    return listMultipartUploads(this.call, prefix, options.signal);
  }

  close(): void {
    this.client.destroy();
  }
}

function infoOf(
  key: string,
  res: {
    ContentLength?: number | undefined;
    ETag?: string | undefined;
    LastModified?: Date | undefined;
    ContentType?: string | undefined;
    ContentEncoding?: string | undefined;
    Metadata?: Record<string, string> | undefined;
    ChecksumSHA256?: string | undefined;
    ObjectLockMode?: string | undefined;
    ObjectLockRetainUntilDate?: Date | undefined;
  },
): ObjectInfo {
  return {
    key,
    size: res.ContentLength ?? 0,
    etag: res.ETag ?? "",
    lastModified: res.LastModified ?? new Date(0),
    ...(res.ContentType ? { contentType: res.ContentType } : {}),
    ...(res.ContentEncoding ? { contentEncoding: res.ContentEncoding } : {}),
    metadata: lowerKeys(res.Metadata ?? {}),
    ...(res.ChecksumSHA256 ? { checksumSha256: res.ChecksumSHA256 } : {}),
    ...((res.ObjectLockMode === "GOVERNANCE" || res.ObjectLockMode === "COMPLIANCE") &&
    res.ObjectLockRetainUntilDate
      ? {
          objectLock: {
            mode: res.ObjectLockMode,
            retainUntil: new Date(res.ObjectLockRetainUntilDate),
          },
        }
      : {}),
  };
}

function lowerKeys(m: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m)) out[k.toLowerCase()] = v;
  return out;
}
