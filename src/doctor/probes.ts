/**
 * The per-destination checks of SPEC §2.5, in order: credentials resolve (and
 * from where), bucket reachable in the right region (HeadBucket), write probe,
 * conditional create (412/304), ordered paginated list, HeadObject, GetObject
 * If-Match (right ETag reads, wrong one 412), cleanup. A failure stops the
 * checks that depend on it; the probe objects are always deleted when allowed.
 */
import { existsSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Env } from "../config/env.js";
import { describeEndpoint } from "../config/providers.js";
import { isStowageError } from "../shared/errors.js";
import { randomHex } from "../shared/ids.js";
import { classifyError } from "../store/classify-error.js";
import { describeCredentials } from "../store/credentials.js";
import { headBucket, openStore } from "../store/open-store.js";
import { checkCredentials } from "./credentials-check.js";
import { arnOf, diagnose, type ProbeNeed } from "./diagnose.js";
import { conditionalRead, listProbe } from "./read-probes.js";
import { retentionChecks } from "./retention-checks.js";
import type { CheckOutcome, CheckResult, DoctorTarget } from "./types.js";

export interface ProbeOptions {
  env: Env;
  /** Run the §2.4 capability probes for export destinations too (`--capabilities`). */
  capabilities?: boolean;
  /** Per request; small so a dead endpoint fails fast. */
  requestTimeoutMs: number;
  signal: AbortSignal;
}

const CAP = "capability missing" as const;

/** Runs every check for one target; returns them in print order. */
export async function probeTarget(
  target: DoctorTarget,
  options: ProbeOptions,
): Promise<CheckResult[]> {
  const dest = target.destination;
  const suffix = target.label ? ` [${target.label}]` : "";
  const results: CheckResult[] = [];
  const record = (name: string, outcome: CheckOutcome): boolean => {
    results.push({ name: name + suffix, ...outcome });
    return outcome.ok;
  };
  const ok: CheckOutcome = { ok: true };
  const destName =
    dest.type === "s3" ? `Destination S3(${dest.bucket})` : `Destination Local(${dest.path})`;
  const prefix = dest.type === "s3" ? dest.prefix : "";
  const resource = (key: string) => (dest.type === "s3" ? arnOf(dest, key) : key);
  const fail = (err: unknown, need: ProbeNeed, capabilityProbe = false) =>
    diagnose(err, dest, need, { ...(target.file ? { file: target.file } : {}), capabilityProbe });

  // 1. credentials
  if (dest.type === "s3") {
    const outcome = await checkCredentials(dest, options.env);
    record(`Credentials (${describeCredentials(dest.credentials)})`, outcome);
    if (!outcome.ok) return results;
    record(`Endpoint ${describeEndpoint(dest)}`, ok);
  }
  // A local store that does not exist yet is created by the probes: remove it again afterwards,
  // so doctor in an empty folder leaves nothing behind.
  const madeByProbe = dest.type === "local" ? topmostMissing(dest.path) : undefined;
  const store = openStore(dest, {
    env: options.env,
    requestTimeoutMs: options.requestTimeoutMs,
    maxAttempts: 1,
  }).store;
  // Two probes sharing a stem that is not itself a key: MinIO answers a LIST whose prefix equals
  // an existing key with that key alone (no pagination), which would fail the list probe spuriously.
  const stem = `${prefix ? `${prefix}/` : ""}.stowage-doctor/${new Date().toISOString().replace(/[:.]/g, "")}-${randomHex(12)}.`;
  const keys = [`${stem}1`, `${stem}2`];
  const key = keys[0]!;
  const written: string[] = [];
  const versions = new Map<string, string>();
  const signal = options.signal;
  // Capability probes (§2.4) run for log destinations, and for exports with --capabilities:
  // exports write with plain and multipart PUTs and do not rely on conditional requests.
  const capabilities = options.capabilities === true || target.kind !== "export";
  const writeName = capabilities
    ? "Write probe (PutObject If-None-Match: *)"
    : "Write probe (PutObject)";
  try {
    // 2. bucket reachable, region right
    if (dest.type === "s3") {
      try {
        const found = await headBucket(store, { signal, timeoutMs: options.requestTimeoutMs });
        if (!dest.endpoint && found.region && dest.region && found.region !== dest.region) {
          return (
            record(destName, {
              ok: false,
              category: "wrong region",
              detail: `the bucket is in ${found.region}, the config says ${dest.region}`,
              hint: `set region: ${found.region}`,
            }),
            results
          );
        }
      } catch (err) {
        // HEAD answers carry no error code: a LIST tells the precise one. A LIST also passes for the
        // least-privilege roles of `stowage policy`, whose s3:ListBucket is conditioned on a prefix
        // (probe folder for writers, v1/ for readers; HeadBucket has none, so it gets 403): the
        // bucket is reachable then.
        let listed: unknown;
        for (const sub of [".stowage-doctor/", "v1/", ""]) {
          listed = await store
            .list({ prefix: `${prefix ? `${prefix}/` : ""}${sub}`, maxKeys: 1, signal })
            .then(
              () => undefined,
              (e: unknown) => e,
            );
          if (listed === undefined) break;
        }
        const { status } = classifyError(err);
        if (!(listed === undefined && status === 403)) {
          const outcome = fail(listed ?? err, { action: "s3:ListBucket", resource: arnOf(dest) });
          if (status === 404 && outcome.category !== "bucket not found")
            outcome.category = "bucket not found";
          return (record(destName, outcome), results);
        }
      }
    }
    if (dest.type === "s3") record(destName, ok);

    // 3. write probe, 4. conditional create
    const body = `stowage doctor probe ${new Date().toISOString()}\n`;
    try {
      for (const k of capabilities ? keys : [key]) {
        const conditional = capabilities ? { ifNoneMatch: "*" as const } : {};
        const put = await store.put(k, body, { ...conditional, contentType: "text/plain", signal });
        written.push(k);
        // On a versioned (Object Lock) bucket, delete the probe's version: no noncurrent copy stays.
        if (put.versionId) versions.set(k, put.versionId);
      }
    } catch (err) {
      if (dest.type === "local")
        record(destName, fail(err, { action: "write", resource: dest.path }));
      else
        record(
          writeName,
          fail(
            err,
            { action: "s3:PutObject", resource: resource(`${prefix ? `${prefix}/` : ""}*`) },
            capabilities,
          ),
        );
      return results;
    }
    if (dest.type === "local") record(destName, ok);
    record(writeName, ok);
    if (capabilities) {
      const second = await store.put(key, body, { ifNoneMatch: "*", signal }).then(
        () =>
          ({
            ok: false,
            category: CAP,
            detail:
              "a second PutObject with If-None-Match: * overwrote the existing probe instead of answering 412",
            hint: "this provider lacks conditional create, which exactly-once delivery depends on (docs/doctor.md)",
          }) as CheckOutcome,
        (err: unknown) =>
          isStowageError(err, "exists")
            ? ok
            : fail(err, { action: "s3:PutObject", resource: resource(key) }, true),
      );
      record("Conditional create (second PUT answers 412)", second);

      // 5. read probes
      record(
        "List (ListObjectsV2 ordered, paginated)",
        await listProbe(store, stem, keys, signal).catch((err: unknown) =>
          fail(
            err,
            { action: "s3:ListBucket", resource: dest.type === "s3" ? arnOf(dest) : dest.path },
            true,
          ),
        ),
      );
    }
    let etag = "";
    record(
      "HeadObject",
      await store.head(key, { signal }).then(
        (info) => {
          etag = info.etag;
          return info.size === Buffer.byteLength(body) && info.etag
            ? ok
            : ({
                ok: false,
                category: CAP,
                detail: `HeadObject answered size ${info.size} and ETag "${info.etag}" for a ${Buffer.byteLength(body)}-byte object`,
              } as CheckOutcome);
        },
        (err: unknown) => fail(err, { action: "s3:GetObject", resource: resource(key) }),
      ),
    );
    if (capabilities) {
      record(
        "Conditional read (GetObject If-Match)",
        await conditionalRead(store, key, etag, body, signal).catch((err: unknown) =>
          fail(err, { action: "s3:GetObject", resource: resource(key) }, true),
        ),
      );
    }
    // 7. lifecycle rules and Object Lock (docs/retention.md)
    results.push(...(await retentionChecks(target, store, signal, suffix)));
  } finally {
    // 6. cleanup
    if (written.length) {
      const left: string[] = [];
      let firstErr: unknown;
      for (const k of written)
        await store
          .delete(k, { signal, versionId: versions.get(k) })
          .catch((err: unknown) => (left.push(k), (firstErr ??= err)));
      if (left.length === 0) record("Cleanup (DeleteObject)", ok);
      else {
        const f = fail(firstErr, {
          action: "s3:DeleteObject",
          resource: resource(`${prefix ? `${prefix}/` : ""}.stowage-doctor/*`),
        });
        record("Cleanup (DeleteObject)", {
          ...f,
          detail: `could not delete the probe; left behind: ${left.join(", ")} (${f.detail})`,
          hint: `${f.hint ?? ""} Delete the leftover key(s) by hand.`.trim(),
        });
      }
    }
    store.close();
    if (madeByProbe) rmSync(madeByProbe, { recursive: true, force: true });
  }
  return results;
}

/** The highest ancestor of `path` (itself included) that does not exist, or undefined. */
function topmostMissing(path: string): string | undefined {
  let missing: string | undefined;
  for (let p = resolve(path); !existsSync(p); p = dirname(p)) {
    missing = p;
    if (dirname(p) === p) break;
  }
  return missing;
}
