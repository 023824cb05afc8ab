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
 * - the state is deleted when the run commits;
 * - the state is bucket content: it is checked (keyset-state.ts) and, before a resumed
 *   run writes anything, against the database — the key's kind and the columns match
 *   the state, and the source holds at least the state's rows up to its last key — so a
 *   damaged state stops the run instead of exporting rows twice (issue 31 §4);
 * - every page has the columns of the first (a manifest describes one schema).
 */
import { StowageError } from "../../shared/errors.js";
import type { ObjectStore } from "../../store/object-store.js";
import type { RetryPolicyOptions } from "../../store/retry-policy.js";
import type { ResolvedExport } from "../config.js";
import { checkCursorKind, cursorParam, cursorText } from "./cursor.js";
import { KEYSET_RESTART_HINT, parseKeysetState, type KeysetState } from "./keyset-state.js";
import { manifestSchema, parseManifest, type Manifest } from "../manifest.js";
import { join, keysetStateKey } from "../naming.js";
import { readObject } from "../retrying-store.js";
import type { PartRecord } from "../rotating-output.js";
import { queryOptions, type StreamContext, type StreamResult } from "./run-context.js";
import { batchColumn, type ColumnKind, type ColumnSpec } from "../sources/source.js";
import { keysetCountSql, keysetNullSql, keysetSql } from "../sql.js";

export type { KeysetState } from "./keyset-state.js";

const RESTART_HINT = KEYSET_RESTART_HINT;

/**
 * The unfinished keyset run to resume, if any (a state whose run already committed is
 * stale and goes). A state that is not this export's unfinished run in `extension`'s
 * format is refused (keyset-state.ts), never guessed at.
 * @example const resume = await readKeysetState(store, exp, policy, "csv");
 */
export async function readKeysetState(
  store: ObjectStore,
  exp: ResolvedExport,
  policy: RetryPolicyOptions,
  extension: string,
  signal?: AbortSignal,
): Promise<KeysetState | undefined> {
  const key = keysetStateKey(exp.prefixTemplate, exp.name);
  const bytes = await readObject(store, key, policy, signal);
  if (!bytes) return undefined;
  const state = parseKeysetState(bytes, key, exp, extension);
  const folder = await readObject(store, join(state.prefix, "manifest.json"), policy, signal);
  if (folder && safeRunId(folder) === state.run_id) {
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
  else await checkResume(ctx, column, resume);
  let page = resume?.pages ?? 0;
  let last = resume?.last ?? null;
  let kind = resume?.kind;
  let schema = resume?.schema;
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
    const pageSchema = manifestSchema(columns);
    if (schema && !sameColumns(schema, pageSchema)) {
      await stream.close();
      throw new StowageError(
        "source",
        `the columns of the query changed during the keyset run (${describe(schema)} → ${describe(pageSchema)}); one manifest holds one schema`,
        { hint: `${keysetStateKey(exp.prefixTemplate, exp.name)}: ${RESTART_HINT}` },
      );
    }
    schema = pageSchema;
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
    await saveState(store, ctx, { column, kind, pageSize, pages: n, last, parts, schema });
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

/**
 * Before a resumed run writes anything: the query's columns are the state's (the key of
 * the state's kind), and the source holds at least the state's rows with a key up to
 * `last` — fewer means `last` is behind the pages written, and the next page would
 * export rows again (or rows were deleted while the run was paused).
 */
async function checkResume(ctx: StreamContext, column: string, s: KeysetState): Promise<void> {
  const key = keysetStateKey(ctx.exp.prefixTemplate, ctx.exp.name);
  const refuse = (code: "source" | "integrity", what: string) =>
    new StowageError(code, `${key}: ${what}; it cannot be resumed`, { hint: RESTART_HINT });
  const probe = keysetSql(ctx.exp, ctx.source, column, 0);
  const head = await ctx.source.query(probe.sql, probe.params, {
    ...queryOptions(ctx),
    batchSize: 1,
  });
  await head.close();
  const actual = head.columns.find((c) => c.name === column)?.kind;
  if (actual !== s.kind)
    throw refuse(
      "source",
      `its pages have ${column} as ${s.kind}, but the query gives ${actual ?? "no such column"}`,
    );
  if (s.schema && !sameColumns(s.schema, manifestSchema(head.columns)))
    throw refuse(
      "source",
      `its pages have the columns ${describe(s.schema)}, but the query gives ${describe(manifestSchema(head.columns))}`,
    );
  const rows = s.parts.reduce((a, p) => a + p.rows, 0);
  const st = keysetCountSql(ctx.exp, ctx.source, column, {
    kind: s.kind,
    value: cursorParam(s.kind, s.last, ctx.source.type),
  });
  const stream = await ctx.source.query(st.sql, st.params, {
    ...queryOptions(ctx),
    batchSize: 1,
    textValues: false,
    csvLines: false,
  });
  let held: number | undefined;
  for await (const batch of stream)
    if (batch.length) held = Number(String(batchColumn(batch, 0)[0]));
  if (held === undefined || held < rows)
    throw refuse(
      "integrity",
      `its ${s.pages} page(s) hold ${rows} rows with ${column} up to ${s.last}, but the source has ${held ?? 0} such rows: last is behind the pages written (or rows were deleted while the run was paused), and resuming would export rows twice`,
    );
}

/** Same column names and kinds, in order (the database's type names may be spelt differently). */
function sameColumns(a: Manifest["schema"], b: Manifest["schema"]): boolean {
  return a.length === b.length && a.every((c, i) => c.name === b[i]!.name && c.type === b[i]!.type);
}

const describe = (schema: Manifest["schema"]) =>
  `(${schema.map((c) => `${c.name} ${c.type}`).join(", ")})`;

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
    schema: Manifest["schema"];
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
    schema: s.schema,
    updated_at: new Date().toISOString(),
  };
  await store.put(keysetStateKey(ctx.exp.prefixTemplate, ctx.exp.name), JSON.stringify(state), {
    contentType: "application/json",
    signal: ctx.signal,
  });
}
