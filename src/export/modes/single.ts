/**
 * Full and incremental modes: one query streamed into one series of objects.
 * Incremental runs read the cursor object, select `cursor_column > ?` (sql.ts)
 * and track the greatest cursor value seen (the commit phase stores it).
 */
import { StowageError } from "../../shared/errors.js";
import { checkCursorKind, cursorParam, cursorText, MaxTracker } from "./cursor.js";
import { parseCursor, type CursorState } from "../manifest.js";
import { cursorKey } from "../naming.js";
import { readObject } from "../retrying-store.js";
import { queryOptions, type StreamContext, type StreamResult } from "./run-context.js";
import { batchColumn, type ColumnKind } from "../sources/source.js";
import { incrementalSql } from "../sql.js";

/** Full and incremental runs: one query, one series of objects. */
export async function runSingle(ctx: StreamContext): Promise<StreamResult> {
  const { exp, source } = ctx;
  let state: CursorState | undefined;
  if (exp.mode === "incremental") {
    const key = cursorKey(exp.prefixTemplate, exp.name);
    const bytes = await readObject(ctx.store, key, ctx.policy, ctx.signal);
    state = bytes ? parseCursor(bytes, key) : undefined;
    if (state && state.column !== exp.cursorColumn) state = undefined; // the cursor column changed: start over
  }
  const kind = state?.kind as ColumnKind | undefined;
  const st = incrementalSql(
    exp,
    source,
    exp.cursorColumn ?? "",
    state && kind ? { kind, value: cursorParam(kind, state.value, source.type) } : undefined,
  );
  const stream = await source.query(
    st.sql,
    st.params,
    queryOptions(ctx, exp.cursorColumn ? [exp.cursorColumn] : []),
  );
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
    tracker?.see(batchColumn(batch, tracker.index));
    await out.write(batch);
    ctx.rowsDone(batch.length);
  }
  const parts = await out.finish(true);
  if (!tracker) return { parts, columns: stream.columns };
  const colKind = stream.columns.find((c) => c.name === exp.cursorColumn)!.kind;
  const to = tracker.max === null ? (state?.value ?? null) : cursorText(colKind, tracker.max);
  return {
    parts,
    columns: stream.columns,
    cursor: { column: exp.cursorColumn!, kind: colKind, from: state?.value ?? null, to },
  };
}
