/**
 * `stowage run --config export.yaml [--export NAME] [--json] [--cleanup]` (SPEC §7):
 * runs exports one after another. On a TTY a progress line (rows, bytes, rate, parts)
 * is redrawn on stderr; `--json` prints one summary object on stdout. `--cleanup`
 * only deletes what failed runs left and never connects to the database.
 * Exit 0 all committed, 1 any export failed, 2 config/usage error.
 */
import type { Command } from "commander";
import { formatBytes, formatCount } from "../../shared/bytes.js";
import { onInterrupt } from "../interrupt.js";
import type { CliIo, SetExitCode } from "../io.js";

interface RunFlags {
  config: string;
  export?: string;
  json?: boolean;
  cleanup?: boolean;
  trustEndpoint?: string[];
}

export function register(program: Command, io: CliIo, setExit: SetExitCode): void {
  program
    .command("run")
    .description("run database exports into the bucket (Parquet/CSV/NDJSON, manifest, _SUCCESS)")
    .requiredOption("-c, --config <file>", "export YAML file")
    .option("-e, --export <name>", "run only this export")
    .option("--json", "print a JSON summary on stdout")
    .option(
      "--cleanup",
      "only delete the objects of failed runs (in-progress markers) and abort dangling uploads",
    )
    .option(
      "--trust-endpoint <host...>",
      "trust this non-loopback S3 endpoint host (docs/endpoint-policy.md)",
    )
    .action(async (flags: RunFlags) => {
      const { openExportFile } = await import("../../export/export-file.js");
      const file = await openExportFile(flags.config, {
        env: io.env,
        cwd: io.cwd,
        ...(flags.trustEndpoint ? { trustedHosts: flags.trustEndpoint } : {}),
        ...(flags.cleanup ? { needSource: false } : {}),
        only: flags.export,
      });
      setExit(await (flags.cleanup ? cleanupOnly(file, flags, io) : runAll(file, flags, io)));
    });
}

type ExportFile = import("../../export/export-file.js").ExportFile;
type RunResult = import("../../export/runner.js").RunExportResult;
type Outcome<T> = import("../../export/export-file.js").ExportOutcome<T>;

const CLEAR_LINE = "\r\x1b[2K";

/** Runs the exports, SIGINT/SIGTERM aborting the one running; prints each outcome. */
async function runAll(file: ExportFile, flags: RunFlags, io: CliIo): Promise<number> {
  const { runExportFile } = await import("../../export/export-file.js");
  const interrupt = onInterrupt();
  const live = io.isTTY && !flags.json;
  let last = 0;
  const onProgress = (p: import("../../export/runner.js").ExportProgress) => {
    if (!live || Date.now() - last < 200) return;
    last = Date.now();
    const secs = Math.max(p.elapsedMs / 1000, 0.001);
    io.err(
      `${CLEAR_LINE}${p.export}  ${formatCount(p.rows)} rows  ${formatBytes(p.bytes)}  ${formatCount(Math.round(p.rows / secs))} rows/s  ${p.parts} parts  ${secs.toFixed(0)}s`,
    );
  };
  const summary: Record<string, unknown>[] = [];
  let failed = 0;
  try {
    for await (const o of runExportFile(file, {
      env: io.env,
      signal: interrupt.signal,
      onProgress,
    })) {
      if (live) io.err(CLEAR_LINE);
      last = 0;
      summary.push(runSummary(o));
      if (o.error) failed++;
      if (flags.json) continue;
      if (o.error) io.err(`[FAIL] ${o.error.message}\n${hintLine(o.error)}`);
      else io.out(runLines(o.result, o.export.destination));
    }
  } catch (err) {
    if (live) io.err(CLEAR_LINE); // a config or usage error thrown by an export
    throw err;
  } finally {
    interrupt.dispose();
  }
  if (flags.json) io.out(JSON.stringify({ ok: failed === 0, exports: summary }, null, 2) + "\n");
  return failed ? 1 : 0;
}

const hintLine = (e: { hint?: string }) => (e.hint ? `Hint: ${e.hint}\n` : "");

/** One export's entry in `run --json`. */
function runSummary(o: Outcome<RunResult>): Record<string, unknown> {
  if (o.error) return { export: o.export.name, ok: false, error: o.error };
  const r = o.result;
  return {
    export: r.export,
    ok: true,
    run_id: r.runId,
    mode: r.mode,
    rows: r.rows,
    bytes: r.bytes,
    parts: r.parts.length,
    duration_ms: r.durationMs,
    manifest: r.manifestKey,
    manifest_sha256: r.manifestSha256,
    aborted_uploads: r.abortedUploads,
    cleaned_runs: r.cleanedRuns,
    ...(r.keyset ? { keyset: r.keyset } : {}),
    ...(r.cursor ? { cursor: r.cursor } : {}),
  };
}

/** The `[OK]` line of a committed export, and what it cleaned up after earlier runs. */
function runLines(
  r: RunResult,
  dest: import("../../export/config.js").ResolvedExport["destination"],
): string {
  const where = r.manifestKey.replace(/manifest\.json$/, "");
  const root = dest.type === "s3" ? `s3://${dest.bucket}/` : `${dest.path}/`;
  let text = `[OK]  ${r.export}: ${formatCount(r.rows)} rows in ${r.parts.length} object${r.parts.length === 1 ? "" : "s"}, ${formatBytes(r.bytes)}, ${(r.durationMs / 1000).toFixed(1)} s → ${root}${where} (run ${r.runId})\n`;
  if (r.cleanedRuns.length)
    text += `      deleted the objects of ${r.cleanedRuns.length} earlier failed run(s): ${r.cleanedRuns.join(", ")}\n`;
  if (r.abortedUploads)
    text += `      aborted ${r.abortedUploads} multipart upload(s) left by an earlier interrupted run\n`;
  return text;
}

/** `--cleanup`: deletes what failed runs left, printing one line per export. */
async function cleanupOnly(file: ExportFile, flags: RunFlags, io: CliIo): Promise<number> {
  const { cleanupExportFile } = await import("../../export/export-file.js");
  const summary: Record<string, unknown>[] = [];
  let failed = 0;
  for await (const o of cleanupExportFile(file, { env: io.env })) {
    const name = o.export.name;
    if (o.error) {
      failed++;
      summary.push({
        export: name,
        ok: false,
        error: { code: o.error.code, message: o.error.message },
      });
      if (!flags.json) io.err(`[FAIL] ${name}: cleanup: ${o.error.message}\n${hintLine(o.error)}`);
      continue;
    }
    const r = o.result;
    summary.push({ export: name, ok: true, ...r });
    if (!flags.json)
      io.out(
        `[OK]  ${name}: removed ${r.deletedObjects} object(s) of ${r.runs.length} failed run(s), aborted ${r.abortedUploads} upload(s)${r.resumable.length ? `; left resumable keyset run ${r.resumable.join(", ")}` : ""}\n`,
      );
  }
  if (flags.json) io.out(JSON.stringify({ ok: failed === 0, exports: summary }, null, 2) + "\n");
  return failed ? 1 : 0;
}
