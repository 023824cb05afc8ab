/**
 * `stowage run --config export.yaml [--export NAME] [--json] [--cleanup]` (SPEC §7):
 * runs exports one after another. On a TTY a progress line (rows, bytes, rate, parts)
 * is redrawn on stderr; `--json` prints one summary object on stdout. `--cleanup`
 * only deletes what failed runs left and never connects to the database.
 * Exit 0 all committed, 1 any export failed, 2 config/usage error.
 */
import type { Command } from "commander";
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
      const { loadExportConfig, selectExports } = await import("../../export/config.js");
      const { runConfiguredExport } = await import("../../export/session.js");
      const { formatBytes, formatCount } = await import("../../shared/bytes.js");
      const cfg = await loadExportConfig(flags.config, {
        env: io.env,
        cwd: io.cwd,
        ...(flags.trustEndpoint ? { trustedHosts: flags.trustEndpoint } : {}),
        ...(flags.cleanup ? { needSource: false } : {}),
      });
      const exports = selectExports(cfg, flags.export);
      if (flags.cleanup) return cleanupOnly(cfg, exports, flags, io, setExit);
      const controller = new AbortController();
      let stoppedBy = "";
      const stop = (sig: NodeJS.Signals) => {
        stoppedBy = sig;
        controller.abort(new Error(`interrupted by ${sig}`));
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      const live = io.isTTY && !flags.json;
      const summary: Record<string, unknown>[] = [];
      let failed = 0;
      try {
        for (const exp of exports) {
          let last = 0;
          try {
            const r = await runConfiguredExport(cfg, exp, {
              env: io.env,
              signal: controller.signal,
              onProgress: (p) => {
                if (!live || Date.now() - last < 200) return;
                last = Date.now();
                const secs = Math.max(p.elapsedMs / 1000, 0.001);
                io.err(
                  `\r\x1b[2K${p.export}  ${formatCount(p.rows)} rows  ${formatBytes(p.bytes)}  ${formatCount(Math.round(p.rows / secs))} rows/s  ${p.parts} parts  ${secs.toFixed(0)}s`,
                );
              },
            });
            if (live) io.err("\r\x1b[2K");
            const where = r.manifestKey.replace(/manifest\.json$/, "");
            summary.push({
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
            });
            if (!flags.json) {
              io.out(
                `[OK]  ${r.export}: ${formatCount(r.rows)} rows in ${r.parts.length} object${r.parts.length === 1 ? "" : "s"}, ${formatBytes(r.bytes)}, ${(r.durationMs / 1000).toFixed(1)} s → ${exp.destination.type === "s3" ? `s3://${exp.destination.bucket}/` : `${exp.destination.path}/`}${where} (run ${r.runId})\n`,
              );
              if (r.cleanedRuns.length)
                io.out(
                  `      deleted the objects of ${r.cleanedRuns.length} earlier failed run(s): ${r.cleanedRuns.join(", ")}\n`,
                );
              if (r.abortedUploads)
                io.out(
                  `      aborted ${r.abortedUploads} multipart upload(s) left by an earlier interrupted run\n`,
                );
            }
          } catch (err) {
            if (live) io.err("\r\x1b[2K");
            failed++;
            const e = err as { code?: string; message?: string; hint?: string };
            if (stoppedBy) {
              e.message = `export "${exp.name}": interrupted by ${stoppedBy}; its open uploads were aborted and nothing was committed`;
              e.hint =
                "re-run the export; a second signal stops at once (the next run aborts what is left)";
            }
            if (e.code === "config" || e.code === "usage") throw err;
            summary.push({
              export: exp.name,
              ok: false,
              error: {
                code: e.code ?? "internal",
                message: e.message ?? String(err),
                ...(e.hint ? { hint: e.hint } : {}),
              },
            });
            if (!flags.json)
              io.err(`[FAIL] ${e.message ?? String(err)}\n${e.hint ? `Hint: ${e.hint}\n` : ""}`);
            if (controller.signal.aborted) break;
          }
        }
      } finally {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
      }
      if (flags.json)
        io.out(JSON.stringify({ ok: failed === 0, exports: summary }, null, 2) + "\n");
      setExit(failed ? 1 : 0);
    });
}

type Loaded = Awaited<ReturnType<typeof import("../../export/config.js").loadExportConfig>>;

async function cleanupOnly(
  cfg: Loaded,
  exports: Loaded["exports"],
  flags: RunFlags,
  io: CliIo,
  setExit: SetExitCode,
): Promise<void> {
  const { cleanupConfiguredExport } = await import("../../export/session.js");
  const summary: Record<string, unknown>[] = [];
  let failed = 0;
  for (const exp of exports) {
    try {
      const r = await cleanupConfiguredExport(cfg, exp, { env: io.env });
      summary.push({ export: exp.name, ok: true, ...r });
      if (!flags.json)
        io.out(
          `[OK]  ${exp.name}: removed ${r.deletedObjects} object(s) of ${r.runs.length} failed run(s), aborted ${r.abortedUploads} upload(s)${r.resumable.length ? `; left resumable keyset run ${r.resumable.join(", ")}` : ""}\n`,
        );
    } catch (err) {
      failed++;
      const e = err as { code?: string; message?: string; hint?: string };
      summary.push({
        export: exp.name,
        ok: false,
        error: { code: e.code ?? "internal", message: e.message ?? String(err) },
      });
      if (!flags.json)
        io.err(
          `[FAIL] ${exp.name}: cleanup: ${e.message ?? String(err)}\n${e.hint ? `Hint: ${e.hint}\n` : ""}`,
        );
    }
  }
  if (flags.json) io.out(JSON.stringify({ ok: failed === 0, exports: summary }, null, 2) + "\n");
  setExit(failed ? 1 : 0);
}
