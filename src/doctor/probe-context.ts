/**
 * What the probes of one destination share (SPEC §2.5): the store opened for
 * them (one attempt, a short timeout), the two probe keys under
 * `.stowage-doctor/`, the probe body, what has been written (so cleanup can
 * delete exactly that, by version on a versioned bucket) and how a failure is
 * named. Closing it removes a local store the probes created.
 */
import { existsSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ResolvedDestination } from "../config/destination.js";
import type { Env } from "../config/env.js";
import { randomHex } from "../shared/ids.js";
import type { ObjectStore } from "../store/object-store.js";
import { openStore } from "../store/open-store.js";
import { arnOf, diagnose, type ProbeNeed } from "./diagnose.js";
import type { CheckOutcome, DoctorTarget } from "./types.js";

export interface ProbeOptions {
  env: Env;
  /** Run the §2.4 capability probes for export destinations too (`--capabilities`). */
  capabilities?: boolean;
  /** Per request; small so a dead endpoint fails fast. */
  requestTimeoutMs: number;
  signal: AbortSignal;
}

export interface ProbeContext {
  target: DoctorTarget;
  dest: ResolvedDestination;
  store: ObjectStore;
  signal: AbortSignal;
  requestTimeoutMs: number;
  /** `<prefix>/` or "" (local stores have no prefix). */
  prefixPath: string;
  /** Two probe keys sharing a stem; `keys[0]` is the one read back. */
  stem: string;
  keys: [string, string];
  body: string;
  /** §2.4 capability probes run: log destinations always, exports with `--capabilities`. */
  capabilities: boolean;
  /** Keys written so far, and their version ids on a versioned bucket. */
  written: string[];
  versions: Map<string, string>;
  /** A local directory the probes created (removed on close). */
  madeByProbe: string | undefined;
}

export const OK: CheckOutcome = { ok: true };

/** Opens the store and names the probe keys; the caller closes it with `closeProbeContext`. */
export function openProbeContext(target: DoctorTarget, options: ProbeOptions): ProbeContext {
  const dest = target.destination;
  const prefix = dest.type === "s3" ? dest.prefix : "";
  const prefixPath = prefix ? `${prefix}/` : "";
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
  const stem = `${prefixPath}.stowage-doctor/${new Date().toISOString().replace(/[:.]/g, "")}-${randomHex(12)}.`;
  return {
    target,
    dest,
    store,
    signal: options.signal,
    requestTimeoutMs: options.requestTimeoutMs,
    prefixPath,
    stem,
    keys: [`${stem}1`, `${stem}2`],
    body: `stowage doctor probe ${new Date().toISOString()}\n`,
    // Capability probes (§2.4) run for log destinations, and for exports with --capabilities:
    // exports write with plain and multipart PUTs and do not rely on conditional requests.
    capabilities: options.capabilities === true || target.kind !== "export",
    written: [],
    versions: new Map(),
    madeByProbe,
  };
}

export function closeProbeContext(ctx: ProbeContext): void {
  ctx.store.close();
  if (ctx.madeByProbe) rmSync(ctx.madeByProbe, { recursive: true, force: true });
}

/** The resource a probe needs, as an ARN for S3 and as the key itself for a local store. */
export function resourceOf(ctx: ProbeContext, key: string): string {
  return ctx.dest.type === "s3" ? arnOf(ctx.dest, key) : key;
}

/** A failed probe as a doctor verdict (`diagnose`), with the config file for `stowage policy` hints. */
export function failureOf(
  ctx: ProbeContext,
  err: unknown,
  need: ProbeNeed,
  capabilityProbe = false,
): Extract<CheckOutcome, { ok: false }> {
  const file = ctx.target.file;
  return diagnose(err, ctx.dest, need, { ...(file ? { file } : {}), capabilityProbe });
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
