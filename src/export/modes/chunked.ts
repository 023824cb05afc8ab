/**
 * Chunked mode: the numeric `chunk_column` range [min, max] is cut into
 * `chunk_size` ranges plus one chunk for NULLs, and `parallel` workers (each with
 * its own connection) export chunks as they claim them. Every row falls in exactly
 * one range (`>= lo AND < hi`, or `IS NULL`); empty chunks write no object.
 */
import { StowageError } from "../../shared/errors.js";
import type { PartRecord } from "../rotating-output.js";
import { queryOptions, type StreamContext, type StreamResult } from "./run-context.js";
import { batchRows, type ColumnSpec, type Source } from "../sources/source.js";
import { chunkBoundsSql, chunkSql } from "../sql.js";

interface Chunk {
  n: number;
  lo?: bigint;
  hi?: bigint;
}

function toBigInt(v: unknown, column: string): bigint | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isInteger(v)) return BigInt(v);
  if (typeof v === "string" && /^-?\d+(\.0*)?$/.test(v)) return BigInt(v.replace(/\.0*$/, ""));
  throw new StowageError(
    "config",
    `chunk_column "${column}" holds ${String(v)}; chunked mode needs an integer column`,
    {
      hint: "chunk on an integer key such as the primary key",
    },
  );
}

async function bounds(ctx: StreamContext, source: Source): Promise<[bigint | null, bigint | null]> {
  const st = chunkBoundsSql(ctx.exp, source, ctx.exp.chunkColumn!);
  const stream = await source.query(st.sql, st.params, {
    ...queryOptions(ctx),
    batchSize: 1,
    textValues: false,
    csvLines: false,
  });
  let row: unknown[] = [null, null];
  for await (const batch of stream) row = batchRows(batch)[0] ?? row;
  return [toBigInt(row[0], ctx.exp.chunkColumn!), toBigInt(row[1], ctx.exp.chunkColumn!)];
}

/** Runs every chunk; resolves with the parts in chunk order. The context's source is worker 1. */
export async function runChunked(ctx: StreamContext): Promise<StreamResult> {
  const { exp } = ctx;
  const size = BigInt(exp.chunkSize!);
  const first = ctx.source;
  const sources: Source[] = [first];
  try {
    // PostgreSQL: every worker reads the snapshot the bounds were taken in.
    const snapshot = first.exportSnapshot ? await first.exportSnapshot() : undefined;
    const [min, max] = await bounds(ctx, first);
    const list: Chunk[] = [];
    if (min !== null && max !== null) {
      for (let lo = min, n = 1; lo <= max; lo += size, n++) list.push({ n, lo, hi: lo + size });
    }
    list.push({ n: list.length + 1 }); // NULLs
    let columns: ColumnSpec[] | undefined;
    let next = 0;
    const parts: PartRecord[] = [];
    const worker = async (source: Source) => {
      try {
        for (let i = next++; i < list.length; i = next++) {
          const got = await exportChunk(ctx, source, list[i]!);
          columns ??= got.columns;
          parts.push(...got.parts);
        }
      } catch (err) {
        next = list.length; // the other workers stop after their current chunk
        throw err;
      }
    };
    const workers = Math.min(exp.parallel, list.length);
    for (let w = 1; w < workers; w++) {
      const source = await ctx.openSource();
      sources.push(source);
      if (snapshot !== undefined) await source.importSnapshot!(snapshot);
    }
    const results = await Promise.allSettled(sources.map(worker));
    const failed = results.find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
    parts.sort((a, b) => (a.chunk ?? 0) - (b.chunk ?? 0)); // stable: a chunk's parts stay in order
    const chunks = {
      column: exp.chunkColumn!,
      size: exp.chunkSize!,
      parallel: exp.parallel,
      min: min?.toString() ?? null,
      max: max?.toString() ?? null,
      count: list.length,
      shared_snapshot: snapshot !== undefined,
    };
    return { parts, columns: columns ?? [], chunks };
  } finally {
    await Promise.allSettled(sources.slice(1).map((s) => s.close())); // the runner closes the first
  }
}

async function exportChunk(
  ctx: StreamContext,
  source: Source,
  chunk: Chunk,
): Promise<{ parts: PartRecord[]; columns: ColumnSpec[] }> {
  const st = chunkSql(ctx.exp, source, ctx.exp.chunkColumn!, chunk);
  const stream = await source.query(st.sql, st.params, queryOptions(ctx));
  const split = ctx.exp.maxFileBytes !== undefined;
  const out = ctx.output(stream.columns, (n) => ctx.keys.chunk(chunk.n, n, split), chunk.n);
  for await (const batch of stream) {
    await out.write(batch);
    ctx.rowsDone(batch.length);
  }
  return { parts: await out.finish(false), columns: stream.columns };
}
