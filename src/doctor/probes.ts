/**
 * The per-destination checks of SPEC §2.5, in order: credentials resolve (and
 * from where), bucket reachable in the right region (HeadBucket), write probe,
 * conditional create (412/304), ordered paginated list, HeadObject, GetObject
 * If-Match (right ETag reads, wrong one 412), cleanup. A failure stops the
 * checks that depend on it; the probe objects are always deleted when allowed.
 */
import type { Env } from "../config/env.js";
import { StowageError, isStowageError } from "../shared/errors.js";
import { randomHex } from "../shared/ids.js";
import { describeCredentials, resolveCredentials } from "../store/credentials.js";
import type { ObjectStore } from "../store/object-store.js";
import { headBucket, openStore } from "../store/open-store.js";
import { arnOf, diagnose, firstLine, type ProbeNeed } from "./diagnose.js";
import type { CheckOutcome, CheckResult, DoctorTarget } from "./types.js";

export interface ProbeOptions {
  env: Env;
  /** Per request; small so a dead endpoint fails fast. */
  requestTimeoutMs: number;
  signal: AbortSignal;
}

const CAP = "capability missing" as const;

async function readAll(body: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks).toString("utf8");
}

/** Runs every check for one target; returns them in print order. */
export async function probeTarget(target: DoctorTarget, options: ProbeOptions): Promise<CheckResult[]> {
  const dest = target.destination;
  const suffix = target.label ? ` [${target.label}]` : "";
  const results: CheckResult[] = [];
  const record = (name: string, outcome: CheckOutcome): boolean => {
    results.push({ name: name + suffix, ...outcome });
    return outcome.ok;
  };
  const ok: CheckOutcome = { ok: true };
  const destName = dest.type === "s3" ? `Destination S3(${dest.bucket})` : `Destination Local(${dest.path})`;
  const prefix = dest.type === "s3" ? dest.prefix : "";
  const resource = (key: string) => (dest.type === "s3" ? arnOf(dest, key) : key);
  const fail = (err: unknown, need: ProbeNeed, capabilityProbe = false) =>
    diagnose(err, dest, need, { ...(target.file ? { file: target.file } : {}), capabilityProbe });

  // 1. credentials
  if (dest.type === "s3") {
    const credName = `Credentials (${describeCredentials(dest.credentials)})`;
    try {
      const creds = resolveCredentials(dest.credentials, { env: options.env, endpoint: dest.endpoint });
      if (creds.provider && creds.source !== "env") {
        const timeout = AbortSignal.timeout(10_000);
        await Promise.race([
          creds.provider(),
          new Promise((_, reject) => timeout.addEventListener("abort", () => reject(new StowageError("credentials", "no answer within 10 s")))),
        ]);
      }
    } catch (err) {
      const config = isStowageError(err, "config");
      record(credName, {
        ok: false,
        category: config ? "config error" : "auth error",
        detail: firstLine(err instanceof Error ? err.message : String(err)),
        hint: config ? ((err as StowageError).hint ?? "fix the credentials settings") : "no credentials found from this source: see docs/credentials.md for the resolution order",
      });
      return results;
    }
    record(credName, ok);
  }
  const store = openStore(dest, { env: options.env, requestTimeoutMs: options.requestTimeoutMs, maxAttempts: 1 }).store;
  // Two probes sharing a stem that is not itself a key: MinIO answers a LIST whose prefix equals
  // an existing key with that key alone (no pagination), which would fail the list probe spuriously.
  const stem = `${prefix ? `${prefix}/` : ""}.stowage-doctor/${new Date().toISOString().replace(/[:.]/g, "")}-${randomHex(12)}.`;
  const keys = [`${stem}1`, `${stem}2`];
  const key = keys[0]!;
  const written: string[] = [];
  const signal = options.signal;
  try {
    // 2. bucket reachable, region right
    if (dest.type === "s3") {
      try {
        const found = await headBucket(store, { signal, timeoutMs: options.requestTimeoutMs });
        if (!dest.endpoint && found.region && dest.region && found.region !== dest.region) {
          return (record(destName, { ok: false, category: "wrong region", detail: `the bucket is in ${found.region}, the config says ${dest.region}`, hint: `set region: ${found.region}` }), results);
        }
      } catch (err) {
        // HEAD answers carry no error code: a LIST tells the precise one. A LIST also passes for the
        // least-privilege roles of `stowage policy`, whose s3:ListBucket is conditioned on a prefix
        // (probe folder for writers, v1/ for readers; HeadBucket has none, so it gets 403): the
        // bucket is reachable then.
        let listed: unknown;
        for (const sub of [".stowage-doctor/", "v1/", ""]) {
          listed = await store.list({ prefix: `${prefix ? `${prefix}/` : ""}${sub}`, maxKeys: 1, signal }).then(() => undefined, (e: unknown) => e);
          if (listed === undefined) break;
        }
        const status = (err as { cause?: { $metadata?: { httpStatusCode?: number } } }).cause?.$metadata?.httpStatusCode;
        if (!(listed === undefined && status === 403)) {
          const outcome = fail(listed ?? err, { action: "s3:ListBucket", resource: arnOf(dest) });
          if (status === 404 && outcome.category !== "bucket not found") outcome.category = "bucket not found";
          return (record(destName, outcome), results);
        }
      }
    }
    if (dest.type === "s3") record(destName, ok);

    // 3. write probe, 4. conditional create
    const body = `stowage doctor probe ${new Date().toISOString()}\n`;
    try {
      for (const k of keys) {
        await store.put(k, body, { ifNoneMatch: "*", contentType: "text/plain", signal });
        written.push(k);
      }
    } catch (err) {
      if (dest.type === "local") record(destName, fail(err, { action: "write", resource: dest.path }));
      else record("Write probe (PutObject If-None-Match: *)", fail(err, { action: "s3:PutObject", resource: resource(`${prefix ? `${prefix}/` : ""}*`) }, true));
      return results;
    }
    if (dest.type === "local") record(destName, ok);
    record("Write probe (PutObject If-None-Match: *)", ok);
    const second = await store.put(key, body, { ifNoneMatch: "*", signal }).then(
      () => ({ ok: false, category: CAP, detail: "a second PutObject with If-None-Match: * overwrote the existing probe instead of answering 412", hint: "this provider lacks conditional create, which exactly-once delivery depends on (SPEC §2.4)" }) as CheckOutcome,
      (err: unknown) => (isStowageError(err, "exists") ? ok : fail(err, { action: "s3:PutObject", resource: resource(key) }, true)),
    );
    record("Conditional create (second PUT answers 412)", second);

    // 5. read probes
    record("List (ListObjectsV2 ordered, paginated)", await listProbe(store, stem, keys, signal).catch((err: unknown) => fail(err, { action: "s3:ListBucket", resource: dest.type === "s3" ? arnOf(dest) : dest.path }, true)));
    let etag = "";
    record(
      "HeadObject",
      await store.head(key, { signal }).then(
        (info) => {
          etag = info.etag;
          return info.size === Buffer.byteLength(body) && info.etag ? ok : ({ ok: false, category: CAP, detail: `HeadObject answered size ${info.size} and ETag "${info.etag}" for a ${Buffer.byteLength(body)}-byte object` } as CheckOutcome);
        },
        (err: unknown) => fail(err, { action: "s3:GetObject", resource: resource(key) }),
      ),
    );
    record("Conditional read (GetObject If-Match)", await conditionalRead(store, key, etag, body, signal).catch((err: unknown) => fail(err, { action: "s3:GetObject", resource: resource(key) }, true)));
  } finally {
    // 6. cleanup
    if (written.length) {
      const left: string[] = [];
      let firstErr: unknown;
      for (const k of written) await store.delete(k, { signal }).catch((err: unknown) => (left.push(k), (firstErr ??= err)));
      if (left.length === 0) record("Cleanup (DeleteObject)", ok);
      else {
        const f = fail(firstErr, { action: "s3:DeleteObject", resource: resource(`${prefix ? `${prefix}/` : ""}.stowage-doctor/*`) });
        record("Cleanup (DeleteObject)", { ...f, detail: `could not delete the probe; left behind: ${left.join(", ")} (${f.detail})`, hint: `${f.hint ?? ""} Delete the leftover key(s) by hand.`.trim() });
      }
    }
    store.close();
  }
  return results;
}

/** ListObjectsV2 with max-keys 1: two pages, in order, then no continuation. */
async function listProbe(store: ObjectStore, prefix: string, keys: string[], signal: AbortSignal): Promise<CheckOutcome> {
  const seen: string[] = [];
  let token: string | undefined;
  for (let page = 0; page < 4; page++) {
    const res = await store.list({ prefix, maxKeys: 1, signal, ...(token ? { continuationToken: token } : {}) });
    if (res.entries.length > 1) return { ok: false, category: CAP, detail: `max-keys 1 returned ${res.entries.length} keys` };
    seen.push(...res.entries.map((e) => e.key));
    token = res.nextContinuationToken;
    if (!token) break;
  }
  if (seen.join("\n") !== keys.join("\n")) {
    return { ok: false, category: CAP, detail: `paginated listing returned ${seen.length} key(s) ${seen.length === 2 ? "out of order" : "instead of 2"}`, hint: "Stowage needs lexicographic ListObjectsV2 with continuation tokens (SPEC §2.4)" };
  }
  return { ok: true };
}

/** GetObject with the right ETag returns the bytes; with a wrong one it must answer 412. */
async function conditionalRead(store: ObjectStore, key: string, etag: string, body: string, signal: AbortSignal): Promise<CheckOutcome> {
  const got = await store.get(key, { ...(etag ? { ifMatch: etag } : {}), signal });
  if ((await readAll(got.body)) !== body) return { ok: false, category: CAP, detail: "GetObject returned different bytes than were written" };
  const wrong = '"00000000000000000000000000000000"';
  return store.get(key, { ifMatch: wrong, signal }).then(
    async (res) => (res.body.resume(), { ok: false, category: CAP, detail: "GetObject with a wrong If-Match returned the object instead of 412", hint: "Stowage's reader needs If-Match (SPEC §2.4)" }),
    (err: unknown) => {
      if (isStowageError(err, "precondition")) return { ok: true } as CheckOutcome;
      throw err;
    },
  );
}
