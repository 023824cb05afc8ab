/**
 * LocalStore: the local-directory store (SPEC §3.4) — the same keys, metadata
 * and list semantics as S3, on a filesystem. The embedded default destination.
 *
 * On disk, under `root`:
 * - `<key>`: the object's bytes, exactly as given (plain files: other tools can glob them);
 * - `<dir>/.<name>.stowage-meta`: JSON sidecar {etag, size, contentType, contentEncoding, metadata,
 *   checksumSha256, objectLock} — the SHA-256 is checked on every GET, like S3's;
 * - `.stowage-tmp/`: temp files and multipart parts; never listed.
 * Invariants:
 * - Creation is atomic and exclusive: temp files are written and fsynced, then the
 *   sidecar is hard-linked into place (link fails if it exists: that claims the key),
 *   then the object. So a visible object always has its sidecar; nothing is overwritten
 *   when `ifNoneMatch: "*"` is set.
 * - A sidecar without an object (a crash between the two links) still counts as
 *   "exists" for a conditional put: never overwrite, the caller's HEAD will see not-found.
 * - Listing is in UTF-8 byte order of the full key with S3's pagination semantics.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import {
  link,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rmdir,
  rm,
  stat,
  unlink,
} from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { StowageError } from "../shared/errors.js";
import { StoreError } from "./classify-error.js";
import { randomHex } from "../shared/ids.js";
import { throwIfAborted } from "../shared/abort.js";
import { LocalMultipart } from "./local-multipart.js";
import { sha256Base64Async, verifyingStream } from "./checksum.js";
import type {
  GetOptions,
  GetResult,
  ListEntry,
  ListOptions,
  ListPage,
  ListVersionsOptions,
  MultipartUpload,
  ObjectInfo,
  ObjectLockMode,
  ObjectStore,
  PutOptions,
  PutResult,
  VersionsPage,
} from "./object-store.js";

const TMP = ".stowage-tmp";
const META_RE = /^\..+\.stowage-meta$/;

interface Sidecar {
  etag: string;
  size: number;
  contentType?: string;
  contentEncoding?: string;
  metadata: Record<string, string>;
  checksumSha256?: string;
  objectLock?: { mode: ObjectLockMode; retainUntil: string };
}

export interface LocalStoreOptions {
  /** Directory holding the objects; created on first write. */
  root: string;
}

/**
 * @example
 * const store = new LocalStore({ root: ".stowage/store" });
 * await store.put("app/v1/2026/01/01/00/x.ndjson.gz", bytes, { ifNoneMatch: "*" });
 */
export class LocalStore implements ObjectStore {
  readonly root: string;
  readonly description: string;

  constructor(options: LocalStoreOptions) {
    this.root = options.root;
    this.description = `Local(${options.root})`;
    this.multipart = new LocalMultipart(join(this.root, TMP), {
      checkKey: (key) => void this.pathOf(key),
      commitFile: (key, tmp, base, options) =>
        this.commit(key, this.pathOf(key), tmp, base, options),
    });
  }

  private pathOf(key: string): string {
    const parts = key.split("/");
    if (
      !key ||
      key.startsWith("/") ||
      parts.some((p) => p === "" || p === "." || p === "..") ||
      key.includes("\\") ||
      key.includes("\0")
    ) {
      throw new StoreError(
        "usage",
        `invalid object key "${key}": use non-empty segments separated by single "/", without "." or ".."`,
      );
    }
    if (parts[0] === TMP || META_RE.test(parts[parts.length - 1]!)) {
      throw new StoreError(
        "usage",
        `invalid object key "${key}": the name is reserved by the local store`,
      );
    }
    return join(this.root, ...parts);
  }

  private sidecarOf(path: string): string {
    return join(dirname(path), `.${path.slice(dirname(path).length + 1)}.stowage-meta`);
  }

  private async tmpFile(data: Uint8Array | string): Promise<string> {
    const dir = join(this.root, TMP);
    await mkdir(dir, { recursive: true });
    const p = join(dir, randomHex(24));
    const fh = await open(p, "wx");
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    return p;
  }

  async put(key: string, body: Uint8Array | string, options: PutOptions = {}): Promise<PutResult> {
    throwIfAborted(options.signal);
    const path = this.pathOf(key);
    const bytes = typeof body === "string" ? Buffer.from(body) : body;
    const etag = `"${createHash("md5").update(bytes).digest("hex")}"`;
    const checksumSha256 = await sha256Base64Async(bytes);
    return this.commit(
      key,
      path,
      await this.tmpFile(bytes),
      { etag, size: bytes.byteLength, checksumSha256 },
      options,
    );
  }

  /** Moves a fsynced temp file into place with its sidecar (exclusively if asked). */
  private async commit(
    key: string,
    path: string,
    tmpData: string,
    base: { etag: string; size: number; checksumSha256: string },
    options: PutOptions,
  ): Promise<PutResult> {
    const sidecar: Sidecar = {
      ...base,
      ...(options.objectLock
        ? {
            objectLock: {
              mode: options.objectLock.mode,
              retainUntil: new Date(options.objectLock.retainUntil).toISOString(),
            },
          }
        : {}),
      ...(options.contentType ? { contentType: options.contentType } : {}),
      ...(options.contentEncoding ? { contentEncoding: options.contentEncoding } : {}),
      metadata: Object.fromEntries(
        Object.entries(options.metadata ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
      ),
    };
    const tmpMeta = await this.tmpFile(JSON.stringify(sidecar));
    try {
      throwIfAborted(options.signal);
      const dir = dirname(path);
      if (options.ifNoneMatch === "*") {
        try {
          await inDir(dir, () => link(tmpMeta, this.sidecarOf(path)));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === "EEXIST")
            throw new StoreError("exists", `${key} already exists`);
          throw err;
        }
        await inDir(dir, () => link(tmpData, path));
      } else {
        await inDir(dir, () => rename(tmpMeta, this.sidecarOf(path)));
        await inDir(dir, () => rename(tmpData, path));
      }
      return { etag: sidecar.etag };
    } catch (err) {
      throw err instanceof StowageError
        ? err
        : new StoreError("storage", `PUT ${key}: ${(err as Error).message}`, { cause: err });
    } finally {
      await rm(tmpMeta, { force: true });
      await rm(tmpData, { force: true });
    }
  }

  private async info(key: string): Promise<ObjectInfo> {
    const path = this.pathOf(key);
    let st;
    try {
      st = await stat(path);
      if (!st.isFile()) throw Object.assign(new Error("not a file"), { code: "ENOENT" });
    } catch (err) {
      if (
        (err as NodeJS.ErrnoException).code === "ENOENT" ||
        (err as NodeJS.ErrnoException).code === "ENOTDIR"
      )
        throw new StoreError("not-found", `${key}: no such key`);
      throw new StoreError("storage", `${key}: ${(err as Error).message}`, { cause: err });
    }
    const side = await this.readSidecar(path);
    return {
      key,
      size: st.size,
      etag: side?.etag ?? `"${st.size}-${st.mtimeMs}"`,
      lastModified: st.mtime,
      ...(side?.contentType ? { contentType: side.contentType } : {}),
      ...(side?.contentEncoding ? { contentEncoding: side.contentEncoding } : {}),
      metadata: side?.metadata ?? {},
      ...(side?.checksumSha256 ? { checksumSha256: side.checksumSha256 } : {}),
      ...(side?.objectLock
        ? {
            objectLock: {
              mode: side.objectLock.mode,
              retainUntil: new Date(side.objectLock.retainUntil),
            },
          }
        : {}),
    };
  }

  private async readSidecar(path: string): Promise<Sidecar | undefined> {
    try {
      return JSON.parse(await readFile(this.sidecarOf(path), "utf8")) as Sidecar;
    } catch {
      return undefined;
    }
  }

  async head(key: string, options: { signal?: AbortSignal | undefined } = {}): Promise<ObjectInfo> {
    throwIfAborted(options.signal);
    return this.info(key);
  }

  async get(key: string, options: GetOptions = {}): Promise<GetResult> {
    throwIfAborted(options.signal);
    const info = await this.info(key);
    if (options.ifMatch !== undefined && options.ifMatch !== info.etag) {
      throw new StoreError(
        "precondition",
        `GET ${key}: ETag ${info.etag} does not match If-Match ${options.ifMatch}`,
      );
    }
    const raw = createReadStream(
      this.pathOf(key),
      options.signal ? { signal: options.signal } : {},
    );
    const body = info.checksumSha256 ? verifyingStream(raw, key, info.checksumSha256) : raw;
    return { ...info, body };
  }

  async list(options: ListOptions = {}): Promise<ListPage> {
    throwIfAborted(options.signal);
    const prefix = options.prefix ?? "";
    const maxKeys = Math.max(1, Math.min(options.maxKeys ?? 1000, 1000));
    const after = options.continuationToken
      ? Buffer.from(options.continuationToken, "base64url").toString("utf8")
      : (options.startAfter ?? "");
    const dirKey = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "";
    const keys = new Set<string>();
    const cut = options.delimiter;
    await this.walk(
      dirKey,
      (k) => {
        if (!k.startsWith(prefix)) return;
        // With a delimiter, a key below the next delimiter is rolled up into its folder (S3 semantics).
        const at = cut ? k.indexOf(cut, prefix.length) : -1;
        const item = at === -1 ? k : k.slice(0, at + cut!.length);
        if (Buffer.compare(Buffer.from(item), Buffer.from(after)) > 0) keys.add(item);
      },
      options.signal,
    );
    const sorted = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const page = sorted.slice(0, maxKeys);
    const entries: ListEntry[] = [];
    const commonPrefixes: string[] = [];
    for (const key of page) {
      if (cut && key.endsWith(cut) && key.length > prefix.length) {
        commonPrefixes.push(key);
        continue;
      }
      const st = await stat(this.pathOf(key));
      const side = await this.readSidecar(this.pathOf(key));
      entries.push({
        key,
        size: st.size,
        etag: side?.etag ?? `"${st.size}-${st.mtimeMs}"`,
        lastModified: st.mtime,
      });
    }
    const last = page[page.length - 1];
    return {
      entries,
      ...(cut ? { commonPrefixes } : {}),
      ...(sorted.length > maxKeys && last
        ? { nextContinuationToken: Buffer.from(last).toString("base64url") }
        : {}),
    };
  }

  /** The local store keeps one version per key: each listed key is its own current version. */
  async listVersions(options: ListVersionsOptions = {}): Promise<VersionsPage> {
    const page = await this.list(options);
    return {
      versions: page.entries.map((e) => ({
        key: e.key,
        versionId: "null",
        isLatest: true,
        deleteMarker: false,
        size: e.size,
        lastModified: e.lastModified,
      })),
      ...(page.nextContinuationToken ? { nextContinuationToken: page.nextContinuationToken } : {}),
    };
  }

  private async walk(
    dirKey: string,
    visit: (key: string) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    throwIfAborted(signal);
    const dir = dirKey ? join(this.root, ...dirKey.split("/")) : this.root;
    let names;
    try {
      names = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (
        (err as NodeJS.ErrnoException).code === "ENOENT" ||
        (err as NodeJS.ErrnoException).code === "ENOTDIR"
      )
        return;
      throw new StoreError("storage", `LIST ${dirKey}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    for (const d of names) {
      const key = dirKey ? `${dirKey}/${d.name}` : d.name;
      if (!dirKey && d.name === TMP) continue;
      if (d.isDirectory()) await this.walk(key, visit, signal);
      else if (d.isFile() && !META_RE.test(d.name)) visit(key);
    }
  }

  async delete(key: string, options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    throwIfAborted(options.signal);
    const path = this.pathOf(key);
    const lock = (await this.readSidecar(path))?.objectLock;
    if (lock && Date.parse(lock.retainUntil) > Date.now())
      throw new StoreError(
        "storage",
        `DELETE ${key}: the object is locked (${lock.mode}) until ${lock.retainUntil}`,
        { cause: Object.assign(new Error("object is WORM protected"), { name: "AccessDenied" }) },
      );
    await unlink(path).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "ENOENT")
        throw new StoreError("storage", `DELETE ${key}: ${err.message}`, { cause: err });
    });
    await rm(this.sidecarOf(path), { force: true });
    await this.pruneEmptyDirs(dirname(path));
  }

  /** Removes now-empty folders up to the root: like S3, a prefix exists only while it holds keys. */
  private async pruneEmptyDirs(dir: string): Promise<void> {
    const root = resolve(this.root);
    for (let d = resolve(dir); d.startsWith(root + sep) && d !== root; d = dirname(d)) {
      try {
        await rmdir(d);
      } catch {
        return; // not empty (or already gone): stop
      }
    }
  }

  // Multipart uploads: parts under .stowage-tmp/, completed through the same atomic commit.
  private readonly multipart: LocalMultipart;

  startMultipart(
    key: string,
    options: Omit<PutOptions, "ifNoneMatch"> = {},
  ): Promise<MultipartUpload> {
    return this.multipart.start(key, options);
  }

  uploadPart(
    upload: MultipartUpload,
    partNumber: number,
    body: Uint8Array,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<{ etag: string }> {
    return this.multipart.uploadPart(upload, partNumber, body, options.signal);
  }

  completeMultipart(
    upload: MultipartUpload,
    parts: { partNumber: number; etag: string }[],
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<PutResult> {
    return this.multipart.complete(upload, parts, options.signal);
  }

  abortMultipart(
    upload: MultipartUpload,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<void> {
    return this.multipart.abort(upload, options.signal);
  }

  listMultipartUploads(
    prefix: string,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<MultipartUpload[]> {
    return this.multipart.list(prefix, options.signal);
  }

  close(): void {}
}

/**
 * Runs a link/rename into `dir`, creating it first; if a concurrent delete pruned
 * the folder in between (ENOENT), creates it again and retries.
 */
async function inDir<T>(dir: string, op: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    await mkdir(dir, { recursive: true });
    try {
      return await op();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" || attempt >= 5) throw err;
    }
  }
}
