/**
 * `stowage verify --depth full` on one log object: download it (the store re-hashes the
 * bytes against the stored SHA-256 while they stream), decode it, and count its lines
 * against the `records` and `decoded-bytes` metadata.
 * A body that fails its checksum or its gzip decode may have been damaged on the way
 * (one flipped byte in flight reads exactly like a corrupt stored object): it is
 * downloaded once more, and reported only when the second copy fails too (issue 31 §2).
 */
import { StringDecoder } from "node:string_decoder";
import { createGunzip } from "node:zlib";
import { META } from "../v1-format/object-key.js";
import { isStowageError } from "../shared/errors.js";
import type { ObjectStore } from "../store/object-store.js";
import { withRetry, type RetryPolicyOptions } from "../store/retry-policy.js";

/** What a body read costs, added to the report by the caller. */
export interface BodyCounters {
  get: number;
  downloadedBytes: number;
}

interface BodyOutcome {
  problems: string[];
  /** True when the bytes themselves failed (checksum, gzip): worth one more download. */
  damaged: boolean;
}

/** Longest line decoded before the object is called foreign (a v1 line is far shorter). */
const MAX_LINE_CHARS = 8 * 1024 * 1024;

/**
 * Problems of the object's body (empty when intact); a damaged body is read twice.
 * @example const problems = await checkBody(store, key, info.metadata, counters, retry, { signal });
 */
export async function checkBody(
  store: ObjectStore,
  key: string,
  metadata: Record<string, string>,
  counters: BodyCounters,
  retry: RetryPolicyOptions,
  hooks: { signal?: AbortSignal | undefined },
): Promise<string[]> {
  const first = await readBody(store, key, metadata, counters, retry, hooks);
  if (!first.damaged) return first.problems;
  const second = await readBody(store, key, metadata, counters, retry, hooks);
  return second.damaged
    ? second.problems.map(
        (p) => `${p} (the same on a second download: stored so, not damaged in flight)`,
      )
    : second.problems;
}

async function readBody(
  store: ObjectStore,
  key: string,
  metadata: Record<string, string>,
  counters: BodyCounters,
  retry: RetryPolicyOptions,
  hooks: { signal?: AbortSignal | undefined },
): Promise<BodyOutcome> {
  const got = await withRetry(
    () => {
      counters.get++;
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
    got.body.on("data", (c: Buffer) => (counters.downloadedBytes += c.byteLength));
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      decoded += chunk.byteLength;
      const text = tail + utf8.write(chunk);
      const cut = text.split("\n");
      tail = cut.pop() ?? "";
      for (const line of cut) {
        lines++;
        if (badLine < 0 && !isJsonObject(line)) badLine = lines;
      }
      if (tail.length > MAX_LINE_CHARS) {
        got.body.destroy();
        return {
          problems: [`line ${lines + 1} is longer than 8 MiB: not a Stowage log object`],
          damaged: false,
        };
      }
    }
  } catch (err) {
    got.body.destroy();
    if (isStowageError(err, "integrity"))
      return { problems: [err.message.replace(`${key}: `, "")], damaged: true };
    if ((err as NodeJS.ErrnoException).code?.startsWith("Z_"))
      return {
        problems: [`the body is not valid gzip (${(err as Error).message})`],
        damaged: true,
      };
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
  return { problems, damaged: false };
}

function isJsonObject(line: string): boolean {
  try {
    const v: unknown = JSON.parse(line);
    return v !== null && typeof v === "object" && !Array.isArray(v);
  } catch {
    return false;
  }
}
