/**
 * `stowage verify --compacted`: the compacted hours of a range (docs/compaction.md). For each
 * committed manifest: its counts add up (every source line a row or a reject; parts hold the
 * sources' rows), every part exists with the manifest's size and SHA-256 (and the configured
 * lock), every source that still exists is the object compacted (ETag, `records`); no Parquet
 * part in the hour's partition folder is outside a commit (an engine would count its rows) —
 * except those of a claim still being completed. At depth full each part is downloaded,
 * re-hashed, and its footer's row count compared with the manifest.
 */
import { createHash } from "node:crypto";
import { HOUR_MS } from "../v1-format/object-key.js";
import {
  parseManifest,
  parseOutputKey,
  parseStateKey,
  partitionPrefix,
  resolveDest,
  stateDayPrefix,
  type Manifest,
} from "../compact/index.js";
import type { ObjectLockSpec } from "../config/destination.js";
import { parquetRowCount } from "../encoders/parquet-footer.js";
import { isStowageError } from "../shared/errors.js";
import { readCapped } from "../shared/read-capped.js";
import { isCompositeChecksum } from "../store/checksum.js";
import { lockProblems, lockUntil } from "../store/object-lock.js";
import type { ListEntry, ObjectStore } from "../store/object-store.js";
import { withRetry, type RetryPolicyOptions } from "../store/retry-policy.js";
import type { VerifyFinding } from "./verify-logs.js";

export interface VerifyCompactedOptions {
  prefix: string;
  dest?: string | undefined;
  fromMs: number;
  toMs: number;
  depth: "metadata" | "full";
  objectLock?: ObjectLockSpec | undefined;
  retry: RetryPolicyOptions;
  signal?: AbortSignal | undefined;
}

export interface CompactedReport {
  ok: boolean;
  dest: string;
  hours: number;
  manifests: number;
  parts: number;
  rows: number;
  /** Sources already gone (expired by a lifecycle rule): not a finding. */
  sourcesGone: number;
  requests: { list: number; head: number; get: number };
  failures: VerifyFinding[];
}

const TAIL_BYTES = 4 * 1024 * 1024;

/**
 * @example const report = await verifyCompacted(store, { prefix: "app", fromMs, toMs, depth: "metadata", retry });
 */
export async function verifyCompacted(
  store: ObjectStore,
  o: VerifyCompactedOptions,
): Promise<CompactedReport> {
  const dest = resolveDest(o.prefix, o.dest);
  const r: CompactedReport = {
    ok: true,
    dest,
    hours: 0,
    manifests: 0,
    parts: 0,
    rows: 0,
    sourcesGone: 0,
    requests: { list: 0, head: 0, get: 0 },
    failures: [],
  };
  const hooks = { signal: o.signal };
  const call = <T>(kind: keyof CompactedReport["requests"], f: () => Promise<T>) =>
    withRetry(() => (r.requests[kind]++, f()), o.retry, hooks);
  const list = async (prefix: string): Promise<ListEntry[]> => {
    const out: ListEntry[] = [];
    let token: string | undefined;
    do {
      const page = await call("list", () =>
        store.list({ prefix, continuationToken: token, ...hooks }),
      );
      out.push(...page.entries);
      token = page.nextContinuationToken;
    } while (token);
    return out;
  };
  const first = o.fromMs - (((o.fromMs % 86_400_000) + 86_400_000) % 86_400_000);
  for (let day = first; day <= o.toMs; day += 86_400_000) {
    const state = await list(stateDayPrefix(dest, day));
    const byHour = new Map<number, ListEntry[]>();
    for (const e of state) {
      const k = parseStateKey(e.key, dest);
      if (!k || k.hourMs + HOUR_MS <= o.fromMs || k.hourMs > o.toMs) continue;
      byHour.set(k.hourMs, [...(byHour.get(k.hourMs) ?? []), e]);
    }
    for (const [hourMs, entries] of [...byHour].sort((a, b) => a[0] - b[0])) {
      r.hours++;
      await verifyHour(store, o, dest, hourMs, entries, r, call, list);
    }
  }
  r.ok = r.failures.length === 0;
  return r;
}

type Call = <T>(kind: "list" | "head" | "get", f: () => Promise<T>) => Promise<T>;

async function verifyHour(
  store: ObjectStore,
  o: VerifyCompactedOptions,
  dest: string,
  hourMs: number,
  entries: ListEntry[],
  r: CompactedReport,
  call: Call,
  list: (prefix: string) => Promise<ListEntry[]>,
): Promise<void> {
  const fail = (key: string, problems: string[]) =>
    problems.length && r.failures.push({ key, problems });
  const hour = new Date(hourMs).toISOString().slice(0, 13);
  const committed = new Map<string, number>(); // part key → generation
  const claims = new Set<number>();
  const settled = new Set<number>();
  for (const e of entries) {
    const k = parseStateKey(e.key, dest)!;
    if (k.kind === "claim") claims.add(k.generation);
    if (k.kind !== "manifest") continue;
    settled.add(k.generation);
    let m: Manifest;
    try {
      const bytes = await call("get", async () =>
        readCapped((await store.get(e.key, { signal: o.signal })).body, 64 * 1024 * 1024, e.key),
      );
      m = parseManifest(bytes, e.key, { hour, generation: k.generation });
    } catch (err) {
      if (!isStowageError(err, "integrity", "format")) throw err;
      fail(e.key, [(err as Error).message]);
      continue;
    }
    if (m.abandoned) continue;
    r.manifests++;
    fail(e.key, countProblems(m));
    for (const out of m.outputs) {
      committed.set(out.key, k.generation);
      r.parts++;
      r.rows += out.rows;
      fail(out.key, await partProblems(store, o, hourMs, out, call));
    }
    for (const s of m.sources) {
      const info = await call("head", () => store.head(s.key, { signal: o.signal })).catch(
        (err: unknown) => {
          if (isStowageError(err, "not-found")) return undefined;
          throw err;
        },
      );
      if (!info) {
        r.sourcesGone++;
        continue;
      }
      const problems: string[] = [];
      if (info.etag !== s.etag)
        problems.push(
          `ETag ${info.etag}, the manifest ${e.key} compacted ${s.etag}: replaced after compaction`,
        );
      const records = Number(info.metadata.records);
      if (s.status === "ok" && Number.isInteger(records) && records !== s.lines)
        problems.push(`records metadata says ${records}, the manifest counted ${s.lines} lines`);
      fail(s.key, problems);
    }
  }
  for (const e of await list(partitionPrefix(dest, hourMs))) {
    if (!e.key.endsWith(".parquet") || committed.has(e.key)) continue;
    const p = parseOutputKey(e.key, dest);
    if (p && claims.has(p.generation) && !settled.has(p.generation)) continue; // a claim being completed
    fail(e.key, [
      p
        ? `a part of generation ${p.generation} that no manifest commits: engines count its rows (a generation given up whose parts were not removed?)`
        : "a Parquet file in a partition folder that compaction did not write: engines count its rows",
    ]);
  }
}

function countProblems(m: Manifest): string[] {
  const out: string[] = [];
  const partRows = m.outputs.reduce((n, p) => n + p.rows, 0);
  const sourceRows = m.sources.reduce((n, s) => n + s.rows, 0);
  const rejected = m.sources.reduce((n, s) => n + s.rejected, 0);
  if (partRows !== m.totals.rows || sourceRows !== m.totals.rows)
    out.push(
      `parts hold ${partRows} rows, sources gave ${sourceRows}, totals say ${m.totals.rows}`,
    );
  for (const s of m.sources)
    if (s.rows + s.rejected !== s.lines)
      out.push(`${s.key}: ${s.lines} lines but ${s.rows} rows + ${s.rejected} rejected`);
  if ((m.rejects?.lines ?? 0) !== rejected)
    out.push(
      `the rejects object holds ${m.rejects?.lines ?? 0} lines, the sources rejected ${rejected}`,
    );
  return out;
}

async function partProblems(
  store: ObjectStore,
  o: VerifyCompactedOptions,
  hourMs: number,
  out: Manifest["outputs"][number],
  call: Call,
): Promise<string[]> {
  const info = await call("head", () => store.head(out.key, { signal: o.signal })).catch(
    (err: unknown) => {
      if (isStowageError(err, "not-found")) return undefined;
      throw err;
    },
  );
  if (!info) return ["missing: the manifest commits it, the bucket does not have it"];
  const problems: string[] = [];
  if (info.size !== out.bytes) problems.push(`${info.size} bytes, the manifest says ${out.bytes}`);
  const stored = info.checksumSha256;
  if (!stored) problems.push("no SHA-256 checksum is stored (written or replaced outside Stowage)");
  else if (
    !isCompositeChecksum(stored) &&
    Buffer.from(stored, "base64").toString("hex") !== out.sha256
  )
    problems.push(`stored SHA-256 differs from the manifest's ${out.sha256}`);
  if (o.objectLock)
    problems.push(...lockProblems(info, lockUntil(hourMs, o.objectLock), o.objectLock));
  if (o.depth === "full" && problems.length === 0) {
    const { sha256, rows } = await call("get", async () => {
      const res = await store.get(out.key, { signal: o.signal });
      const hash = createHash("sha256");
      let tail: Buffer[] = [];
      let tailBytes = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        hash.update(chunk);
        tail.push(chunk);
        tailBytes += chunk.length;
        while (tail.length > 1 && tailBytes - tail[0]!.length >= TAIL_BYTES)
          tailBytes -= tail.shift()!.length;
      }
      const last = Buffer.allocUnsafe(tailBytes);
      let at = 0;
      for (const c of tail) at += c.copy(last, at);
      tail = [];
      return { sha256: hash.digest("hex"), rows: parquetRowCount(last) };
    });
    if (sha256 !== out.sha256)
      problems.push(`its bytes hash to ${sha256}, the manifest says ${out.sha256}`);
    if (rows !== BigInt(out.rows))
      problems.push(`its footer counts ${rows} rows, the manifest ${out.rows}`);
  }
  return problems;
}
