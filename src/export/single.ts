/**
 * Full and incremental modes: one query streamed into one series of objects.
 * Incremental runs read the cursor object, add `cursor_column > ?` around the
 * query and track the greatest cursor value seen (the runner stores it after commit).
 */
import { isStowageError, StowageError } from "../shared/errors.js";
import { readCapped } from "../shared/read-capped.js";
import type { ObjectStore } from "../store/object-store.js";
import { checkCursorKind, cursorParam, cursorText, MaxTracker } from "./cursor.js";
import { parseCursor, type CursorState, type Manifest } from "./manifest.js";
import { cursorKey } from "./naming.js";
import type { PartRecord } from "./rotating-output.js";
import type { RunContext } from "./runner.js";
import type { ColumnSpec, QueryParam } from "./sources/source.js";

/** Full and incremental runs: one query, one series of objects. */
export async function runSingle(
  ctx: RunContext,
): Promise<{ parts: PartRecord[]; columns: ColumnSpec[]; cursor?: Manifest["cursor"] }> {
  const { exp, options } = ctx;
  const source = await options.openSource();
  try {
    let sql = ctx.baseSql(source);
    const params: QueryParam[] = [];
    let state: CursorState | undefined;
    if (exp.mode === "incremental") {
      state = await readCursor(
        options.store,
        cursorKey(exp.prefixTemplate, exp.name),
        options.signal,
      );
      if (state && state.column !== exp.cursorColumn) state = undefined; // the cursor column changed: start over
      if (state) {
        sql = `SELECT * FROM (${sql}) AS stowage_q WHERE ${source.quoteIdent(exp.cursorColumn!)} > ${source.placeholder(1, state.kind as ColumnSpec["kind"])}`;
        params.push(cursorParam(state.kind as ColumnSpec["kind"], state.value, source.type));
      }
    }
    const stream = await source.query(sql, params, {
      batchSize: options.tuning.batchSize,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    let tracker: MaxTracker | undefined;
    if (exp.mode === "incremental") {
      const idx = stream.columns.findIndex((c) => c.name === exp.cursorColumn);
      if (idx < 0) {
        await stream.close();
        throw new StowageError(
          "config",
          `cursor_column "${exp.cursorColumn}" is not a column of the query (columns: ${stream.columns.map((c) => c.name).join(", ")})`,
        );
      }
      checkCursorKind(exp.cursorColumn!, stream.columns[idx]!.kind);
      tracker = new MaxTracker(idx, stream.columns[idx]!.kind);
    }
    const split = exp.maxFileBytes !== undefined;
    const out = ctx.output(stream.columns, (n) => ctx.keys.data(n, split));
    for await (const batch of stream) {
      tracker?.see(batch);
      await out.write(batch);
      ctx.progress.rows += batch.length;
      ctx.report();
    }
    const parts = await out.finish(true);
    if (!tracker) return { parts, columns: stream.columns };
    const kind = stream.columns.find((c) => c.name === exp.cursorColumn)!.kind;
    const to = tracker.max === null ? (state?.value ?? null) : cursorText(kind, tracker.max);
    return {
      parts,
      columns: stream.columns,
      cursor: { column: exp.cursorColumn!, kind, from: state?.value ?? null, to },
    };
  } finally {
    await source.close();
  }
}

async function readCursor(
  store: ObjectStore,
  key: string,
  signal?: AbortSignal,
): Promise<CursorState | undefined> {
  try {
    const res = await store.get(key, signal ? { signal } : {});
    return parseCursor(await readCapped(res.body, 1024 * 1024, `export cursor ${key}`), key);
  } catch (err) {
    if (isStowageError(err, "not-found")) return undefined;
    throw err;
  }
}
