/**
 * What a finished stream phase becomes: the run's own manifest
 * (`manifest-<run_id>.json`, SPEC §7.2), and the check that comes before it — the run
 * lists every object once and its objects hold exactly the rows the source returned.
 */
import { StowageError } from "../shared/errors.js";
import type { ResolvedExport } from "./config.js";
import { manifestSchema, type Manifest } from "./manifest.js";
import type { StreamResult } from "./modes/run-context.js";
import type { Prepared } from "./prepare.js";
import type { PartRecord } from "./rotating-output.js";
import type { SourceType } from "./sources/source.js";

/**
 * Never commit a duplicate (issue 31 §4): every object once, and the parts hold exactly
 * the rows the source returned.
 * @example checkParts(streamed.parts, rowsRead); // throws an "integrity" StowageError
 */
export function checkParts(parts: readonly PartRecord[], sourceRows: number): void {
  const seen = new Set<string>();
  for (const x of parts) {
    if (seen.has(x.path))
      throw new StowageError("integrity", `the run would list ${x.path} twice in its manifest`);
    seen.add(x.path);
  }
  const rows = parts.reduce((a, x) => a + x.rows, 0);
  if (rows !== sourceRows)
    throw new StowageError(
      "integrity",
      `the run's objects hold ${rows} rows but the source returned ${sourceRows}; nothing was committed`,
    );
}

export interface RunManifestInput {
  exp: ResolvedExport;
  prepared: Pick<Prepared, "runId" | "startedAt" | "format">;
  streamed: StreamResult;
  sourceType: SourceType;
  /** The rows the source returned (a resumed keyset run's kept pages included). */
  sourceRows: number;
  finishedAt: Date;
}

/**
 * The run's own manifest: its objects, schema, totals, times and its mode's section.
 * @example const run = runManifest({ exp, prepared, streamed, sourceType: "postgres", sourceRows, finishedAt: new Date() });
 */
export function runManifest(r: RunManifestInput): Manifest {
  const { exp, prepared: p, streamed } = r;
  const parts = streamed.parts;
  return {
    version: 1,
    run_id: p.runId,
    export: exp.name,
    mode: exp.mode,
    format: exp.format,
    compression: p.format.compression,
    source: { type: r.sourceType, rows: r.sourceRows },
    schema: manifestSchema(streamed.columns),
    parts,
    totals: {
      rows: parts.reduce((a, x) => a + x.rows, 0),
      bytes: parts.reduce((a, x) => a + x.bytes, 0),
      parts: parts.length,
    },
    started_at: p.startedAt.toISOString(),
    finished_at: r.finishedAt.toISOString(),
    duration_ms: r.finishedAt.getTime() - p.startedAt.getTime(),
    ...(streamed.cursor ? { cursor: streamed.cursor } : {}),
    ...(streamed.chunks ? { chunks: streamed.chunks } : {}),
    ...(streamed.keyset ? { keyset: streamed.keyset } : {}),
  };
}
