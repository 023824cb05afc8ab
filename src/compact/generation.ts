/**
 * Completes one claim (a generation of an hour): its sources' rows in order into Parquet
 * parts, its rejects into one object, then the manifest, create-only: the commit point.
 *
 * Invariants:
 * - everything written is named by the claim (digest, part number), so a second attempt at
 *   the same claim — a rerun after a kill, or a compactor that took over an expired lease —
 *   writes the same keys with the same rows, and never a second copy of a row;
 * - a manifest that already exists is never replaced: the same commit is success, an
 *   abandonment means this attempt's parts are removed;
 * - a claim whose source vanished or was replaced cannot be completed: it is abandoned
 *   (a manifest saying so, create-only) and its parts are deleted, so its sources are
 *   claimed again, without the missing one, by the next generation.
 */
import { lockOption } from "../store/object-lock.js";
import type { ObjectLockSpec } from "../config/destination.js";
import { StowageError } from "../shared/errors.js";
import { manifestKey, outputStem, rejectsKey } from "./layout.js";
import {
  documentBytes,
  parseManifest,
  type Claim,
  type Manifest,
  type ManifestOutput,
  type RunRef,
} from "./manifest.js";
import { OutputParts } from "./output-parts.js";
import { Rejects } from "./rejects.js";
import { compactSchema } from "./schema.js";
import { sortedRows, type ClaimedSource, type SliceMemory } from "./sorted-rows.js";
import { SourceGone } from "./source-read.js";
import { createOnly, listAll, readDocument, type StoreCalls } from "./store-calls.js";

export interface GenerationContext {
  calls: StoreCalls;
  dest: string;
  objectLock?: ObjectLockSpec | undefined;
  nowMs: number;
  run: RunRef;
  sliceBytes: number;
  /** The run's slice memory (`sorted-rows.ts`), reused hour after hour. */
  memory?: SliceMemory | undefined;
  onPart?: (part: ManifestOutput, existed: boolean) => void;
}

export interface GenerationOutcome {
  manifest: Manifest;
  /** This run wrote the manifest (false: it found the same commit, or the claim was abandoned). */
  committed: boolean;
}

/**
 * @example const { manifest, committed } = await completeClaim(ctx, claim, hourMs, sources);
 */
export async function completeClaim(
  ctx: GenerationContext,
  claim: Claim,
  hourMs: number,
  sources: readonly ClaimedSource[],
): Promise<GenerationOutcome> {
  const { calls } = ctx;
  const schema = compactSchema(claim.settings.columns);
  const lock = lockOption(hourMs, ctx.objectLock, Date.now()).objectLock;
  const parts = new OutputParts({
    calls,
    dest: ctx.dest,
    hourMs,
    generation: claim.generation,
    digest: claim.digest,
    schema,
    settings: claim.settings,
    objectLock: lock,
    ...(ctx.onPart ? { onPart: ctx.onPart } : {}),
  });
  const rejects = new Rejects();
  let stats;
  let outputs: ManifestOutput[];
  try {
    stats = await sortedRows({
      calls,
      hourMs,
      sources,
      promoted: claim.settings.columns,
      sliceBytes: ctx.sliceBytes,
      memory: ctx.memory,
      sink: { row: (r, ms) => parts.row(r, ms), reject: (...a) => rejects.add(...a) },
    });
    outputs = await parts.finish();
  } catch (err) {
    await parts.abort();
    if (err instanceof SourceGone) return abandon(ctx, claim, hourMs, err.message);
    throw err;
  }
  const rows = outputs.reduce((n, o) => n + o.rows, 0);
  const sourceRows = stats.reduce((n, s) => n + s.rows, 0);
  for (const s of stats)
    if (s.rows + s.rejected !== s.lines)
      throw new StowageError(
        "internal",
        `${s.key}: ${s.lines} lines gave ${s.rows} rows and ${s.rejected} rejects`,
      );
  if (rows !== sourceRows)
    throw new StowageError("internal", `parts hold ${rows} rows, the sources gave ${sourceRows}`);
  let rejectsRef: Manifest["rejects"] = null;
  if (rejects.lines > 0) {
    const key = rejectsKey(ctx.dest, hourMs, claim.generation, claim.digest);
    await createOnly(calls, key, await rejects.body(), {
      contentType: "application/x-ndjson",
      contentEncoding: "gzip",
      ...(lock ? { objectLock: lock } : {}),
    });
    rejectsRef = { key, lines: rejects.lines };
  }
  const manifest: Manifest = {
    kind: "stowage-compact-manifest",
    layout: claim.layout,
    hour: claim.hour,
    generation: claim.generation,
    digest: claim.digest,
    settings: claim.settings,
    schema: schema.map((c) => ({ name: c.name, type: c.kind })),
    sources: stats,
    outputs,
    rejects: rejectsRef,
    totals: {
      sources: stats.length,
      lines: stats.reduce((n, s) => n + s.lines, 0),
      rows,
      rejected: rejects.lines,
      bytes: outputs.reduce((n, o) => n + o.bytes, 0),
    },
    claimedBy: claim.run,
    committedBy: ctx.run,
    committedAt: new Date(ctx.nowMs).toISOString(),
  };
  return commit(ctx, claim, hourMs, manifest);
}

async function commit(
  ctx: GenerationContext,
  claim: Claim,
  hourMs: number,
  manifest: Manifest,
): Promise<GenerationOutcome> {
  const key = manifestKey(ctx.dest, hourMs, claim.generation);
  const lock = lockOption(hourMs, ctx.objectLock, Date.now()).objectLock;
  const made = await createOnly(ctx.calls, key, documentBytes(manifest), {
    contentType: "application/json",
    ...(lock ? { objectLock: lock } : {}),
  });
  if (made === "created") return { manifest, committed: true };
  const bytes = await readDocument(ctx.calls, key);
  if (!bytes) throw new StowageError("storage", `${key} was created and then vanished`);
  const existing = parseManifest(bytes, key, { hour: claim.hour, generation: claim.generation });
  if (existing.abandoned) {
    // Someone gave this claim up while we wrote it: our parts must not stay visible.
    await removeParts(ctx, claim, hourMs);
    return { manifest: existing, committed: false };
  }
  const same =
    existing.digest === manifest.digest &&
    existing.outputs.length === manifest.outputs.length &&
    existing.outputs.every(
      (o, i) => o.key === manifest.outputs[i]!.key && o.rows === manifest.outputs[i]!.rows,
    );
  if (!same)
    throw new StowageError(
      "integrity",
      `${key} commits other parts than this run wrote for the same claim`,
      {
        hint: "two compactors of different versions or settings completed one claim; run `stowage verify`",
      },
    );
  return { manifest: existing, committed: false };
}

/** Gives a claim up: an abandonment manifest (create-only), then its parts and rejects removed. */
async function abandon(
  ctx: GenerationContext,
  claim: Claim,
  hourMs: number,
  reason: string,
): Promise<GenerationOutcome> {
  const manifest: Manifest = {
    kind: "stowage-compact-manifest",
    layout: claim.layout,
    hour: claim.hour,
    generation: claim.generation,
    digest: claim.digest,
    abandoned: { reason },
    settings: claim.settings,
    schema: [],
    sources: [],
    outputs: [],
    rejects: null,
    totals: { sources: 0, lines: 0, rows: 0, rejected: 0, bytes: 0 },
    claimedBy: claim.run,
    committedBy: ctx.run,
    committedAt: new Date(ctx.nowMs).toISOString(),
  };
  const key = manifestKey(ctx.dest, hourMs, claim.generation);
  const made = await createOnly(ctx.calls, key, documentBytes(manifest), {
    contentType: "application/json",
    ...lockOption(hourMs, ctx.objectLock, Date.now()),
  });
  if (made === "exists") {
    const bytes = await readDocument(ctx.calls, key);
    const existing =
      bytes && parseManifest(bytes, key, { hour: claim.hour, generation: claim.generation });
    if (existing && !existing.abandoned) return { manifest: existing, committed: false };
  }
  await removeParts(ctx, claim, hourMs);
  return { manifest, committed: false };
}

/** Deletes every part and the rejects object of a claim (an abandoned generation). */
export async function removeParts(
  ctx: GenerationContext,
  claim: Claim,
  hourMs: number,
): Promise<void> {
  const stem = outputStem(ctx.dest, hourMs, claim.generation, claim.digest);
  const { entries } = await listAll(ctx.calls, stem);
  const keys = [
    ...entries.map((e) => e.key),
    rejectsKey(ctx.dest, hourMs, claim.generation, claim.digest),
  ];
  for (const key of keys) await ctx.calls.store.delete(key, { signal: ctx.calls.signal });
}
