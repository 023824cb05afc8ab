/**
 * One sealed hour: which of its v1 objects are already claimed, which claims are unfinished
 * (resumed when their compactor is gone, left alone while it lives), and one new claim —
 * the next generation — for the objects nobody claimed yet (late data included).
 *
 * Invariants:
 * - a v1 object is in at most one live claim: a new claim takes only objects outside every
 *   claim that was not abandoned, and generation numbers are taken create-only, so two
 *   compactors never claim one object twice (the loser re-reads the state and tries again);
 * - a claim is completed only by its own compactor while that one lives; one that died (its
 *   process is gone on this host, or its lease expired) is completed by the next run, with
 *   the claim's own sources and settings.
 */
import { hostname } from "node:os";
import { hourPrefix, parseObjectKey } from "../v1-format/object-key.js";
import { isStowageError } from "../shared/errors.js";
import { lockOption } from "../store/object-lock.js";
import type { ListEntry } from "../store/object-store.js";
import { completeClaim, type GenerationContext } from "./generation.js";
import {
  claimKey,
  LAYOUT_VERSION,
  parseStateKey,
  partitionValues,
  stateHourPrefix,
} from "./layout.js";
import {
  claimDigest,
  documentBytes,
  parseClaim,
  parseManifest,
  type Claim,
  type CompactSettings,
  type Manifest,
  type RunRef,
} from "./manifest.js";
import type { ClaimedSource } from "./sorted-rows.js";
import { createOnly, listAll, readDocument } from "./store-calls.js";

export interface HourContext extends GenerationContext {
  prefix: string;
  settings: CompactSettings;
  /** A claim older than this whose compactor cannot be seen (another host) is taken over. */
  leaseMs: number;
}

export interface GenerationReport {
  generation: number;
  resumed: boolean;
  committed: boolean;
  abandoned?: string;
  sources: number;
  lines: number;
  rows: number;
  rejected: number;
  parts: number;
  bytes: number;
}

export interface HourReport {
  hour: string;
  hourMs: number;
  status: "compacted" | "up-to-date" | "in-progress" | "failed";
  generations: GenerationReport[];
  /** Keys in the hour folder that are not v1 objects of this hour: skipped, never read. */
  foreign: string[];
  /** Claims another live compactor is completing. */
  inProgress: { generation: number; run: RunRef }[];
  error?: { code: string; message: string; hint?: string };
}

/** Runs of this process that are compacting now (a claim of this pid is alive only if its run is). */
export const ACTIVE_RUNS = new Set<string>();

/**
 * Whether a claim's compactor may still be completing it: on this host, while its process
 * (or, in this process, its run) exists — a process that is gone is known dead at once — and
 * no longer than the lease (its pid may have been reused); from another host, for the lease.
 */
function alive(run: RunRef, claimedAtMs: number, ctx: HourContext): boolean {
  const withinLease = ctx.nowMs - claimedAtMs < ctx.leaseMs;
  if (run.host !== hostname()) return withinLease;
  if (run.pid === process.pid) return ACTIVE_RUNS.has(run.id);
  try {
    process.kill(run.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return withinLease;
}

const hourLabel = (hourMs: number) => {
  const { dt, hour } = partitionValues(hourMs);
  return `${dt}T${hour}`;
};

function summarize(m: Manifest, resumed: boolean, committed: boolean): GenerationReport {
  return {
    generation: m.generation,
    resumed,
    committed,
    ...(m.abandoned ? { abandoned: m.abandoned.reason } : {}),
    sources: m.totals.sources,
    lines: m.totals.lines,
    rows: m.totals.rows,
    rejected: m.totals.rejected,
    parts: m.outputs.length,
    bytes: m.totals.bytes,
  };
}

/** The hour's v1 objects as claimable sources, and the keys that are not. */
function splitSources(entries: readonly ListEntry[], prefix: string, hourMs: number) {
  const sources: ClaimedSource[] = [];
  const foreign: string[] = [];
  for (const e of entries) {
    const p = parseObjectKey(e.key, prefix);
    if (p && p.hourMs === hourMs)
      sources.push({ key: e.key, etag: e.etag, size: e.size, minMs: p.minMs, maxMs: p.maxMs });
    else foreign.push(e.key);
  }
  sources.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { sources, foreign };
}

/**
 * @example const report = await compactHour(ctx, hourMs, v1Entries, stateEntries);
 */
export async function compactHour(
  ctx: HourContext,
  hourMs: number,
  v1Entries: readonly ListEntry[],
  stateEntries: readonly ListEntry[],
): Promise<HourReport> {
  const hour = hourLabel(hourMs);
  const report: HourReport = {
    hour,
    hourMs,
    status: "up-to-date",
    generations: [],
    foreign: [],
    inProgress: [],
  };
  let { sources, foreign } = splitSources(v1Entries, ctx.prefix, hourMs);
  report.foreign = foreign;
  let state = stateEntries;
  const claims = new Map<number, { claim: Claim; at: number }>();
  const manifests = new Map<number, Manifest>();
  try {
    for (let round = 0; round < 8; round++) {
      await loadState(ctx, hourMs, hour, state, claims, manifests);
      // Sources of every claim not abandoned, and of every commit (its manifest lists them even
      // if its claim is gone, e.g. expired by a lifecycle rule a little before the manifest).
      const taken = new Set<string>();
      for (const [gen, { claim }] of claims)
        if (!manifests.get(gen)?.abandoned) for (const s of claim.sources) taken.add(s.key);
      for (const m of manifests.values()) for (const s of m.sources) taken.add(s.key);
      let abandoned = false;
      report.inProgress = [];
      for (const [gen, { claim, at }] of [...claims].sort((a, b) => a[0] - b[0])) {
        if (manifests.has(gen)) continue;
        if (claim.layout !== LAYOUT_VERSION)
          throw Object.assign(
            new Error(
              `claim ${gen} was made under compaction layout ${claim.layout}; this compactor writes layout ${LAYOUT_VERSION}`,
            ),
            { code: "layout" },
          );
        const ours = claim.run.id === ctx.run.id; // our own create landed though its answer was lost
        if (!ours && alive(claim.run, at, ctx)) {
          report.inProgress.push({ generation: gen, run: claim.run });
          continue;
        }
        const out = await complete(ctx, claim, hourMs);
        manifests.set(gen, out.manifest);
        report.generations.push(summarize(out.manifest, !ours, out.committed));
        abandoned ||= out.manifest.abandoned !== undefined;
      }
      if (abandoned) {
        // A source vanished: list again, and claim what is left without it.
        ({ sources, foreign } = splitSources(
          (await listAll(ctx.calls, hourPrefix(ctx.prefix, hourMs))).entries,
          ctx.prefix,
          hourMs,
        ));
        report.foreign = foreign;
        state = (await listAll(ctx.calls, stateHourPrefix(ctx.dest, hourMs))).entries;
        continue;
      }
      const fresh = sources.filter((s) => !taken.has(s.key));
      if (fresh.length === 0) break;
      const generation = Math.max(0, ...claims.keys(), ...manifests.keys()) + 1;
      const body = {
        layout: LAYOUT_VERSION,
        hour,
        generation,
        settings: ctx.settings,
        sources: fresh.map((s) => ({ key: s.key, etag: s.etag, size: s.size })),
      };
      const claim: Claim = {
        kind: "stowage-compact-claim",
        ...body,
        digest: claimDigest(body),
        run: ctx.run,
      };
      const made = await createOnly(
        ctx.calls,
        claimKey(ctx.dest, hourMs, generation),
        documentBytes(claim),
        { contentType: "application/json", ...lockOption(hourMs, ctx.objectLock, Date.now()) },
      );
      if (made === "exists") {
        // Another compactor took this generation (or our own first attempt landed): read and retry.
        state = (await listAll(ctx.calls, stateHourPrefix(ctx.dest, hourMs))).entries;
        continue;
      }
      claims.set(generation, { claim, at: ctx.nowMs });
      const out = await complete(ctx, claim, hourMs, fresh);
      manifests.set(generation, out.manifest);
      report.generations.push(summarize(out.manifest, false, out.committed));
      if (!out.manifest.abandoned) break;
    }
  } catch (err) {
    report.status = "failed";
    const e = err as { code?: string; message?: string; hint?: string };
    report.error = {
      code: String(e.code ?? "error"),
      message: String(e.message ?? err),
      ...(e.hint ? { hint: e.hint } : {}),
    };
    if (!isStowageError(err) && !(e.code === "layout")) report.error.code = classifyCode(err);
    return report;
  }
  const did = report.generations.some((g) => g.committed || g.rows > 0 || g.resumed);
  report.status = report.inProgress.length > 0 ? "in-progress" : did ? "compacted" : "up-to-date";
  return report;
}

function classifyCode(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" ? code : "error";
}

/** Completes a claim; sources known from this run's listing, else from the claim's keys. */
async function complete(ctx: HourContext, claim: Claim, hourMs: number, known?: ClaimedSource[]) {
  const sources =
    known ??
    claim.sources.map((s) => {
      const p = parseObjectKey(s.key, ctx.prefix);
      return { ...s, minMs: p?.minMs ?? hourMs, maxMs: p?.maxMs ?? hourMs + 3_599_999 };
    });
  return completeClaim(ctx, claim, hourMs, sources);
}

/** Reads the claims and manifests of the hour not read yet. */
async function loadState(
  ctx: HourContext,
  hourMs: number,
  hour: string,
  entries: readonly ListEntry[],
  claims: Map<number, { claim: Claim; at: number }>,
  manifests: Map<number, Manifest>,
): Promise<void> {
  for (const e of entries) {
    const k = parseStateKey(e.key, ctx.dest);
    if (!k || k.hourMs !== hourMs) continue;
    const expect = { hour, generation: k.generation };
    if (k.kind === "claim" && !claims.has(k.generation)) {
      const bytes = await readDocument(ctx.calls, e.key);
      if (bytes)
        claims.set(k.generation, {
          claim: parseClaim(bytes, e.key, expect),
          at: e.lastModified.getTime(),
        });
    } else if (k.kind === "manifest" && !manifests.has(k.generation)) {
      const bytes = await readDocument(ctx.calls, e.key);
      if (bytes) manifests.set(k.generation, parseManifest(bytes, e.key, expect));
    }
  }
}
