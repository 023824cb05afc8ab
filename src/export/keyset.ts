/**
 * Keyset mode: pages of `WHERE key > last ORDER BY key LIMIT n`,
 * each a short query of its own (no long-lived cursor or snapshot), each written
 * to `{export}_{run_id}_{page:06}.{ext}`. After a page's object completed, the
 * state `_keyset-<export>.json` (beside the cursor) records it; a killed run
 * resumes from there on the next start with the same run id.
 *
 * Invariants:
 * - the state lists only pages whose objects completed, so a resumed run re-exports
 *   at most the page that was being written, under the same key (overwritten);
 * - pages are contiguous in key order and disjoint (`> last`), so every row with a
 *   key is exported exactly once; rows with a NULL key are refused up front;
 * - the state is deleted when the run commits.
 */
import { StowageError } from "../shared/errors.js";
import type { ObjectStore } from "../store/object-store.js";
import type { RetryPolicyOptions } from "../store/retry-policy.js";
import type { ResolvedExport } from "./config.js";
import { checkCursorKind, cursorParam, cursorText } from "./cursor.js";
import { parseManifest } from "./manifest.js";
import { join, keysetStateKey } from "./naming.js";
import { readObject } from "./retrying-store.js";
import type { PartRecord } from "./rotating-output.js";
import { queryOptions, type StreamContext, type StreamResult } from "./run-context.js";
import { batchColumn, type ColumnKind, type ColumnSpec } from "./sources/source.js";
import { keysetNullSql, keysetSql } from "./sql.js";

/** `_keyset-<export>.json`: the pages a keyset run has completed. */
export interface KeysetState {
  version: 1;
  export: string;
  run_id: string;
  column: string;
  kind: ColumnKind;
  /** The run's resolved folder and start time (a resumed run keeps both). */
  prefix: string;
  started_at: string;
  page_size: number;
  pages: number;
  /** Text form of the last key of the last completed page. */
  last: string | null;
  parts: PartRecord[];
  updated_at: string;
}

/**
 * The unfinished keyset run to resume, if any (a state whose run already committed is stale).
 * @example const resume = await readKeysetState(store, exp, policy);
 */
export async function readKeysetState(
  store: ObjectStore,
  exp: ResolvedExport,
  policy: RetryPolicyOptions,
  signal?: AbortSignal,
): Promise<KeysetState | undefined> {
  const key = keysetStateKey(exp.prefixTemplate, exp.name);
  const bytes = await readObject(store, key, policy, signal);
  if (!bytes) return undefined;
  let state: KeysetState;
  try {
    state = JSON.parse(bytes.toString("utf8")) as KeysetState;
  } catch {
    throw new StowageError("format", `${key} is not a stowage keyset state file`, {
      hint: "delete it to start the keyset export from the beginning",
    });
  }
  const folder = await readObject(store, join(state.prefix, "manifest.json"), policy, signal);
  const committed = folder && safeRunId(folder) === state.run_id;
  if (state.column !== exp.keysetColumn || committed) {
    await store.delete(key, { signal });
    return undefined;
  }
  return state;
}

function safeRunId(bytes: Buffer): string | undefined {
  try {
    return parseManifest(bytes, "manifest.json").run_id;
  } catch {
    return undefined;
  }
}

/** Runs (or resumes) the pages of a keyset export. */
export async function runKeyset(ctx: StreamContext, resume?: KeysetState): Promise<StreamResult> {
  const { exp, source, store } = ctx;
  const column = exp.keysetColumn!;
  const pageSize = resume?.page_size ?? exp.pageSize!;
  const split = exp.maxFileBytes !== undefined;
  if (!resume) await refuseNullKeys(ctx, column);
  let page = resume?.pages ?? 0;
  let last = resume?.last ?? null;
  let kind = resume?.kind;
  const parts: PartRecord[] = [...(resume?.parts ?? [])];
  let columns: ColumnSpec[] = [];
  for (;;) {
    const after =
      last !== null && kind ? { kind, value: cursorParam(kind, last, source.type) } : undefined;
    const st = keysetSql(exp, source, column, pageSize, after);
    const stream = await source.query(st.sql, st.params, queryOptions(ctx, [column]));
    columns = stream.columns;
    const idx = columns.findIndex((c) => c.name === column);
    if (idx < 0) {
      await stream.close();
      throw new StowageError(
        "config",
        `keyset_column "${column}" is not a column of the query (columns: ${columns.map((c) => c.name).join(", ")})`,
      );
    }
    checkCursorKind(column, columns[idx]!.kind);
    kind = columns[idx]!.kind;
    const n = ++page;
    const out = ctx.output(columns, (i) => ctx.keys.page(n, i, split));
    let rows = 0;
    let lastValue: unknown = null;
    for await (const batch of stream) {
      if (batch.length) lastValue = batchColumn(batch.slice(batch.length - 1), idx)[0];
      await out.write(batch);
      rows += batch.length;
      ctx.rowsDone(batch.length);
    }
    if (rows === 0 && n > 1) {
      page--; // the previous page ended exactly at the last key
      break;
    }
    parts.push(...(await out.finish(rows === 0)));
    if (rows === 0) break;
    last = cursorText(kind, lastValue);
    await saveState(store, ctx, { column, kind, pageSize, pages: n, last, parts });
    if (rows < pageSize) break;
  }
  return {
    parts,
    columns,
    keyset: { column, page_size: pageSize, pages: page, resumed: resume !== undefined },
  };
}

async function refuseNullKeys(ctx: StreamContext, column: string): Promise<void> {
  const st = keysetNullSql(ctx.exp, ctx.source, column);
  const stream = await ctx.source.query(st.sql, st.params, {
    ...queryOptions(ctx),
    batchSize: 1,
    textValues: false,
  });
  let found = false;
  for await (const batch of stream) found ||= batch.length > 0;
  if (found)
    throw new StowageError(
      "config",
      `keyset_column "${column}" has NULL values; keyset pages would skip those rows`,
      {
        hint: "use a NOT NULL unique key (e.g. the primary key), or mode chunked which exports NULLs",
      },
    );
}

async function saveState(
  store: ObjectStore,
  ctx: StreamContext,
  s: {
    column: string;
    kind: ColumnKind;
    pageSize: number;
    pages: number;
    last: string;
    parts: PartRecord[];
  },
): Promise<void> {
  const state: KeysetState = {
    version: 1,
    export: ctx.exp.name,
    run_id: ctx.runId,
    column: s.column,
    kind: s.kind,
    prefix: ctx.prefix,
    started_at: ctx.startedAt.toISOString(),
    page_size: s.pageSize,
    pages: s.pages,
    last: s.last,
    parts: s.parts,
    updated_at: new Date().toISOString(),
  };
  await store.put(keysetStateKey(ctx.exp.prefixTemplate, ctx.exp.name), JSON.stringify(state), {
    contentType: "application/json",
    signal: ctx.signal,
  });
}
