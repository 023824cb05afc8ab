/**
 * Multipart uploads of the local-directory store: parts are files under
 * `.stowage-tmp/mpu-<id>/`; completion concatenates them into a fsynced temp file
 * and commits it through LocalStore's atomic commit (sidecar first, then object).
 */
import { createHash } from "node:crypto";
import { mkdir, open, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { throwIfAborted } from "../shared/abort.js";
import { StoreError } from "./classify-error.js";
import { randomHex } from "../shared/ids.js";
import type { MultipartUpload, PutOptions, PutResult } from "./object-store.js";
import { compositeChecksum, partChecksum } from "./checksum.js";

/** What the multipart code needs from its LocalStore. */
export interface LocalMultipartHost {
  /** Throws StoreError("usage") for a key the store refuses. */
  checkKey(key: string): void;
  /** Moves the fsynced temp file `tmp` into place as `key` (atomic, with its sidecar). */
  commitFile(
    key: string,
    tmp: string,
    base: { etag: string; size: number; checksumSha256: string },
    options: PutOptions,
  ): Promise<PutResult>;
}

/** A part's digests, taken when it is written: binary MD5 (its ETag) and base64 SHA-256. */
interface PartSums {
  md5: Buffer;
  sha256: string;
}

export class LocalMultipart {
  /**
   * Digests of the parts this process wrote, by upload id and part number, so that
   * completing does not hash every byte a second time (parts written by another process
   * are hashed when completed).
   */
  private readonly sums = new Map<string, Map<number, PartSums>>();

  constructor(
    private readonly tmpDir: string,
    private readonly host: LocalMultipartHost,
  ) {}

  private dirOf(upload: MultipartUpload): string {
    if (!/^[0-9a-f]{32}$/.test(upload.uploadId))
      throw new StoreError("not-found", `no such upload ${upload.uploadId}`);
    return join(this.tmpDir, `mpu-${upload.uploadId}`);
  }

  async start(key: string, options: Omit<PutOptions, "ifNoneMatch">): Promise<MultipartUpload> {
    throwIfAborted(options.signal);
    this.host.checkKey(key);
    const upload = { key, uploadId: randomHex(32) };
    await mkdir(this.dirOf(upload), { recursive: true });
    await writeFile(
      join(this.dirOf(upload), "upload.json"),
      JSON.stringify({ key, options: { ...options, signal: undefined } }),
    );
    return upload;
  }

  async uploadPart(
    upload: MultipartUpload,
    partNumber: number,
    body: Uint8Array,
    signal: AbortSignal | undefined,
  ): Promise<{ etag: string }> {
    throwIfAborted(signal);
    const dir = this.dirOf(upload);
    await stat(dir).catch(() => {
      throw new StoreError("not-found", `UploadPart ${upload.key}: no such upload`);
    });
    this.sums.get(upload.uploadId)?.delete(partNumber); // until this write is whole
    await writeFile(join(dir, `part-${String(partNumber).padStart(5, "0")}`), body);
    const sha256 = partChecksum(body);
    const sums = { md5: createHash("md5").update(body).digest(), sha256 };
    let known = this.sums.get(upload.uploadId);
    if (!known) this.sums.set(upload.uploadId, (known = new Map()));
    known.set(partNumber, sums);
    return { etag: `"${sums.md5.toString("hex")}"` };
  }

  async complete(
    upload: MultipartUpload,
    parts: { partNumber: number; etag: string }[],
    signal: AbortSignal | undefined,
  ): Promise<PutResult> {
    throwIfAborted(signal);
    const dir = this.dirOf(upload);
    let spec: { options: PutOptions };
    try {
      spec = JSON.parse(await readFile(join(dir, "upload.json"), "utf8")) as {
        options: PutOptions;
      };
    } catch {
      throw new StoreError("not-found", `CompleteMultipartUpload ${upload.key}: no such upload`);
    }
    const tmp = join(this.tmpDir, randomHex(24));
    const fh = await open(tmp, "wx");
    const md5s = createHash("md5");
    const sums: string[] = [];
    const known = this.sums.get(upload.uploadId);
    let size = 0;
    try {
      for (const p of parts) {
        const data = await readFile(join(dir, `part-${String(p.partNumber).padStart(5, "0")}`));
        const s = known?.get(p.partNumber);
        md5s.update(s?.md5 ?? createHash("md5").update(data).digest());
        sums.push(s?.sha256 ?? partChecksum(data));
        size += data.byteLength;
        await fh.write(data);
      }
      await fh.sync();
    } finally {
      await fh.close();
    }
    const etag = `"${md5s.digest("hex")}-${parts.length}"`;
    const res = await this.host.commitFile(
      upload.key,
      tmp,
      { etag, size, checksumSha256: compositeChecksum(sums) },
      spec.options,
    );
    await rm(dir, { recursive: true, force: true });
    this.sums.delete(upload.uploadId);
    return res;
  }

  async abort(upload: MultipartUpload, signal: AbortSignal | undefined): Promise<void> {
    throwIfAborted(signal);
    await rm(this.dirOf(upload), { recursive: true, force: true });
    this.sums.delete(upload.uploadId);
  }

  async list(prefix: string, signal: AbortSignal | undefined): Promise<MultipartUpload[]> {
    throwIfAborted(signal);
    const dir = this.tmpDir;
    const names = await readdir(dir).catch(() => [] as string[]);
    const out: MultipartUpload[] = [];
    for (const n of names.filter((x) => x.startsWith("mpu-")).sort()) {
      try {
        const { key } = JSON.parse(await readFile(join(dir, n, "upload.json"), "utf8")) as {
          key: string;
        };
        if (key.startsWith(prefix)) out.push({ key, uploadId: n.slice(4) });
      } catch {
        /* an upload being created or aborted concurrently */
      }
    }
    return out;
  }
}
