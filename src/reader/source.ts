/**
 * Sources (SPEC §5.1): `s3://bucket/prefix` or `file:///dir` turned into a
 * Source whose queries are bounded sessions. Opening validates everything it
 * can (URL, credentials source, endpoint policy §2.3) and makes NO request; the
 * store (and the AWS SDK) is loaded on the first load.
 * Invariants: one object cache per source, shared by its sessions; `description`
 * never contains credentials.
 */
import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { normalizePrefix } from "../v1-format/object-key.js";
import type { ObjectLockSpec, ResolvedS3Destination } from "../config/destination.js";
import { s3SourceDestination } from "../config/s3-source.js";
import type { CredentialIdentity, CredentialProvider } from "../config/destination-schema.js";
import { processEnv, type Env } from "../config/env.js";
import { READER_RETRY } from "../config/retry-defaults.js";
import type { ObjectStore } from "../store/object-store.js";
import { StowageError } from "../shared/errors.js";
import { ObjectCache, DEFAULT_CACHE_BYTES } from "./object-cache.js";
import { FollowSession, type Follow, type FollowOptions } from "./follow.js";
import { QuerySession, type SessionContext } from "./session.js";
import type { QueryOptions, ReaderSession, Source } from "./types.js";

/** Options of `openSource` (S3 settings as SPEC §2.1–§2.3; the rest tune the reader). */
export interface OpenSourceOptions {
  region?: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  /** A named profile of the shared AWS config/credentials files. */
  profile?: string;
  credentials?: CredentialIdentity | CredentialProvider;
  /** Names (not values) of environment variables holding the keys. */
  accessKeyEnv?: string;
  secretKeyEnv?: string;
  sessionTokenEnv?: string;
  /** Unsigned requests; loopback endpoints only. */
  allowAnonymous?: boolean;
  /** Trust a non-loopback, non-provider endpoint (§2.3); or list hosts in `trustedHosts`. */
  trustEndpoint?: boolean;
  trustedHosts?: string[] | undefined;
  /** Environment for `*Env` names and STOWAGE_TRUSTED_ENDPOINTS. Default: the process's. */
  env?: Env;
  /** Base for relative local paths. Default: the process's working directory. */
  cwd?: string;
  /** Per HTTP attempt. Default 10,000 ms. */
  requestTimeoutMs?: number;
  /** Memory bound of the decoded-object cache. Default 64 MiB; 0 disables it. */
  cacheBytes?: number;
  /** Base wait between retried attempts. Default 100 ms (exponential, capped at 2 s). */
  retryBackoffMs?: number;
  /** LISTs and GETs sent ahead of the decoder. Default 4; 1 = one request at a time. */
  concurrency?: number;
  /** The writer config's Object Lock: objects read without it are marked unverified (docs/retention.md). */
  objectLock?: ObjectLockSpec;
}

/** Options of `createSource`: a source over a store you already hold. */
export interface CreateSourceOptions {
  /** Key prefix the logger wrote under ("" for none). */
  prefix?: string;
  description?: string;
  cacheBytes?: number;
  retryBackoffMs?: number;
  /** Keys per LIST page. Default 1000 (the S3 maximum). */
  listPageSize?: number;
  /** LISTs and GETs sent ahead of the decoder. Default 4; 1 = one request at a time. */
  concurrency?: number;
  /** The writer config's Object Lock: objects read without it are marked unverified (docs/retention.md). */
  objectLock?: ObjectLockSpec;
}

/** Requests in flight per session by default: hides round trips without hammering the provider. */
export const DEFAULT_CONCURRENCY = 4;

class StoreSource implements Source {
  private readonly cache: ObjectCache;
  private readonly ctx: SessionContext;
  private opened: Promise<ObjectStore> | undefined;
  private closed = false;

  constructor(
    readonly description: string,
    private readonly open: () => Promise<ObjectStore>,
    private readonly owned: boolean,
    options: CreateSourceOptions,
  ) {
    this.cache = new ObjectCache(options.cacheBytes ?? DEFAULT_CACHE_BYTES);
    this.ctx = {
      store: () => this.store(),
      prefix: normalizePrefix(options.prefix ?? ""),
      cache: this.cache,
      retryBackoffMs: options.retryBackoffMs ?? READER_RETRY.initialBackoffMs,
      listPageSize: Math.max(1, Math.min(options.listPageSize ?? 1000, 1000)),
      concurrency: Math.max(
        1,
        Math.min(Math.floor(options.concurrency ?? DEFAULT_CONCURRENCY), 32),
      ),
      ...(options.objectLock ? { verification: { objectLock: options.objectLock } } : {}),
    };
  }

  private store(): Promise<ObjectStore> {
    if (this.closed)
      return Promise.reject(
        new StowageError("usage", `source ${this.description} is closed; open it again`),
      );
    this.opened ??= this.open();
    return this.opened;
  }

  query(options: QueryOptions): ReaderSession {
    return new QuerySession(this.ctx, options);
  }

  follow(options: FollowOptions): Follow {
    return new FollowSession(this.ctx, options);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.cache.clear();
    if (this.owned)
      void this.opened?.then(
        (s) => s.close(),
        () => undefined,
      );
  }
}

/**
 * A Source over an existing ObjectStore (Studio with a configured destination, tests).
 * The store stays yours: `close()` does not close it.
 * @example const source = createSource(new LocalStore({ root: ".stowage/store" }), { prefix: "app" });
 */
export function createSource(store: ObjectStore, options: CreateSourceOptions = {}): Source {
  const prefix = normalizePrefix(options.prefix ?? "");
  return new StoreSource(
    options.description ?? `${store.description}${prefix ? `/${prefix}` : ""}`,
    async () => store,
    false,
    options,
  );
}

/**
 * Opens `s3://bucket/prefix` or `file:///dir` (the directory holding `v1/`; a bare
 * path works too). Validates the URL, the credential source and the endpoint
 * policy now; makes no storage request until a session loads.
 * @example
 * const source = openSource("s3://logs/app", { region: "eu-west-1" });
 * const result = await source.query({ from: Date.now() - 3_600_000, to: Date.now() }).load();
 */
export function openSource(url: string, options: OpenSourceOptions = {}): Source {
  const tune = {
    ...(options.cacheBytes !== undefined ? { cacheBytes: options.cacheBytes } : {}),
    ...(options.retryBackoffMs !== undefined ? { retryBackoffMs: options.retryBackoffMs } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.objectLock ? { objectLock: options.objectLock } : {}),
  };
  const text = String(url ?? "").trim();
  if (/^s3:/i.test(text)) {
    const dest = s3Destination(text, options);
    const env = options.env ?? processEnv();
    const description = `s3://${dest.bucket}${dest.prefix ? `/${dest.prefix}` : ""}`;
    const open = async () => {
      const { openStore } = await import("../store/open-store.js");
      return openStore(dest, {
        env,
        ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      }).store;
    };
    return new StoreSource(description, open, true, { prefix: dest.prefix, ...tune });
  }
  const root = localRoot(text, options.cwd);
  const open = async () => {
    await checkLocalRoot(root);
    const { LocalStore } = await import("../store/local-store.js");
    return new LocalStore({ root });
  };
  return new StoreSource(`file://${root}`, open, true, tune);
}

/**
 * A missing local store is an error, not an empty answer (`stowage logs` checks it on the
 * first load; `compact` and `verify` before they start).
 * @example await checkLocalRoot("/var/log/app/store")
 */
export async function checkLocalRoot(root: string): Promise<void> {
  let st;
  try {
    st = await stat(root);
  } catch (err) {
    throw new StowageError("storage", `the store ${root} does not exist`, {
      cause: err,
      hint: "pass the directory that holds v1/ (the demo writes .stowage/demo/store), or an s3:// URL",
    });
  }
  if (!st.isDirectory())
    throw new StowageError("storage", `the store ${root} is a file, not a directory`, {
      hint: "pass the directory that holds v1/, not a file inside it",
    });
}

function localRoot(text: string, cwd: string | undefined): string {
  if (/^file:/i.test(text)) {
    try {
      return fileURLToPath(new URL(text));
    } catch {
      throw new StowageError(
        "usage",
        `source "${text.slice(0, 80)}" is not a file URL; write file:///absolute/dir (the directory that holds v1/)`,
      );
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || text === "") {
    throw new StowageError(
      "usage",
      `source "${text.slice(0, 80)}" is not supported; use s3://bucket/prefix or file:///dir (or a directory path)`,
    );
  }
  return isAbsolute(text) ? text : resolve(cwd ?? process.cwd(), text);
}

function s3Destination(text: string, options: OpenSourceOptions): ResolvedS3Destination {
  return s3SourceDestination(text, options, options.env ?? processEnv(), "source");
}
