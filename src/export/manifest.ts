/**
 * The manifest of an export run (SPEC §7.2) and the incremental cursor state:
 * their JSON shapes, serialisation (the bytes `_SUCCESS` vouches for by
 * SHA-256), and tolerant-but-checked parsing for `validate` and the next run.
 */
import { createHash } from "node:crypto";
import { StowageError } from "../shared/errors.js";
import type { PartRecord } from "./rotating-output.js";
import type { ColumnSpec } from "./sources/source.js";

export const MANIFEST_VERSION = 1;

export interface Manifest {
  version: number;
  run_id: string;
  export: string;
  mode: "full" | "incremental" | "chunked" | "keyset";
  /**
   * `manifest.json` only, when it lists several runs of one folder (incremental runs
   * on the same `{date}`): their run ids, oldest first; `run_id` is the last.
   */
  runs?: string[];
  format: string;
  compression: string;
  /**
   * The database, and the rows it returned to the run (counted as they arrived, before
   * encoding; a resumed keyset run adds its state's pages). `validate` checks that the
   * parts hold exactly these rows. Manifests written before issue 31 have no `rows`.
   */
  source: { type: string; rows?: number };
  schema: { name: string; type: string; source_type: string; precision?: number; scale?: number }[];
  parts: PartRecord[];
  totals: { rows: number; bytes: number; parts: number };
  started_at: string;
  finished_at: string;
  duration_ms: number;
  /** Incremental runs: the cursor range this run covered (`from` exclusive, `to` inclusive). */
  cursor?: { column: string; kind: string; from: string | null; to: string | null };
  /** Chunked runs: the numeric ranges. */
  chunks?: {
    column: string;
    size: number;
    parallel: number;
    min: string | null;
    max: string | null;
    count: number;
    /** True when every worker read one database snapshot (PostgreSQL). */
    shared_snapshot: boolean;
  };
  /** Keyset runs: the key column, rows per page and pages written (a resumed run counts all). */
  keyset?: { column: string; page_size: number; pages: number; resumed: boolean };
}

/** The incremental cursor: the greatest cursor value exported by the last committed run. */
export interface CursorState {
  version: number;
  export: string;
  column: string;
  kind: string;
  /** Text form of the value (bigints and decimals exact; timestamps ISO 8601 with microseconds). */
  value: string;
  run_id: string;
  updated_at: string;
}

export function manifestSchema(columns: ColumnSpec[]): Manifest["schema"] {
  return columns.map((c) => ({
    name: c.name,
    type: c.kind,
    source_type: c.sourceType,
    ...(c.precision !== undefined ? { precision: c.precision } : {}),
    ...(c.scale !== undefined ? { scale: c.scale } : {}),
  }));
}

/** Serialises a manifest; the returned bytes are what gets stored and hashed. */
export function encodeManifest(m: Manifest): { bytes: Buffer; sha256: string } {
  const bytes = Buffer.from(JSON.stringify(m, null, 2) + "\n", "utf8");
  return { bytes, sha256: sha256Hex(bytes) };
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

const HEX64 = /^[0-9a-f]{64}$/;

/** Parses and shape-checks a manifest; a foreign or corrupt file is a "format" error naming the key. */
export function parseManifest(bytes: Uint8Array, key: string): Manifest {
  let m: Manifest;
  try {
    m = JSON.parse(Buffer.from(bytes).toString("utf8")) as Manifest;
  } catch {
    throw new StowageError(
      "format",
      `${key} is not valid JSON; it was not written by stowage or is corrupt`,
    );
  }
  const ok =
    m !== null &&
    typeof m === "object" &&
    typeof m.run_id === "string" &&
    typeof m.export === "string" &&
    Array.isArray(m.parts) &&
    m.parts.every(
      (p) =>
        p &&
        typeof p.path === "string" &&
        Number.isSafeInteger(p.bytes) &&
        Number.isSafeInteger(p.rows) &&
        HEX64.test(String(p.sha256)),
    );
  if (!ok)
    throw new StowageError(
      "format",
      `${key} is not a stowage export manifest (missing run_id, export or parts)`,
    );
  if (m.version !== MANIFEST_VERSION) {
    throw new StowageError(
      "format",
      `${key} has manifest version ${String(m.version)}; this stowage reads version ${MANIFEST_VERSION}`,
      { hint: "upgrade stowage" },
    );
  }
  return m;
}

/** The manifest hash stored in `_SUCCESS`, or undefined if the marker does not hold one. */
export function parseSuccess(bytes: Uint8Array): string | undefined {
  const text = Buffer.from(bytes).toString("utf8").trim();
  return HEX64.test(text) ? text : undefined;
}

export function encodeCursor(c: CursorState): Buffer {
  return Buffer.from(JSON.stringify(c, null, 2) + "\n", "utf8");
}

export function parseCursor(bytes: Uint8Array, key: string): CursorState {
  try {
    const c = JSON.parse(Buffer.from(bytes).toString("utf8")) as CursorState;
    if (typeof c.value === "string" && typeof c.kind === "string" && typeof c.column === "string")
      return c;
  } catch {
    /* reported below */
  }
  throw new StowageError("format", `${key} is not a stowage cursor file`, {
    hint: "delete it to export everything again, or restore it from manifest-<run_id>.json (cursor.to)",
  });
}
