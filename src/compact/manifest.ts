/**
 * The two state documents of an hour's generation (docs/compaction.md): the **claim**, written
 * create-only before any part, fixes the sources and settings (so whoever completes it writes
 * the same parts), and the **manifest**, written create-only last, is the commit point (or an
 * abandonment). Both are bucket content: read back through `parseClaim`/`parseManifest`, which
 * refuse anything not in the shape written here.
 */
import { createHash } from "node:crypto";
import { StowageError } from "../shared/errors.js";
import { LAYOUT_VERSION } from "./layout.js";
import type { PromotedColumn } from "./schema.js";

export interface SourceRef {
  key: string;
  etag: string;
  size: number;
}

export interface CompactSettings {
  rowGroupRows: number;
  rowGroupBytes: number;
  fileRows: number;
  compression: "zstd";
  columns: PromotedColumn[];
}

export interface RunRef {
  id: string;
  host: string;
  pid: number;
  at: string;
}

export interface Claim {
  kind: "stowage-compact-claim";
  layout: number;
  hour: string;
  generation: number;
  digest: string;
  settings: CompactSettings;
  sources: SourceRef[];
  run: RunRef;
}

/** How a source was read: `ok`, or why (some of) its lines are not rows. */
export type SourceStatus =
  "ok" | "truncated" | "corrupt-gzip" | "checksum" | "altered" | "foreign-format" | "too-large";

export interface ManifestSource extends SourceRef {
  status: SourceStatus;
  detail?: string;
  /** The SHA-256 the store holds for the object (base64), when it has one. */
  checksumSha256?: string;
  /** Non-blank lines read from the object. */
  lines: number;
  /** Lines that became rows, and lines rejected (kept in the rejects object). */
  rows: number;
  rejected: number;
}

export interface ManifestOutput {
  key: string;
  rows: number;
  bytes: number;
  sha256: string;
  minMs: number | null;
  maxMs: number | null;
}

export interface Manifest {
  kind: "stowage-compact-manifest";
  layout: number;
  hour: string;
  generation: number;
  digest: string;
  /** A generation given up (a claimed source vanished or changed): it commits no part. */
  abandoned?: { reason: string };
  settings: CompactSettings;
  schema: { name: string; type: string }[];
  sources: ManifestSource[];
  outputs: ManifestOutput[];
  rejects: { key: string; lines: number } | null;
  totals: { sources: number; lines: number; rows: number; rejected: number; bytes: number };
  claimedBy: RunRef;
  committedBy: RunRef;
  committedAt: string;
}

/** The digest naming a claim's parts: SHA-256 of its layout, hour, generation, sources and settings. */
export function claimDigest(c: Omit<Claim, "digest" | "run" | "kind">): string {
  const canonical = JSON.stringify([
    c.layout,
    c.hour,
    c.generation,
    c.sources.map((s) => [s.key, s.etag, s.size]),
    c.settings,
  ]);
  return createHash("sha256").update(canonical).digest("hex");
}

function bad(key: string, what: string): StowageError {
  return new StowageError("integrity", `${key}: ${what}`, {
    hint: "compaction state is written only by `stowage compact`; a changed or foreign file there must be removed by hand after checking it",
  });
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
const isInt = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;

function checkCommon(
  v: Record<string, unknown>,
  key: string,
  kind: string,
  expect: { hour: string; generation: number },
): void {
  if (v.kind !== kind) throw bad(key, `not a ${kind} document`);
  if (v.hour !== expect.hour || v.generation !== expect.generation)
    throw bad(key, `names hour ${String(v.hour)} generation ${String(v.generation)}`);
  if (!isObj(v.settings) || !Array.isArray(v.sources)) throw bad(key, "no settings or sources");
  for (const s of v.sources)
    if (!isObj(s) || typeof s.key !== "string" || typeof s.etag !== "string" || !isInt(s.size))
      throw bad(key, "a source entry is malformed");
  if (typeof v.digest !== "string" || !/^[0-9a-f]{64}$/.test(v.digest)) throw bad(key, "no digest");
}

/** A claim read from `key`, checked against the hour and generation its name gives. */
export function parseClaim(
  bytes: Uint8Array,
  key: string,
  expect: { hour: string; generation: number },
): Claim {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    throw bad(key, "not JSON");
  }
  if (!isObj(v)) throw bad(key, "not a JSON object");
  checkCommon(v, key, "stowage-compact-claim", expect);
  const c = v as unknown as Claim;
  if (c.layout === LAYOUT_VERSION && claimDigest(c) !== c.digest)
    throw bad(key, "its digest does not match its sources and settings (the file was altered)");
  return c;
}

/** A manifest read from `key`, checked the same way (its outputs and totals too). */
export function parseManifest(
  bytes: Uint8Array,
  key: string,
  expect: { hour: string; generation: number },
): Manifest {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    throw bad(key, "not JSON");
  }
  if (!isObj(v)) throw bad(key, "not a JSON object");
  checkCommon(v, key, "stowage-compact-manifest", expect);
  if (!Array.isArray(v.outputs)) throw bad(key, "no outputs");
  for (const o of v.outputs)
    if (!isObj(o) || typeof o.key !== "string" || !isInt(o.rows) || !isInt(o.bytes))
      throw bad(key, "an output entry is malformed");
  return v as unknown as Manifest;
}

/** Pretty JSON with a trailing newline (the bytes written, and hashed by verify). */
export const documentBytes = (doc: Claim | Manifest) =>
  Buffer.from(`${JSON.stringify(doc, null, 2)}\n`);
